"""Lint results for people: a Markdown summary section and GitHub workflow annotations."""

from __future__ import annotations

from instruction_gate.lint.engine import LintResult
from instruction_gate.lint.model import RULES, Judged
from instruction_gate.report import textfmt as fmt
from instruction_gate.report.github import escape_data, escape_property


def _cell(text: str) -> str:
    """A table cell of a message: its code spans stay, but nothing in it (a file name from the
    pull request) can end the row, open HTML or start a new block."""
    return " ".join(text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;").split())


def _status(judged: Judged) -> str:
    if not judged.new:
        return "already in base"
    return "**new, blocking**" if judged.blocking else "new"


def markdown(result: LintResult) -> str:
    new = [j for j in result.judged if j.new]
    blocking = [j for j in new if j.blocking]
    old = [j for j in result.judged if not j.new]
    verdict = "fails" if result.failed else "passes"
    compared = f"{result.candidate_label} against {result.base_label}" if result.base_label else result.candidate_label
    lines = ["## Instruction lint", "",
             f"Lint {verdict}: {len(new)} new finding(s), {len(blocking)} blocking; "
             f"{len(old)} already in the base; {len(result.resolved)} resolved ({compared}).", ""]
    if result.judged:
        lines += ["| status | rule | where | finding |", "|---|---|---|---|"]
        for j in sorted(result.judged, key=lambda j: (not j.fails_gate, not j.new, j.finding.path, j.finding.line)):
            f = j.finding
            lines.append(f"| {_status(j)} | {f.rule_id} {RULES[f.rule_id].name} | {fmt.code(f'{f.path}:{f.line}', 300)} | "
                         f"{_cell(f.message)} |")
        lines.append("")
    return fmt.document("\n".join(lines))


def annotations(result: LintResult) -> list[str]:
    """`::error`/`::warning` workflow commands for new findings, on their exact file and line."""
    out = []
    for j in result.judged:
        if not j.new:
            continue
        f = j.finding
        level = "error" if j.blocking else "warning"
        title = f"{f.rule_id} {RULES[f.rule_id].name}"
        out.append(f"::{level} file={escape_property(f.path)},line={f.line},col={f.column},"
                   f"title={escape_property(title)}::{escape_data(f.message)}")
    return out
