"""The summary's "Instruction use" section: per skill and lazily loaded file, how many paired runs
of each arm used it (verdict/instruction_use.py)."""

from __future__ import annotations

from instruction_gate.report import textfmt as fmt
from instruction_gate.report.tables import MAX_ROWS, table
from instruction_gate.verdict.comparison import Comparison
from instruction_gate.verdict.instruction_use import KINDS, use_rows


def markdown(c: Comparison) -> list[str]:
    if c.decision.not_evaluated:
        return []
    rows = use_rows(c.pairing.pairs)
    if not rows:  # no skill invoked and no file loaded lazily in any paired run, or no adapter could tell
        return []
    lines = ["### Instruction use", ""]
    changed = [r for r in rows if r.base_used * r.candidate_runs != r.candidate_used * r.base_runs]
    lines += [f"- {r.kind.noun} {fmt.code(r.name, in_table=False)} {r.kind.verb} in {r.candidate_used} of "
              f"{r.candidate_runs} candidate runs, {r.base_used} of {r.base_runs} base runs"
              for r in changed[:MAX_ROWS]] + ([""] if changed else [])
    cells = [[r.kind.noun, fmt.code(r.name), f"{r.base_used}/{r.base_runs}", f"{r.candidate_used}/{r.candidate_runs}"]
             for r in rows]
    lines += table(["kind", "name", "base runs using it", "candidate runs using it"], cells)
    bounds = ", ".join(f"`soft.{k.policy_key}`" for k in KINDS)
    return lines + ["", "From each run's adapter: skills whose body reached the model (`skills_invoked`) and "
                        "instruction files that reached it only after the start (`lazy_instruction_sources`); "
                        f"runs whose adapter cannot tell are not counted. Gated by {bounds} (see Metrics).", ""]
