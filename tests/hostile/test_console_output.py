"""Class: text a candidate or an agent controls, printed by the tool. No printed line may be a
GitHub workflow command (`::` first, `##[` anywhere) or carry a terminal escape, whatever a file
name, a command or a message holds; and every printer goes through the one output helper."""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from instruction_gate.cli import main
from instruction_gate.console import safe, safe_json
from instruction_gate.report.github import escape_data

HOSTILE = ["x\n::set-output name=verdict::pass", "\r::add-mask::secret", "  ::stop-commands::tok",
           "a ##[set-output name=v;]pass", "\x1b[2K\x1b[1A::error::forged", "\x9b31mred", "x\u2028::warning::y",
           "::group::\n##[endgroup]"]


def _injects(printed: str) -> list[str]:
    return [line for line in printed.split("\n")
            if line.lstrip().startswith("::") or "##[" in line or re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", line)]


@pytest.mark.parametrize("text", HOSTILE)
def test_the_helper_leaves_no_workflow_command_and_no_escape(text):
    assert _injects(safe(text)) == [] and "\r" not in safe(text)
    assert _injects("::error::" + escape_data(text)) == ["::error::" + escape_data(text)]  # only the tool's own
    assert "\n" not in escape_data(text) and "\x1b" not in escape_data(text)
    assert "##[" not in safe_json('{"a": "%s"}' % text.encode("unicode_escape").decode())


def test_explain_prints_hostile_paths_and_commands_as_text(tmp_path, capsys):
    hostile_dir = "sub\x1b[31m\n::set-output name=verdict::pass ##[group]"
    (tmp_path / hostile_dir).mkdir()
    (tmp_path / "AGENTS.md").write_text("# Rules\n\nRun `make test` before finishing.\n")
    (tmp_path / hostile_dir / "AGENTS.md").write_text("Run `make lint` before finishing.\n")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    main(["explain", "--repo", str(tmp_path), "--cwd", hostile_dir])
    out = capsys.readouterr()
    printed = out.out + out.err
    assert "set-output name=verdict::pass" in printed and "make lint" in printed  # shown, as text
    assert _injects(printed) == []


#: Printers allowed to write a line unescaped: the tool's own workflow commands, whose data
#: `report/github.escape_data` escapes, and JSON through `safe_json`.
OWN_COMMANDS = {("report/github.py", "line"), ("report/action_report.py", "f'::"), ("commands/lint.py", "line")}


def test_every_printer_goes_through_the_output_helper():
    package = Path(__file__).resolve().parents[2] / "instruction_gate"
    unsafe = []
    for path in package.rglob("*.py"):
        rel = path.relative_to(package).as_posix()
        if rel == "console.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print"):
                continue
            first = ast.unparse(node.args[0]) if node.args else ""
            if first.startswith("safe_json(") or (rel, first[:4] if first.startswith("f'::") else first) in OWN_COMMANDS:
                continue
            unsafe.append(f"{rel}:{node.lineno}: print({first})")
        source = path.read_text(encoding="utf-8")
        unsafe += [f"{rel}: sys.stdout/stderr.write of unescaped text" for m in
                   re.finditer(r"sys\.(?:stdout|stderr)\.write\((?!safe\(|json\.dumps)", source)]
    assert unsafe == []


def test_changed_file_names_shown_by_the_action_stay_text(git_repo, capsys):
    manifest = {"schema_version": 1, "repeats": 1, "instruction_paths": ["**/AGENTS.override.md"],
                "tasks": [{"id": "t", "kind": "bug_fix", "prompt_file": "evals/prompt.md", "checks": [["true"]]}]}
    base = git_repo.commit({"evals/manifest.json": json.dumps(manifest), "evals/prompt.md": "do it"}, "base")
    candidate = git_repo.commit({"a ::add-mask::x/AGENTS.override.md": "1", "c \x1b[2K##[group]/AGENTS.override.md": "3"},
                                "hostile names")
    assert main(["changes", "--repo", str(git_repo.path), "--manifest", str(git_repo.path / "evals/manifest.json"),
                 "--base", base, "--candidate", candidate]) == 0
    listed = capsys.readouterr().out
    assert len(listed.splitlines()) == 2 and _injects(listed) == []
    # The action prints the list with this line of its `changes` step.
    action = (Path(__file__).resolve().parents[2] / "action.yml").read_text()
    shown = next(line.strip() for line in action.splitlines() if 'echo "Changed instruction files:"' in line)
    result = subprocess.run(["bash", "-c", f'changed="$CHANGED"; {shown}'], env={**os.environ, "CHANGED": listed.rstrip("\n")},
                            capture_output=True, text=True, check=True)
    assert len(result.stdout.splitlines()) == 3 and _injects(result.stdout) == []


def test_an_error_naming_a_value_with_a_newline_is_one_line(git_repo, capsys):
    git_repo.commit({"AGENTS.md": "- Run `make test`.\n"}, "base")
    assert main(["lint", "--repo", str(git_repo.path), "--base", "HEAD\nfoo"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "HEAD\\nfoo" in err


def test_bidirectional_controls_are_written_out():
    printed = safe("Unknown make target `\u202etset\u202c`")
    assert not any(c in printed for c in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f")
    assert "\\u202e" in printed


def test_invisible_characters_are_written_out():
    """A planted `conftest.py` + zero-width space must not read as the real name in a summary."""
    from instruction_gate.report.textfmt import code
    for invisible in "\u200b\u200c\u200d\u2060\ufeff\u061c\u180e":
        printed = safe(f"conftest.py{invisible}")
        assert invisible not in printed and printed == f"conftest.py\\u{ord(invisible):04x}"
        assert invisible not in code(f"conftest.py{invisible}", 80)
