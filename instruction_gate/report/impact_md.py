"""The summary's "Impact" section: which tasks could see the change and ran, which did not, and why."""

from __future__ import annotations

from instruction_gate.report import textfmt as fmt
from instruction_gate.report.tables import table
from instruction_gate.verdict.comparison import Comparison


def impact_section(c: Comparison) -> list[str]:
    """Which tasks could see the change and were run, which were not, and why."""
    block = c.impact
    if block is None:
        return []
    affected, unaffected = block.get("affected") or [], block.get("unaffected") or []
    repeats = max((h.get("repeats") for h in c.results.headers if isinstance(h.get("repeats"), int)), default=None)
    saved = (f" ({2 * repeats * len(unaffected)} agent runs not spent)"
             if isinstance(repeats, int) and unaffected else "")
    discovery = fmt.md(str(block.get("discovery")))
    lead = (f"No task can see the change ({discovery} discovery): nothing was run{saved}. "
            if not affected else
            f"{len(affected)} of {len(affected) + len(unaffected)} task(s) can see the change ({discovery} "
            f"discovery); only they were run{saved}, and the metrics are over them alone. ")
    lines = ["### Impact", "", lead + "A task not run has identical reachable instruction bytes in both arms.", ""]
    rows = [[fmt.md(t.get("task_id")), fmt.code(str(t.get("cwd"))), "run" if t.get("affected") else "not run",
             fmt.md(t.get("reason"), 200)] for t in block.get("tasks", [])]
    lines += table(["task", "cwd", "ran", "why"], rows)
    unreachable = block.get("unreachable_changes") or []
    if unreachable:
        lines += ["", "Changed files no task can reach (this suite does not test them): "
                  + ", ".join(fmt.code(p) for p in unreachable) + "."]
        if block.get("hint"):
            lines += ["", fmt.md(str(block["hint"]), 600) + "."]
    return lines + [""]
