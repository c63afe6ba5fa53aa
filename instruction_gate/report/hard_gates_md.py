"""The hard-gate table: one row per (task, failure, status), its repeats counted, not repeated,
with the instruction lines that mention its evidence and where its first pair diverged."""

from __future__ import annotations

from instruction_gate.report import textfmt as fmt
from instruction_gate.report.digest_md import Style, divergence_text, hunk_text
from instruction_gate.report.tables import table
from instruction_gate.verdict.blind_gates import BlindGate, remedy
from instruction_gate.verdict.comparison import Comparison
from instruction_gate.verdict.hardgates import HardFinding


def _blocks(f: HardFinding) -> str:
    if f.below_reproductions:
        return f"no ({f.occurrences} of {f.needed})"
    return "**yes**" if f.blocking else "no"


def rows(c: Comparison) -> list[list[str]]:
    groups: dict[tuple[str, str, str], list[HardFinding]] = {}
    for f in sorted(c.findings, key=lambda f: (not f.blocking, f.status, f.task_id, f.category, f.repeat)):
        groups.setdefault((f.task_id, f.category, f.status), []).append(f)
    pairs_per_task = {t.task_id: t.pairs for t in c.tasks}
    attributed = c.digest.findings if c.digest else {}
    style = Style(markdown=True, in_table=True)
    out = []
    for key, found in groups.items():
        first = found[0]
        evidence = list(dict.fromkeys(f.evidence for f in found if f.evidence))
        row = attributed.get(key)
        hunks, divergence = (row.hunks, row.divergence) if row else ([], None)
        changed = "; ".join(hunk_text(h, style, row.mentioned) for h in hunks[:2]) if row else ""
        declared = f"rule: {fmt.md(row.rule_source, 120)} (base)" if row and row.rule_source else ""
        instruction = "; ".join(part for part in (declared, changed) if part) or "—"
        pairs = pairs_per_task.get(first.task_id)
        repeats = ", ".join(str(f.repeat) for f in found)
        count = f"{len(found)} of {pairs}" if pairs else str(len(found))
        out.append([fmt.md(first.task_id), fmt.code(first.category), first.status, f"{count} ({repeats})",
                    _blocks(first), fmt.md("; ".join(evidence), 160), instruction,
                    divergence_text(divergence, style, with_task=False) or "—"])
    return out


#: Blind gates listed in summary.md; summary.json keeps them all.
MAX_BLIND = 10


def blind_lines(gates: list[BlindGate]) -> list[str]:
    """One warning per gate a task failed in every base run: its pre-existing rows hide a blind spot."""
    lines = [f"- ⚠️ task {fmt.md(g.task_id, 80)}: {fmt.code(g.category, 80, in_table=False)} failed in every "
             f"base run ({g.base_runs} of {g.base_runs}; candidate {g.candidate_runs_failing} of {g.candidate_runs}): "
             f"the suite cannot see a change to what this gate checks; {remedy(g.category)}."
             for g in gates[:MAX_BLIND]]
    if len(gates) > MAX_BLIND:
        lines.append(f"- … and {len(gates) - MAX_BLIND} more in summary.json (`blind_gates`).")
    return lines + ([""] if lines else [])


def markdown(c: Comparison) -> list[str]:
    lines = ["### Hard gates", ""] + blind_lines(c.blind_gates)
    if not c.findings:
        return lines + ["No hard-gate failure in any valid run.", ""]
    lines += table(["task", "failure", "status", "pairs (repeats)", "blocks", "evidence", "instruction",
                    "first divergence"], rows(c))
    policy = c.policy.hard
    note = (f"*new* = fails in the candidate run only; *pre-existing* = fails in both runs of the "
            f"pair (blocking: {str(policy['fail_on_preexisting']).lower()}); *unpaired* = base run "
            f"lost, treated as new; *fixed* = fails in the base run only. *instruction* = the line the suite says "
            f"the gate enforces (`gate_sources`), and changed lines of the candidate's instruction files that "
            f"mention the evidence.")
    if any(f.needed > 1 for f in c.findings):
        note += " *k of n* = a regression blocks once it shows in n repeats of its task (`hard.min_reproductions`)."
    return lines + ["", note, ""]
