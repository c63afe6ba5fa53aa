"""Per-task paired deltas with intervals, for the chart: the success-rate difference and every
gated cost ratio, per task over its repeats, plus the gated estimate over all tasks.

A task's interval is a t interval over its repeats (the same method as the gate's, one level
down); with one repeat it is unknown and only the point is drawn. These per-task intervals
are descriptive: the gate decides on the all-tasks row.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from instruction_gate.verdict import stats
from instruction_gate.verdict.metrics import METRICS, NOT_GATED, MetricResult, paired_table, task_index
from instruction_gate.verdict.pairing import Pair


@dataclass(frozen=True)
class Delta:
    estimate: float
    low: float | None  #: None: unknown (one repeat) or unbounded
    high: float | None


@dataclass(frozen=True)
class Panel:
    """One metric: its per-task deltas and the all-tasks row the gate judged."""

    label: str
    kind: str  #: "difference" (drawn on a linear axis around 0) or "ratio" (log axis around 1)
    tasks: dict[str, Delta]
    overall: Delta | None
    bound: float | None  #: the policy bound, drawn as a line (difference: −bound)
    verdict: str


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _delta(estimate: float, low: float, high: float, kind: str) -> Delta:
    low, high = _finite(low), _finite(high)
    if kind == "difference":
        clip = lambda x: None if x is None else min(max(x, -1.0), 1.0)  # noqa: E731
        return Delta(estimate, clip(low), clip(high))
    exp = lambda x: None if x is None else math.exp(x)  # noqa: E731
    return Delta(math.exp(estimate), exp(low), exp(high))


def panels(pairs: list[Pair], metrics: list[MetricResult], confidence: float) -> list[Panel]:
    """Success rate first, then each gated cost ratio (ungated ones would crowd the chart)."""
    chosen = [m for m in metrics if m.spec in METRICS and (m.spec.kind == "difference" or m.verdict != NOT_GATED)]
    if not pairs or not chosen:
        return []
    base, candidate = paired_table(pairs, [m.spec.name for m in chosen])
    columns = []
    for column, metric in enumerate(chosen):
        spec = metric.spec
        b, c = base[:, column], candidate[:, column]
        columns.append(c - b if spec.kind == "difference" else
                       np.log(np.maximum(c, spec.floor)) - np.log(np.maximum(b, spec.floor)))
    # One interval per (metric, task): every metric's tasks are groups of one batch.
    index, task_count = task_index(pairs)
    groups = (np.arange(len(chosen))[:, None] * task_count + index).ravel()
    bounds = stats.grouped_t_bounds(groups, np.concatenate(columns), len(chosen) * task_count, confidence)
    task_ids = sorted({p.task_id for p in pairs})
    estimate, low, high, counts = (a.tolist() for a in (bounds.estimate, bounds.low, bounds.high, bounds.counts))
    out = []
    for column, metric in enumerate(chosen):
        spec, first = metric.spec, column * task_count
        per_task = {task_id: _delta(estimate[group], low[group], high[group], spec.kind)
                    for group, task_id in enumerate(task_ids, first) if counts[group]}
        overall = None if metric.estimate is None else Delta(metric.estimate, metric.low, metric.high)
        bound = None if metric.bound is None else (-metric.bound if spec.kind == "difference" else metric.bound)
        out.append(Panel(spec.label, spec.kind, per_task, overall, bound, metric.verdict))
    return out
