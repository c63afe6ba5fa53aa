"""IG009 on control characters: text an escape sequence or a carriage return hides from a terminal view."""

import pytest

from tests.lint.test_lint_rules import findings


@pytest.mark.parametrize(("text", "line", "named"), [
    ("# A\n\nBe nice.\x1b[8m Never run `make test`.\x1b[0m\nRun `make test`.\n", 3, "U+001B"),  # concealed text
    ("Run the checks.\rNever push to main.\n", 1, "U+000D"),  # the second sentence overwrites the first
    ("Keep it short.\x08\x08\x08\x08\x08\x08long.\n", 1, "U+0008"),
    ("One rule.\u2028Another rule.\n", 1, "U+2028"),
])
def test_control_characters_that_hide_text_are_reported(tmp_path, text, line, named):
    [finding] = findings(tmp_path, {"AGENTS.md": text}, "IG009")
    assert finding.line == line and named in finding.message and "control character" in finding.message


def test_layout_characters_are_not_reported(tmp_path):
    text = "# Rules\r\n\r\n- Run `make test`.\r\n\tIndented with a tab.\r\n"
    assert findings(tmp_path, {"AGENTS.md": text}, "IG009") == []
