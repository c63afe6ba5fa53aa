"""Strings from the candidate or the agent never carry raw control characters into a Markdown
report: summary.md, the job summary and the lint section write them out (`\\x1b`)."""

from __future__ import annotations

import re

from compare_builders import compare, outcome_runs, index

from instruction_gate.cli import main
from instruction_gate.report import textfmt

HOSTILE = "ls \x1b]0;pwned\x07\x1b[31mRED\x00\x7f\x9b2J\r"
#: C0 controls other than tab and newline, DEL and C1 controls.
RAW = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def test_every_inline_helper_writes_controls_out():
    for text in (textfmt.clip(HOSTILE), textfmt.md(HOSTILE), textfmt.code(HOSTILE), textfmt.document(HOSTILE)):
        assert not RAW.search(text) and "pwned" in text and "x1b" in text


def test_summary_and_job_summary_of_a_hostile_candidate_have_no_raw_controls(tmp_path, monkeypatch):
    step = tmp_path / "step.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step))
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    runs = outcome_runs({"t1": [(True, False)] * 3, "t2": [(True, True)] * 3})
    for record in runs:
        if record["variant"] == "candidate":
            record.update(forbidden_commands=[HOSTILE], missing_commands=[HOSTILE],
                          hard_failures=["forbidden_command"], failure_reason=HOSTILE)
    code, _, markdown = compare(tmp_path, index(runs), {"hard": {"fail_on_policy_violation": True}})
    assert code == 1 and "pwned" in markdown
    for text in (markdown, step.read_text(encoding="utf-8")):
        assert not RAW.search(text), RAW.findall(text)


def test_lint_markdown_of_a_hostile_file_has_no_raw_controls(tmp_path, capsys):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "AGENTS.md").write_text("# Agents\n\nSee [x](docs/pwned\x1b[31m\x07\x9b.md).\n")
    out = tmp_path / "lint.md"
    main(["lint", "--repo", str(repo), "--markdown", str(out)])
    text = out.read_text(encoding="utf-8")
    assert "pwned" in text and not RAW.search(text)
