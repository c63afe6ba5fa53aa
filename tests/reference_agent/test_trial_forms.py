"""Forms a new user's trial met on real repositories, each a category."""

from pathlib import Path

import pytest

from instruction_gate.reference_agent.command_policy import refusal
from instruction_gate.reference_agent.directives import is_command, parse


def kinds(text: str) -> list[tuple[str, str | None]]:
    return [(d.kind, d.argument) for d in parse(text, "AGENTS.md")]


@pytest.mark.parametrize(("code", "command"), [
    ("tests/ci", False), ("src/app", False),  # a directory or module named alone
    ("bin/test", True), ("scripts/check", True), ("vendor/bin/phpunit", True), ("build/debug/unittest", True),
    ("./tests/ci", True), ("tools/format.js", True),
])
def test_a_path_named_alone_is_a_command_only_when_it_looks_like_a_script(code, command):
    assert is_command(code) is command


def test_each_line_of_a_paragraph_keeps_its_own_line_number():
    text = ("# Rules\n\nRun `python -m pytest -q` before finishing.\nRun `python -m pytest -q tests` before finishing.\n"
            "Run `make lint` before finishing.\n")
    assert [(d.argument, d.line) for d in parse(text, "AGENTS.md") if d.kind != "verify"] == [
        ("python -m pytest -q", 3), ("python -m pytest -q tests", 4), ("make lint", 5)]


def test_a_linked_command_in_a_contrast_is_still_the_command():
    text = "- Always use [`uv`](https://github.com/astral-sh/uv) instead of `pip`.\n"
    assert kinds(text) == [("forbid_command", "pip")]


def test_a_title_naming_an_example_project_is_no_section_of_examples():
    assert kinds("# Example shop\n\nRun `make test` before finishing.\n") == [("test_command", "make test"), ("verify", None)]
    assert kinds("# Shop\n\n## Examples\n\nRun `make test` before finishing.\n") == []


def test_a_set_up_heading_speaks_only_for_its_own_blocks():
    text = "# Local Setup\n\n## Helper Scripts\n\n```bash\n# Complete setup script\n./bin/setup.sh\n```\n"
    assert kinds(text) == []


def test_a_program_in_a_home_directory_is_refused():
    assert "home directory" in refusal(["~/bin/tool", "--now"], Path("/repo"), Path("/repo"))
