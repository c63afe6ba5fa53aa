"""Prompts from commit subjects: conventions and references removed, the fix never handed over."""

from __future__ import annotations

import pytest

from instruction_gate.mining.prompt import subject_sentence, write


@pytest.mark.parametrize("subject, sentence", [
    ("Fix #218: Fix and properly document @cachedmethod.cache_key handling.",
     "Fix and properly document @cachedmethod.cache_key handling."),
    ("- Add get() row method", "Add get() row method."),
    ("Issue 1001: fix last() when __reversed__ is None", "Fix last() when __reversed__ is None."),
    ("fix(cli): crash on empty input (#12)", "Crash on empty input."),
    ("Handle empty input in rows_from_file, closes #55", "Handle empty input in rows_from_file."),
    ("[bug] Crash when the path has spaces, see https://example.invalid/i/3", "Crash when the path has spaces, see."),
])
def test_subjects_lose_their_conventions_and_references(subject, sentence):
    assert subject_sentence(subject) == sentence


def test_the_prompt_names_the_tests_and_where_they_are_never_how_to_verify():
    prompt, flags = write("Crash when the config file is empty", ("tests/test_cfg.py::test_empty",))
    assert "not in your working tree" in prompt and "`tests/test_cfg.py::test_empty`" in prompt
    assert "pytest" not in prompt.replace("tests/test_cfg.py", "") and flags == []
    prompt, _ = write("Crash when the config file is empty", ("t.py::x",), tests_visible=True)
    assert "(in your working tree)" in prompt


def test_subjects_that_state_the_fix_or_say_little_are_flagged():
    _, flags = write("Use a lock instead of a flag", ("t.py::x",))
    assert "the commit subject may state the fix rather than the problem" in flags
    _, flags = write("Fix typo", ("t.py::x",))
    assert any("short" in f for f in flags)
