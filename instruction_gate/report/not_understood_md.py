"""The summary's note on the offline tier: tasks whose loaded instruction files hold lines the
reference agent did not understand (each run's `not_understood`, from its result event).

The reference agent acts only on directives it recognises with confidence; what it abstains on
is no evidence either way. A reviewer reading its verdict should know how much of the files it
left unread, per task and arm; `instruction-gate explain` lists the lines.
"""

from __future__ import annotations

from typing import Any

from instruction_gate.report import textfmt as fmt
from instruction_gate.report.tables import MAX_ROWS
from instruction_gate.verdict.comparison import Comparison
from instruction_gate.verdict.pairing import Pair


def _count(run: dict[str, Any]) -> int | None:
    value = run.get("not_understood")
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def block(pairs: list[Pair]) -> list[dict[str, Any]]:
    """Per task with any: the most lines not understood in one paired run of each arm (None: no run reported it)."""
    per_task: dict[str, dict[str, int | None]] = {}
    for pair in pairs:
        counts = per_task.setdefault(pair.task_id, {"base": None, "candidate": None})
        for arm in ("base", "candidate"):
            if (count := _count(getattr(pair, arm))) is not None:
                counts[arm] = max(count, counts[arm] or 0)
    return [{"task_id": task, "base": counts["base"], "candidate": counts["candidate"],
             "sentence": sentence(task, counts["base"], counts["candidate"])}
            for task, counts in sorted(per_task.items()) if (counts["base"] or 0) + (counts["candidate"] or 0) > 0]


def sentence(task: str, base: int | None, candidate: int | None) -> str:
    shown = candidate if candidate is not None else base
    arm = "candidate" if candidate is not None else "base"
    other = f" (base: {base})" if candidate is not None and base is not None and base != candidate else ""
    return f"task {task}: {shown} instruction lines of the {arm} the offline agent did not understand{other}"


def markdown(c: Comparison) -> list[str]:
    rows = block(c.pairing.pairs)
    if c.decision.not_evaluated or not rows:
        return []
    lines = ["### Instruction lines the offline agent did not understand", ""]
    lines += [f"- {fmt.md(r['sentence'], 300)}" for r in rows[:MAX_ROWS]]
    if len(rows) > MAX_ROWS:
        lines.append(f"- … {len(rows) - MAX_ROWS} more tasks (summary.json lists all)")
    return lines + ["", "The reference agent acts only on directives it recognises with confidence; these lines look "
                        "like instructions (an imperative, a requirement word, a command) yet it ignores them, so its "
                        "runs say nothing about them. `instruction-gate explain --cwd <task directory>` lists each with "
                        "its file and line.", ""]
