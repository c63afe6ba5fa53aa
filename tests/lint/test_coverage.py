"""Instruction coverage in the lint: files and sections no task of the suite can reach, per agent."""

from __future__ import annotations

import json

from instruction_gate.cli import main
from instruction_gate.lint import coverage
from instruction_gate.lint.coverage import gaps

LONG = b"# Rules\n\n- Run `make test`.\n\n" + b"- Keep it short.\n" * 2100 + b"\n## Release steps\n\n- Tag it.\n"


def test_files_no_cwd_reaches_are_gaps_for_the_agents_that_load_them():
    files = {"AGENTS.md": b"root\n", "CLAUDE.md": b"see @docs/more.md\n", "docs/more.md": b"more\n",
             "pkg/a/AGENTS.md": b"a\n", "pkg/b/AGENTS.md": b"b\n", "pkg/b/CLAUDE.md": b"b\n"}
    found = {(agent, g.path, g.section) for g in gaps(files, ["pkg/a"]) for agent in g.agent.split(", ")}
    # From pkg/a the root chain loads at start; pkg/b is a sibling, never below the cwd; headless
    # Claude Code expands only imports inside its working directory, so docs/more.md stays unread.
    assert {f for f in found if f[0] in ("codex", "claude")} == {
        ("codex", "pkg/b/AGENTS.md", None), ("claude", "pkg/b/CLAUDE.md", None), ("claude", "docs/more.md", None)}
    assert ("gemini", "pkg/b/AGENTS.md", None) in found  # the gemini adapter loads AGENTS.md too
    # From the root, every nested file is below the cwd, but Codex loads none of them lazily (its CLI
    # sends the start-up chain alone): for Codex they are gaps; the agents that load them lazily reach them.
    assert [(g.agent, g.path) for g in gaps(files, ["."])] == [("codex", "pkg/a/AGENTS.md"), ("codex", "pkg/b/AGENTS.md")]
    assert "no task's cwd (.) reaches it" in gaps(files, ["."])[0].why


def test_a_file_several_agents_load_is_one_gap_naming_them_all():
    # pkg/b/CLAUDE.md imports the AGENTS.md beside it: Codex and Claude Code both load that file.
    files = {"pkg/a/AGENTS.md": b"a\n", "pkg/b/AGENTS.md": b"b\n", "pkg/b/CLAUDE.md": b"@AGENTS.md\n"}
    found = [g.agent.split(", ") for g in gaps(files, ["pkg/a"]) if g.path == "pkg/b/AGENTS.md"]
    assert len(found) == 1 and {"codex", "claude"} <= set(found[0])


def test_sections_past_the_codex_cut_are_gaps_when_no_task_sees_the_file_whole():
    found = gaps({"AGENTS.md": LONG}, ["."])
    assert [(g.agent, g.section) for g in found] == [("codex", "Release steps")]
    assert "32768-byte cut" in found[0].why
    assert gaps({"AGENTS.md": LONG}, ["."], {"codex": 1 << 20}) == []


def test_repeated_headings_past_the_cut_are_one_gap_and_the_table_is_capped():
    # A hostile file: the same heading hundreds of times past the cut, and many distinct ones.
    body = b"# Rules\n\n" + b"- Keep it short.\n" * 2100
    repeated = body + b"\n## Notes\n\n- x\n" * 300
    found = gaps({"AGENTS.md": repeated}, ["."])
    assert [(g.agent, g.section) for g in found] == [("codex", "Notes")]  # one agent name, once
    many = body + b"".join(b"\n## Part %d\n\n- x\n" % i for i in range(45))
    found = gaps({"AGENTS.md": many}, ["."])
    assert len(found) == 45
    table = coverage.markdown(found, 1)
    assert sum(line.startswith("| codex |") for line in table) == coverage.MAX_ROWS
    assert f"… and {45 - coverage.MAX_ROWS} more gap(s), listed in the JSON report." in table


def test_lint_reports_coverage_with_a_manifest(git_repo, tmp_path, capsys):
    manifest = {"schema_version": 1, "repeats": 1, "instruction_paths": ["**/AGENTS.md"],
                "tasks": [{"id": "a", "kind": "bug_fix", "cwd": "pkg/a", "prompt_file": "evals/a.md",
                           "checks": [["true"]]}]}
    commit = git_repo.commit({"AGENTS.md": "root\n", "pkg/a/AGENTS.md": "a\n", "pkg/b/AGENTS.md": "b | c\n",
                              "evals/a.md": "x\n", "evals/manifest.json": json.dumps(manifest)})
    out = tmp_path / "lint.json"
    code = main(["lint", "--repo", str(git_repo.path), "--manifest", str(git_repo.path / "evals/manifest.json"),
                 "--candidate", commit, "--json", str(out)])
    assert code == 0
    [gap] = json.loads(out.read_text())["coverage"]
    assert "codex" in gap.pop("agents")
    assert gap == {"path": "pkg/b/AGENTS.md", "section": None, "why": "no task's cwd (pkg/a) reaches it"}
    printed = capsys.readouterr().out
    assert "### Instruction coverage" in printed and "| codex, " in printed and "| `pkg/b/AGENTS.md` | (whole file) |" in printed
