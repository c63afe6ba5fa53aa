"""A forest plot as a standalone SVG: one row per label (a task, or a commit in a history), one
panel per metric, each row a point with its interval, the gate's bound as a dashed line.

Plain SVG 1.1 with no script, no external font or link, so it renders the same in a browser,
an artifact viewer or an <img>. Every label is XML-escaped: task ids come from the suite, but
nothing here trusts them.
"""

from __future__ import annotations

import math
from typing import Callable

from instruction_gate.verdict.task_deltas import Delta, Panel

ROW, LABEL_WIDTH, PANEL_WIDTH, TOP, PAD = 16, 230, 250, 56, 14
_VERDICT_COLOURS = {"fail": "#cf222e", "pass": "#1a7f37", "inconclusive": "#bf8700"}


def escape(text: str) -> str:
    """Text as XML character data: &, < and > as entities (what xml.sax.saxutils.escape does;
    importing that module pulls in urllib.request and http.client, some 50 ms)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _axis(panel: Panel) -> tuple[float, float, float]:
    """(low, high, reference) in axis units: linear for differences, log2 for ratios."""
    if panel.kind == "difference":
        return -1.0, 1.0, 0.0
    values = [1.0] + ([panel.bound] if panel.bound else [])
    for delta in list(panel.tasks.values()) + ([panel.overall] if panel.overall else []):
        values += [v for v in (delta.estimate, delta.low, delta.high) if v is not None and v > 0]
    logs = [math.log2(min(max(v, 1 / 64), 64)) for v in values]
    span = max(max(logs) - min(logs), 1.0) * 0.08
    return min(logs) - span, max(logs) + span, 0.0


def _scale(panel: Panel, axis: tuple[float, float, float], left: float) -> Callable[[float | None], float | None]:
    """Value -> x in `panel` (None: not drawable): log2 for ratios, clipped to the axis. Built
    once per panel: a thousand tasks make some twenty thousand calls."""
    low, high, _ = axis
    ratio = panel.kind == "ratio"

    def x(value: float | None) -> float | None:
        if value is None:
            return None
        if ratio:
            if value <= 0:
                return None
            value = math.log2(value)
        clipped = min(max(value, low), high)
        return round(left + 10 + (clipped - low) / (high - low) * (PANEL_WIDTH - 20), 1)

    return x


def _x(value: float | None, panel: Panel, axis: tuple[float, float, float], left: float) -> float | None:
    return _scale(panel, axis, left)(value)


def _row(delta: Delta | None, x: Callable[[float | None], float | None], y: float, colour: str, big: bool) -> list[str]:
    if delta is None:
        return []
    out = []
    at, lo, hi = x(delta.estimate), x(delta.low), x(delta.high)
    if lo is not None and hi is not None:
        out.append(f'<line x1="{lo}" y1="{y}" x2="{hi}" y2="{y}" stroke="{colour}" stroke-width="{3 if big else 1.5}"/>')
    if at is not None:
        radius = 5 if big else 3
        out.append(f'<circle cx="{at}" cy="{y}" r="{radius}" fill="{colour}"/>')
    return out


def _tick(value: float, panel: Panel) -> str:
    return f"{value:+.1f}" if panel.kind == "difference" else f"×{value:g}"


_NICE_RATIOS = (1 / 64, 1 / 16, 1 / 8, 0.25, 0.5, 0.67, 0.8, 1.0, 1.25, 1.5, 2.0, 3.0, 4.0, 8.0, 16.0, 64.0)


def _ticks(panel: Panel, axis: tuple[float, float, float], left: float) -> list[float]:
    """Tick values inside the axis, at least 34 px apart (1 and 0 always kept)."""
    if panel.kind == "difference":
        return [-1.0, -0.5, 0.0, 0.5, 1.0]
    inside = [v for v in _NICE_RATIOS if axis[0] <= math.log2(v) <= axis[1]]
    kept: list[float] = []
    for value in sorted(inside, key=lambda v: (v != 1.0, abs(math.log2(v)))):
        x = _x(value, panel, axis, left)
        if all(abs(x - _x(k, panel, axis, left)) >= 34 for k in kept):
            kept.append(value)
    return sorted(kept)


def forest(title: str, rows: list[str], panels: list[Panel], overall_label: str = "all tasks (gated)") -> str:
    """The SVG document; `rows` in drawing order, each a key of the panels' `tasks`."""
    height = TOP + ROW * (len(rows) + 2) + 30
    width = LABEL_WIDTH + PANEL_WIDTH * len(panels) + PAD
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
           f'<text x="{PAD}" y="20" font-size="14" font-weight="bold">{escape(title)}</text>']
    for y_index, label in enumerate(rows):
        y = TOP + ROW * y_index + ROW / 2
        if y_index % 2 == 0:
            out.append(f'<rect x="0" y="{y - ROW / 2}" width="{width}" height="{ROW}" fill="#f6f8fa"/>')
        short = label if len(label) <= 34 else label[:33] + "…"
        out.append(f'<text x="{PAD}" y="{y + 4}">{escape(short)}</text>')
    overall_y = TOP + ROW * (len(rows) + 0.5) + ROW / 2
    out.append(f'<text x="{PAD}" y="{overall_y + 4}" font-weight="bold">{escape(overall_label)}</text>')
    for index, panel in enumerate(panels):
        left = LABEL_WIDTH + PANEL_WIDTH * index
        axis = _axis(panel)
        bottom = overall_y + ROW
        ref = _x(0.0 if panel.kind == "difference" else 1.0, panel, axis, left)
        out.append(f'<text x="{left + PANEL_WIDTH / 2}" y="{TOP - 22}" text-anchor="middle" font-weight="bold">'
                   f'{escape(panel.label)} {"Δ" if panel.kind == "difference" else "ratio"}</text>')
        out.append(f'<line x1="{ref}" y1="{TOP - 8}" x2="{ref}" y2="{bottom}" stroke="#8c959f"/>')
        for tick in _ticks(panel, axis, left):
            tx = _x(tick, panel, axis, left)
            out.append(f'<text x="{tx}" y="{TOP - 8}" text-anchor="middle" fill="#57606a">{_tick(tick, panel)}</text>')
        if panel.bound is not None:
            bx = _x(panel.bound, panel, axis, left)
            out.append(f'<line x1="{bx}" y1="{TOP - 4}" x2="{bx}" y2="{bottom}" stroke="#cf222e" '
                       f'stroke-dasharray="4 3"><title>bound {panel.bound:g}</title></line>')
        x, tasks = _scale(panel, axis, left), panel.tasks
        for y_index, label in enumerate(rows):
            out += _row(tasks.get(label), x, TOP + ROW * y_index + ROW / 2, "#0969da", False)
        out += _row(panel.overall, x, overall_y, _VERDICT_COLOURS.get(panel.verdict, "#57606a"), True)
    legend_y = height - 12
    out.append(f'<text x="{PAD}" y="{legend_y}" fill="#57606a">Dots: per-task paired delta over its repeats, '
               f'line: its interval (none with one repeat). Bold row: what the gate judged. Dashed: policy bound.</text>')
    return "\n".join(out + ["</svg>"]) + "\n"
