"""Mutation results: the score, the control, the surviving instructions; Markdown and JSON."""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from instruction_gate.errors import EXIT_GATE_FAILURE, EXIT_PASS
from instruction_gate.lint import coverage as coverage_report
from instruction_gate.lint.coverage import Gap
from instruction_gate.mutations.model import Mutant
from instruction_gate.mutations.operators import NOT_APPLICABLE
from instruction_gate.records import RECORD_SCHEMA_VERSION
from instruction_gate.untrusted import INSTRUCTION_CAP_BYTES
from instruction_gate.report import textfmt as fmt

KILLED, SURVIVED, NOT_EVALUATED = "killed", "survived", "not evaluated"
#: A mutant in text no task can reach (impact analysis): not run, and not counted in the score,
#: since no suite of these tasks could have noticed it; a coverage gap, not a surviving rule.
UNREACHABLE = "unreachable"

#: What the suite failed to show when a mutant of each operator survives. Not always "no task
#: depends on this rule": an inserted "Always edit X" next to "Never edit X" is outvoted when
#: prohibitions win, so the rule can still be obeyed and depended on.
SURVIVOR_MEANING = {
    "delete-rule": "no task depends on what was removed",
    "delete-section": "no task depends on what was removed",
    "truncate": "no task depends on what was removed",
    "stale-command": "no task runs that command",
    "contradiction": "no task notices the opposite rule; for a prohibition, the prohibition may simply win",
    "swap-overrides": "no task runs where the override applies",
    "patch": "the suite did not notice the patch",
}


def status_of(exit_code: int) -> str:
    """The gate's exit code on a mutant: failing it kills the mutant."""
    return {EXIT_GATE_FAILURE: KILLED, EXIT_PASS: SURVIVED}.get(exit_code, NOT_EVALUATED)


@dataclass(frozen=True)
class Outcome:
    """What the gate said about one mutant (or the A/A control)."""

    mutant: Mutant | None  #: None for the A/A control
    status: str  #: killed | survived | not evaluated
    headline: str  #: the compare engine's one-line decision
    candidate_sha: str
    results: str  #: directory with the runs, summary.json, summary.md and mutant.diff


@dataclass(frozen=True)
class MutationReport:
    base_sha: str
    control: Outcome
    outcomes: list[Outcome]
    agent_runs: int  #: runs actually executed (base once, candidate per mutant, plus the control)
    naive_agent_runs: int  #: a full paired evaluation per mutant and for the control
    generated: dict[str, int] = field(default_factory=dict)  #: operator -> mutants made, before --max-mutants
    coverage: list[Gap] = field(default_factory=list)  #: instruction text no task can reach, per agent
    tasks: int = 0  #: tasks the coverage was computed for
    oversized: dict[str, int] = field(default_factory=dict)  #: path -> bytes of files too large to mutate

    @property
    def killed(self) -> int:
        return sum(o.status == KILLED for o in self.outcomes)

    @property
    def reachable(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.status != UNREACHABLE]

    @property
    def score(self) -> float | None:
        """Killed among the mutants some task can reach; unreachable ones are counted apart."""
        return self.killed / len(self.reachable) if self.reachable else None


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _link(o: Outcome, out_dir: Path | None, name: str, label: str) -> str:
    """A link from mutation.md (written in `out_dir`) to one file of an outcome's directory."""
    folder = Path(o.results) if out_dir is None else Path(os.path.relpath(o.results, out_dir))
    return f"[{label}]({(folder / name).as_posix()})"


def _files(o: Outcome, out_dir: Path | None) -> str:
    return f"{_link(o, out_dir, 'mutant.diff', 'diff')} · {_link(o, out_dir, 'summary.md', 'summary')}"


def operator_counts(generated: dict[str, int], evaluated: dict[str, int]) -> str:
    """`truncate 2, delete-rule 1 of 4`: mutants per operator that made any, with how many a
    budget kept when it kept fewer."""
    parts = [f"{name} {n}" if evaluated.get(name, 0) == n else f"{name} {evaluated.get(name, 0)} of {n}"
             for name, n in generated.items() if n]
    return ", ".join(parts) or "none"


def not_applicable(generated: dict[str, int]) -> str:
    """The operators that made no mutant, each with what it needs, or "" when all applied."""
    return ", ".join(f"{name} ({NOT_APPLICABLE.get(name, 'produced no mutant')})"
                     for name, n in generated.items() if n == 0)


def markdown(report: MutationReport, out_dir: Path | None = None) -> str:
    """The report; `out_dir` is where it is written, so links to each mutant's files are relative."""
    total, killed = len(report.reachable), report.killed
    score = f"{report.score:.0%}" if report.score is not None else "n/a"
    control_ok = report.control.status == SURVIVED
    unreachable = [o for o in report.outcomes if o.status == UNREACHABLE]
    lines = ["## Mutation testing", "",
             f"Mutation score: **{killed}/{total} killed** ({score}) against base `{report.base_sha[:12]}`"
             + (f"; {len(unreachable)} more in text no task can reach (unreachable, not run, not in the score)."
                if unreachable else "."),
             f"A/A control (candidate identical to base): **{report.control.status}**"
             + (" as it must." if control_ok else " — the gate fails identical instructions; its verdicts are not "
                                                  "trustworthy until this is fixed (see its "
                                                  f"{_link(report.control, out_dir, 'summary.md', 'summary')})."),
             f"Agent runs: {report.agent_runs} (base runs shared by every mutant); naive cost of a full paired "
             f"evaluation per mutant: {report.naive_agent_runs}.",
             "Each mutant's directory keeps `mutant.diff` (the change, base -> mutant) and `summary.md` "
             "(the gate's verdict on it)."]
    if report.generated:
        evaluated = Counter(o.mutant.operator for o in report.outcomes if o.mutant)
        lines.append(f"Mutants per operator: {operator_counts(report.generated, evaluated)}.")
        skipped = not_applicable(report.generated)
        lines += [f"Not applicable here (no mutant): {skipped}."] if skipped else []
    if report.oversized:
        lines.append(f"Not mutated, larger than the {INSTRUCTION_CAP_BYTES // 1024 // 1024} MiB the harness reads "
                     "of one instruction file: " + ", ".join(f"`{_cell(p)}` ({n:,} bytes)"
                                                             for p, n in report.oversized.items()) + ".")
    lines.append("")
    if unreachable:
        lines += ["### Unreachable mutants: no task can see these files", "",
                  "Add a task whose working directory reaches them (README \"Spending fewer runs\").", "",
                  "| mutant | file | change | files |", "|---|---|---|---|"]
        lines += [f"| `{o.mutant.id}` | `{o.mutant.path}` | {_cell(o.mutant.description)} "
                  f"| {_link(o, out_dir, 'mutant.diff', 'diff')} |" for o in unreachable if o.mutant]
        lines.append("")
    survivors = [o for o in report.outcomes if o.status not in (KILLED, UNREACHABLE)]
    if survivors:
        lines += ["### Surviving mutants: the suite did not notice these changes", "",
                  "| mutant | status | change | instruction removed or altered | what surviving means | files |",
                  "|---|---|---|---|---|---|"]
        lines += [f"| `{o.mutant.id}` | {o.status} | {_cell(o.mutant.description)} | {_cell(o.mutant.rule)} "
                  f"| {SURVIVOR_MEANING.get(o.mutant.operator, 'the suite did not notice the change')} "
                  f"| {_files(o, out_dir)} |" for o in survivors if o.mutant]
        lines.append("")
    killed_rows = [o for o in report.outcomes if o.status == KILLED]
    if killed_rows:
        lines += ["<details><summary>Killed mutants</summary>", "", "| mutant | change | gate | files |",
                  "|---|---|---|---|"]
        lines += [f"| `{o.mutant.id}` | {_cell(o.mutant.description)} | {_cell(o.headline)} | {_files(o, out_dir)} |"
                  for o in killed_rows if o.mutant]
        lines += ["", "</details>", ""]
    if report.tasks:
        lines += coverage_report.markdown(report.coverage, report.tasks)
    return fmt.document("\n".join(lines))


def _outcome(o: Outcome) -> dict[str, Any]:
    mutant = o.mutant
    return {"id": mutant.id if mutant else "aa-control", "operator": mutant.operator if mutant else "control",
            "description": mutant.description if mutant else "candidate identical to base",
            "rule": mutant.rule if mutant else None, "path": mutant.path if mutant else None,
            "line": mutant.line if mutant else None, "status": o.status, "headline": o.headline,
            "candidate_sha": o.candidate_sha, "results": o.results}


def to_json(report: MutationReport) -> dict[str, Any]:
    return {"schema_version": RECORD_SCHEMA_VERSION, "kind": "instruction-gate/mutation",
            "base_sha": report.base_sha,
            "score": {"killed": report.killed, "total": len(report.reachable), "ratio": report.score,
                      "survived": sum(o.status == SURVIVED for o in report.outcomes),
                      "unreachable": sum(o.status == UNREACHABLE for o in report.outcomes),
                      "not_evaluated": sum(o.status == NOT_EVALUATED for o in report.outcomes)},
            "control": _outcome(report.control),
            "cost": {"agent_runs": report.agent_runs, "naive_agent_runs": report.naive_agent_runs},
            "generated": report.generated,
            "oversized": [{"path": p, "bytes": n} for p, n in report.oversized.items()],
            "coverage": coverage_report.to_json(report.coverage),
            "mutants": [_outcome(o) for o in report.outcomes]}
