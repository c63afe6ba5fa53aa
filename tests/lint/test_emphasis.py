"""Emphasis markers come out of prose the way a reader sees the words; code, names and labels stay."""

import pytest

from instruction_gate.lint.emphasis import strip


@pytest.mark.parametrize(("text", "plain"), [
    ("**Always** run `make test`.", "Always run `make test`."),
    ("Do **not** edit `dist/`.", "Do not edit `dist/`."),
    ("_Never_ push.", "Never push."),
    ("***NEVER*** commit", "NEVER commit"),
    ("**`make test`** must pass", "`make test` must pass"),
    ("*not* here, __and__ there", "not here, and there"),
    ("***bold** then italic*", "bold then italic"),
    ("**Always\nrun** it", "Always\nrun it"),  # across a hard wrap, as blocks are joined
])
def test_emphasis_is_taken_out(text, plain):
    assert strip(text)[0] == plain


@pytest.mark.parametrize("text", [
    "snake_case_name stays",  # an underscore inside a word is part of it
    "edit __init__.py with care",  # a bare file name, as the agent reads the raw text
    "**/*.md and * b * c",  # stars around no word, stars between spaces
    "`**bold**` in code and `_x_`",  # code spans are written as they are
    "**Test:** `make test`",  # a label: its emphasis says it names a command
    "**Build**: `make`",
    "an *unclosed star",
])
def test_what_is_no_emphasis_stays_as_written(text):
    assert strip(text)[0] == text


def test_kept_offsets_point_into_the_original():
    text = "Do **not** edit it"
    plain, kept = strip(text)
    assert [text[i] for i in kept] == list(plain)
    assert kept[plain.index("not")] == text.index("not")
