"""The offline tier says what it does not understand: instruction-looking lines that gave no
directive are listed with their line (abstain.py), shown by `explain`, counted in the reference
agent's result event, and named per task in compare's summary."""

from __future__ import annotations

import json

from instruction_gate.cli import main
from instruction_gate.reference_agent.abstain import not_understood
from instruction_gate.reference_agent.directives import parse
from tests.compare_builders import compare, index, policy, run
from reference_helpers import request, workspace

from instruction_gate.reference_agent.agent import Options, ReferenceAgent

TEXT = """# Guide

## Build and verify

Run `make test` before committing.

- Prefer small, pure functions.
- Document every public function.
- The API always returns JSON.
- Tests live in `tests/`.
- Build output goes to `dist/`.
- CI runs `make lint` on every push.
- `make docs` – build the documentation

## Useful commands

```sh
make serve   # start a local server
uv run pytest tests/<file>.py
```

```python
run(fast=True)
```

| Task | Command |
|------|---------|
| Docs | `make docs` |
"""


def _unread(text: str) -> dict[int, str]:
    return {u.line: u.why for u in not_understood(text, "AGENTS.md", parse(text, "AGENTS.md"))}


def test_instruction_looking_lines_without_a_directive_are_listed():
    unread = _unread(TEXT)
    assert unread == {
        7: "starts with `prefer`", 8: "starts with `document`", 9: "says `always`",
        13: "a command in a code span",  # a reference entry for a command: not taken, so listed
        18: "a command in a code block", 19: "a command in a code block",  # a reference list, placeholders too
        28: "a command in a table",
    }
    # understood (line 5), headings, descriptions ("Tests live in", "Build output goes", "CI runs") and
    # the code example are not listed


def test_a_lead_whose_block_was_read_is_understood_and_one_whose_block_was_not_is_listed():
    read = "Run these before committing:\n\n```sh\nmake lint\nmake test\n```\n"
    assert _unread(read) == {}
    unread = "Set up the pre-release tooling:\n\n```sh\nmake release-tools\n```\n"
    assert _unread(unread) == {1: "starts with `set`", 4: "a command in a code block"}


def test_a_line_holding_a_directive_is_not_listed_even_beside_another_clause():
    assert _unread("Always run `make check`; keep commits small.\n") == {}
    assert _unread("Keep commits small.\nUse `ruff` for everything.\n") == {1: "starts with `keep`", 2: "starts with `use`"}


def _repo(tmp_path, text: str):
    (tmp_path / "AGENTS.md").write_text(text)
    return tmp_path


def test_explain_lists_and_counts_them(tmp_path, capsys):
    repo = _repo(tmp_path, TEXT)
    assert main(["explain", "--repo", str(repo), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["not_understood_count"] == 7 == len(data["not_understood"])
    assert data["not_understood"][0] == {"file": "AGENTS.md", "line": 7, "text": "Prefer small, pure functions.",
                                         "why": "starts with `prefer`"}
    assert main(["explain", "--repo", str(repo)]) == 0
    out = capsys.readouterr().out
    assert "Not understood (7): lines that look like instructions the reference agent does not act on" in out
    assert "  AGENTS.md:9  The API always returns JSON.  (says `always`)" in out


def test_the_summary_names_tasks_with_lines_not_understood(tmp_path):
    runs = [run("a", 0, "base", not_understood=3), run("a", 0, "candidate", not_understood=5),
            run("b", 0, "base", not_understood=0), run("b", 0, "candidate", not_understood=0),
            run("c", 0, "base"), run("c", 0, "candidate")]  # another agent: nothing reported
    code, summary, markdown = compare(tmp_path, index(runs), policy())
    assert code == 0
    sentence = "task a: 5 instruction lines of the candidate the offline agent did not understand (base: 3)"
    assert summary["not_understood"] == [{"task_id": "a", "base": 3, "candidate": 5, "sentence": sentence}]
    assert f"- {sentence}" in markdown


def test_the_agents_result_event_counts_them(tmp_path):
    root = workspace(tmp_path, "bug-tax-rounding")

    def counted() -> int:  # the plan alone: nothing is run
        agent = ReferenceAgent(request(root, "bug-tax-rounding"), Options(), lambda event: None)
        plan, sources, sizes = agent.load_plan()
        return agent.result(plan, sources, sizes, None)["not_understood"]

    plain = counted()
    with (root / "AGENTS.md").open("a", encoding="utf-8") as agents:
        agents.write("\n## Style\n\n- Prefer small functions.\n- Keep imports sorted.\n- Tests live in `tests/`.\n")
    assert counted() == plain + 2


def test_a_line_with_a_control_character_gives_no_directive():
    from instruction_gate.reference_agent.directives import parse
    found = parse("Read this: @docs/a\x00b.md\n\nRun `make test` before committing.\n", "CLAUDE.md")
    assert not [d for d in found if d.line == 1]  # not `read b.md`: the file never named it
    assert "make test" in [d.argument for d in found if d.line == 3]
