"""Credential-shaped text: found for the lint (IG007) and redacted from everything written.

`secrets.py` removes the values of secret *variables*; this module recognises secrets by their
shape, wherever they come from: a token pasted into an AGENTS.md, an agent echoing a key. The
lint reports them; `explain`, `mutate` and the run store write `[REDACTED]` in their place, so a
token in an instruction file does not spread into summaries, artifacts and logs.

Every pattern is linear on any input, because instruction files are untrusted: a part that may
repeat before the part that can fail is bounded (a URL scheme, a name's suffixes), or `a-a-a-…`
and `token_a_token_a…` would each be scanned to the end from every position.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Iterator

REDACTED = "[REDACTED]"

#: (kind, pattern) — well-known token formats first, generic assignments last. The `value` group,
#: when a pattern has one, is the secret itself; otherwise the whole match is.
PATTERNS = (
    ("private key", re.compile(r"-----BEGIN (?:[A-Z]+ )*PRIVATE KEY-----"
                               r"(?:(?P<value>[A-Za-z0-9+/=\s\\n]{0,20000}?)-----END (?:[A-Z]+ )*PRIVATE KEY-----)?")),
    ("AWS access key id", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("GitHub token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})\b")),
    ("Slack token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    ("Anthropic API key", re.compile(r"\bsk-ant-[A-Za-z0-9_\-]{20,}")),
    ("OpenAI API key", re.compile(r"\bsk-(?!ant-)(?:proj-)?[A-Za-z0-9_\-]{20,}")),
    ("Google API key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}\b")),
    ("JSON web token", re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}")),
    ("credential in URL", re.compile(r"\b[a-z][a-z0-9+.\-]{0,31}://[^\s:/@\"'\\]{1,256}:(?P<value>[^\s:/@\"'\\]{3,256})@",
                                     re.IGNORECASE)),
    ("bearer token", re.compile(r"(?i)\bbearer\s+(?P<quote>)(?P<value>[A-Za-z0-9/+_\-.=~]{15,}[A-Za-z0-9/+_\-=~])")),
    # The keyword may end a longer name (AWS_SECRET_ACCESS_KEY, GH_TOKEN, db.password): the name's
    # start is found by `_name_start`, not by the pattern.
    ("credential assignment", re.compile(
        r"(?i)(?:api[_-]?key|secret|token|passw(?:or)?d|credential|access[_-]?key)s?(?:[_.\-][A-Za-z0-9]{1,40}){0,4}\b"
        r"\s*[:=]\s*(?P<quote>[\"']?)(?P<value>[A-Za-z0-9/+_\-.=]{15,}[A-Za-z0-9/+_\-=])")),  # not a full stop
    # A bare "key" names many things ("primary key: user_id_and_timestamp"): its value must mix
    # upper and lower case and digits, as generated keys do.
    ("key assignment", re.compile(
        r"(?i)\bkey\s*[:=]\s*(?P<quote>[\"']?)"
        r"(?P<value>(?=[A-Za-z0-9/+_\-=]{0,200}?[0-9])(?=[A-Za-z0-9/+_\-=]{0,200}?[A-Z])(?=[A-Za-z0-9/+_\-=]{0,200}?[a-z])"
        r"[A-Za-z0-9/+_\-=]{20,})")),
    # Key material on lines of its own (a PEM body without its header, as a diff or a cut shows it):
    # a long unbroken base64 line mixing cases and digits. Redacted, never a lint finding (`REDACT_ONLY`).
    ("key material", re.compile(
        r"(?m)^[-+ ]?[ \t]*(?P<value>(?=[A-Za-z0-9+/]{0,80}?[0-9])(?=[A-Za-z0-9+/]{0,80}?[A-Z])"
        r"(?=[A-Za-z0-9+/]{0,80}?[a-z])[A-Za-z0-9+/]{40,}={0,2})[ \t]*\r?$")),
)
#: Shapes redacted from what is written but not reported by the lint: too generic to call a secret.
REDACT_ONLY = {"key material"}
#: Generic assignments only count when the value looks random (bits per character).
MIN_ENTROPY = 3.0
#: An unquoted value that is a dotted name (`usage.total_tokens`) or a call is code reading a
#: value, not the value itself: `tokens=usage.total_tokens` in a logging example.
_CODE_VALUE = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
_PLACEHOLDER = re.compile(r"(?i)x{4,}|\.{3}|<|\$\{|example|changeme|dummy|placeholder|your[_-]")
_GENERIC = {"bearer token", "credential assignment", "key assignment"}
_NAME_CHARACTER = re.compile(r"[\w.\-]")


@dataclass(frozen=True)
class Secret:
    kind: str
    value: str  #: the secret itself
    start: int  #: where the finding points: the token, or the name it is assigned to
    value_start: int
    value_end: int


def _entropy(value: str) -> float:
    counts = [value.count(c) for c in set(value)]
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts)


def _not_a_secret(match: re.Match, text: str) -> bool:
    """A generic match whose value is code (a name read, a call) or not random enough to be a secret."""
    value = match.group("value")
    if not match.group("quote") and (_CODE_VALUE.fullmatch(value) or text[match.end():match.end() + 1] in ("(", "[")):
        return True
    return _entropy(value) < MIN_ENTROPY


def _name_start(text: str, keyword_start: int) -> int:
    """The start of the name a keyword ends (`AWS_` of `AWS_SECRET_ACCESS_KEY`), at most 100 back."""
    start = keyword_start
    while start > max(keyword_start - 100, 0) and _NAME_CHARACTER.match(text, start - 1):
        start -= 1
    return start


def find(text: str, *, placeholders: bool = False) -> Iterator[Secret]:
    """Every secret-shaped value in `text`, pattern by pattern. Generic assignments of values that
    are code or not random are skipped; so are placeholders (`<token>`, `${KEY}`, `xxxx`,
    "example") unless `placeholders`: redaction takes them too, since a real key can contain
    "example" and blanking a sample costs nothing, while the lint must not report a sample."""
    for kind, pattern in PATTERNS:
        for match in pattern.finditer(text):
            group = "value" if match.groupdict().get("value") else 0
            value = match.group(group)
            if (not placeholders and _PLACEHOLDER.search(value)) or (kind in _GENERIC and _not_a_secret(match, text)):
                continue
            start = _name_start(text, match.start()) if kind in ("credential assignment", "key assignment") else match.start()
            yield Secret(kind, value, start, match.start(group), match.end(group))


def first(text: str) -> Secret | None:
    """The most specific secret in `text` (the first pattern that matches) the lint reports."""
    return next((s for s in find(text) if s.kind not in REDACT_ONLY), None)


def redact(text: str) -> str:
    """`text` with every secret-shaped value replaced by REDACTED (names and keywords kept, so
    `GITHUB_TOKEN=[REDACTED]` still says what was there)."""
    spans = sorted((s.value_start, s.value_end) for s in find(text, placeholders=True))
    if not spans:
        return text
    parts, cursor = [], 0
    for start, end in spans:
        if start >= cursor:
            parts += [text[cursor:start], REDACTED]
            cursor = end
        elif end > cursor:
            cursor = end  # overlapping matches of two patterns: one replacement covers both
    return "".join(parts) + text[cursor:]
