"""The chart's place in summary.md: a link to the SVG artifact, and an inline Mermaid bar chart.

GitHub's job summary renders Mermaid code blocks but strips `data:` image URIs, and an artifact
is a zip behind a login, so the SVG (with intervals) cannot be shown inline there; it is linked,
and resolves where summary.md is read next to it (the downloaded artifact, a checkout). The
inline Mermaid `xychart-beta` has no interval marks: it shows the per-task success deltas only,
for the tasks that lost the most.
"""

from __future__ import annotations

import re

from instruction_gate.report import chart_svg
from instruction_gate.verdict.comparison import Comparison
from instruction_gate.verdict.task_deltas import panels

#: Tasks shown in the inline Mermaid chart (the worst ones); the SVG has every task.
MERMAID_TASKS = 25
_UNSAFE = re.compile(r"[^A-Za-z0-9._/-]")


def svg(c: Comparison) -> str | None:
    """The per-task chart, or None when there is nothing to draw."""
    drawn = panels(c.pairing.pairs, c.metrics, c.policy.confidence)
    if not drawn:
        return None
    success = drawn[0].tasks
    rows = sorted({t for p in drawn for t in p.tasks}, key=lambda t: (success[t].estimate if t in success else 0, t))
    level = f"{c.policy.confidence:.0%}"
    return chart_svg.forest(f"Per-task paired deltas, candidate vs base ({level} intervals)", rows, drawn)


def markdown(c: Comparison, chart_name: str | None, link: bool = True) -> list[str]:
    """The chart line (a relative link only where one resolves: not in the job summary) and the
    inline Mermaid chart."""
    if chart_name is None:
        return []
    target = f"[{chart_name}]({chart_name})" if link else f"`{chart_name}`"
    lines = [f"Chart: per-task paired deltas with intervals, success rate and the gated cost ratios: {target} "
             "(next to summary.md in the summary artifact).", ""]
    worst = sorted((t for t in c.tasks if t.pairs), key=lambda t: (t.delta, t.task_id))[:MERMAID_TASKS]
    if not worst or all(t.delta == 0 for t in worst):
        return lines
    names = ", ".join(f'"{_UNSAFE.sub("_", t.task_id)[:24]}"' for t in worst)
    values = ", ".join(f"{t.delta:.2f}" for t in worst)
    shown = f"the {len(worst)} tasks that lost the most" if len(c.tasks) > len(worst) else "every task"
    return lines + ["```mermaid", "xychart-beta", f'  title "Success rate Δ per task ({shown})"',
                    f"  x-axis [{names}]", '  y-axis "candidate − base" -1 --> 1', f"  bar [{values}]", "```", ""]
