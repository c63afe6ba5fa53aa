"""Credential shapes: found for the lint, redacted from everything written, names kept."""

from __future__ import annotations

import json

import pytest

from instruction_gate import secret_shapes
from instruction_gate.secrets import REDACTED, Redactor

GITHUB = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzR4ND0MKQ"


@pytest.mark.parametrize("text, kind, value", [
    (f"export GITHUB_TOKEN={GITHUB}", "GitHub token", GITHUB),
    (f"export AWS_SECRET_ACCESS_KEY={AWS_SECRET} first", "credential assignment", AWS_SECRET),
    (f'aws_secret_access_key = "{AWS_SECRET}"', "credential assignment", AWS_SECRET),
    (f"Use `db.password: {AWS_SECRET}` locally", "credential assignment", AWS_SECRET),
    ("clone https://bob:Hunter2Hunter2@git.example.org/x.git", "credential in URL", "Hunter2Hunter2"),
    ("curl -H 'Authorization: Bearer abcdEFGH12345678ijkl'", "bearer token", "abcdEFGH12345678ijkl"),
    ("key AKIAIOSFODNN7REALKEY", "AWS access key id", "AKIAIOSFODNN7REALKEY"),
    (f"- Also the key: {AWS_SECRET[:-1]}9", "key assignment", AWS_SECRET[:-1] + "9"),
    ("-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAK\n-----END RSA PRIVATE KEY-----", "private key", "\nMIIBOgIBAAJBAK\n"),
])
def test_each_shape_is_found_and_only_its_value_redacted(text, kind, value):
    secret = secret_shapes.first(text)
    assert (secret.kind, secret.value) == (kind, value)
    assert text[secret.value_start:secret.value_end] == value
    redacted = secret_shapes.redact(text)
    assert value not in redacted and REDACTED in redacted
    assert redacted == text.replace(value, REDACTED, 1)  # the name, keyword and punctuation stay


def test_the_finding_points_at_the_whole_name():
    text = f"then AWS_SECRET_ACCESS_KEY={AWS_SECRET}"
    assert secret_shapes.first(text).start == text.index("AWS_")


@pytest.mark.parametrize("text", [
    "logger.info(tokens=usage.total_tokens)",  # code reading a value
    "max_tokens = 4096", "the secret: keep it short", "token = read_token(path)",
    "password = aaaaaaaaaaaaaaaaaaaa",  # not random
    "a-" * 2000, "token_a" * 1000, "",
    "Primary key: user_id_and_timestamp; sort key = createdAtTimestamp",  # a bare "key" naming a field
    "commit 3f2a9c0d1e4b5a6978c0d1e2f3a4b5c6d7e8f901 fixed it",  # a hash: one case
])
def test_ordinary_text_is_left_alone(text):
    assert secret_shapes.first(text) is None
    assert secret_shapes.redact(text) == text


def test_placeholders_are_not_findings_but_are_still_redacted():
    sample = "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    assert secret_shapes.first(sample) is None  # the lint does not report a documented sample
    assert secret_shapes.redact(sample) == f"AWS_SECRET_ACCESS_KEY={REDACTED}"


def test_overlapping_shapes_give_one_replacement():
    text = f"token = {GITHUB}"  # both the GitHub pattern and the generic assignment match
    assert secret_shapes.redact(text) == f"token = {REDACTED}"
    # The sentence's full stop is not part of a generic value (nor of the merged replacement).
    assert secret_shapes.redact(f"Never push with GH_TOKEN={GITHUB}.") == f"Never push with GH_TOKEN={REDACTED}."
    assert secret_shapes.redact(f"Set token: {AWS_SECRET}.") == f"Set token: {REDACTED}."


def test_records_are_redacted_before_they_are_encoded():
    """In JSON a token after a newline follows `\\n`, which hides its word boundary."""
    record = {"events": [{"text": f"line one\n{GITHUB}\nAWS_SECRET_ACCESS_KEY={AWS_SECRET}"}],
              "count": 3, "nested": [[f"x {GITHUB}"]], "none": None}
    encoded = json.dumps(Redactor(("s3cr3t-value",)).data({**record, "env": "s3cr3t-value"}))
    assert GITHUB not in encoded and AWS_SECRET not in encoded and "s3cr3t-value" not in encoded
    decoded = json.loads(encoded)
    assert decoded["count"] == 3 and decoded["none"] is None
    assert decoded["events"][0]["text"] == f"line one\n{REDACTED}\nAWS_SECRET_ACCESS_KEY={REDACTED}"


def test_key_material_without_its_header_is_redacted_but_not_reported():
    """A cut mutant or a diff hunk shows a PEM body without BEGIN/END: its lines are still key."""
    body = "oywM2W3d8mLw0aW+wRmAcQ8OSKTLNlKt3qtfNnrds1MqO/PMOtbJjGRWHPFMfipS"
    hunk = f"@@ -37,3 +36,0 @@\n-{body}\n-{body[::-1]}\n context line\n"
    assert secret_shapes.redact(hunk) == f"@@ -37,3 +36,0 @@\n-{REDACTED}\n-{REDACTED}\n context line\n"
    assert secret_shapes.first(body) is None  # too generic for a lint finding
    assert secret_shapes.redact("x" * 64) == "x" * 64  # one case, no digit: not key material
