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


def test_findings_after_a_lone_carriage_return_keep_their_line(tmp_path):
    text = "# Rules\nOne\rtwo\nRun `make nosuch` before finishing.\n"
    [finding] = findings(tmp_path, {"AGENTS.md": text, "Makefile": "test:\n\ttrue\n"}, "IG001")
    assert finding.line == 3  # as git and GitHub count lines: by line feeds


def test_a_url_in_a_code_example_is_the_programs_data(tmp_path):
    text = ("# Usage\n\n```python\nagent = Agent(task='Visit https://search.example-engine.com and find x')\n```\n\n"
            "```bash\ncurl -sSL https://get.tool-host.io/install.sh\n```\n")
    hosts = [f.message.split("`")[1] for f in findings(tmp_path, {"AGENTS.md": text}, "IG010")]
    assert hosts == ["get.tool-host.io"]


def test_a_linked_url_needs_a_fetching_verb_of_its_own(tmp_path):
    text = ("Find repositories in the [testing org](https://hub.models-host.io/testing); once you open the PR we "
            "create one under [our org](https://hub.models-host.io/ours).\n\nDownload [the model](https://files.weights-host.io/m).\n")
    hosts = [f.message.split("`")[1] for f in findings(tmp_path, {"AGENTS.md": text}, "IG010")]
    assert hosts == ["files.weights-host.io"]


@pytest.mark.parametrize(("data", "line", "says"), [
    ("# Rules\n\n- Always run `make lint`.\n".encode("utf-16"), 1, "is UTF-16 little-endian text"),
    ("# Rules\n".encode("utf-16-be").join([b"\xfe\xff", b""]), 1, "is UTF-16 big-endian text"),
    (b"# Rules\n\n\x00\x00\x00\x00\n- Keep it short.\n", 3, "holds 4 NUL byte(s), from line 3"),
    (b"# Rules\n- caf\xe9 rules\n", 2, "is not valid UTF-8 from line 2 (byte 0xE9)"),
])
def test_bytes_that_are_not_utf8_text_are_reported(tmp_path, data, line, says):
    found = [f for f in findings(tmp_path, {"AGENTS.md": data}, "IG009")]
    assert [(f.line, says in f.message) for f in found] == [(line, True)], found


def test_utf8_text_with_a_byte_order_mark_is_not_reported(tmp_path):
    assert findings(tmp_path, {"AGENTS.md": "\ufeff# Rules\n- Ünïcode is fine.\n".encode()}, "IG009") == []
