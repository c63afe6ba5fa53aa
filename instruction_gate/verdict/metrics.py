"""Soft metrics: per-task paired values -> estimate, interval, p-value and verdict.

Success rate gates on the mean per-task difference (candidate - base). Cost metrics gate on the
geometric-mean ratio candidate / base: the mean over tasks of each task's mean log ratio,
back-transformed, so a task that doubles and one that halves cancel out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from instruction_gate.verdict import stats
from instruction_gate.verdict.pairing import Pair

#: Comparisons against a bound tolerate this much floating-point noise.
_TOLERANCE = 1e-12


@dataclass(frozen=True)
class MetricSpec:
    name: str  #: run-record field
    policy_key: str  #: bound in policy.soft
    label: str
    kind: str  #: "difference" (success rate) or "ratio" (cost)
    floor: float = 0.0  #: ratios: values below are raised to this before taking logs (zeros)
    unit: str = ""


METRICS: tuple[MetricSpec, ...] = (
    MetricSpec("resolved", "max_success_rate_drop", "success rate", "difference"),
    MetricSpec("wall_seconds", "max_paired_wall_time_ratio", "wall time", "ratio", 0.01, "s"),
    MetricSpec("input_tokens", "max_paired_input_token_ratio", "input tokens", "ratio", 1.0),
    MetricSpec("output_tokens", "max_paired_output_token_ratio", "output tokens", "ratio", 1.0),
    MetricSpec("provider_cost_usd", "max_paired_provider_cost_ratio", "provider cost", "ratio", 0.0001, "USD"),
    MetricSpec("tool_calls", "max_paired_tool_call_ratio", "tool calls", "ratio", 1.0),
)

PASS, FAIL, INCONCLUSIVE, NOT_GATED = "pass", "fail", "inconclusive", "not_gated"
#: Nothing to measure (rule metrics of a suite that defines no rule): information, never a gate.
NOT_APPLICABLE = "not_applicable"


@dataclass
class MetricResult:
    spec: MetricSpec
    bound: float | None
    pairs: int  #: pairs where both runs report the metric
    tasks: int
    estimate: float | None
    low: float | None  #: None: unbounded
    high: float | None
    spread: float  #: standard deviation of the per-task values (log scale for ratios)
    p_value: float | None
    verdict: str
    info: dict[str, Any] = field(default_factory=dict)  #: ratio of totals, median of ratios


_NUMERIC = (int, float, bool)


def paired_table(pairs: list[Pair], names: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(base, candidate) arrays of shape (pairs, metrics); nan where a run does not report a metric."""
    nan = math.nan
    runs = [run for pair in pairs for run in (pair.base, pair.candidate)]
    table = np.empty((len(runs), len(names)))
    for column, name in enumerate(names):  # column by column: one list per metric, not one per run
        table[:, column] = np.array([value if type(value) in _NUMERIC else nan
                                     for value in [run.get(name) for run in runs]], dtype=float)
    table[~np.isfinite(table)] = nan
    table = table.reshape(len(pairs), 2, len(names))
    return table[:, 0, :], table[:, 1, :]


def task_means(task_index: np.ndarray, values: np.ndarray, task_count: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-task mean of `values` (one per pair), for the tasks that have any, and their mask."""
    counts = np.bincount(task_index, minlength=task_count)
    sums = np.bincount(task_index, weights=values, minlength=task_count)
    present = counts > 0
    return sums[present] / counts[present], present


def _verdict(spec: MetricSpec, bound: float | None, low: float, high: float) -> str:
    if bound is None:
        return NOT_GATED
    if spec.kind == "difference":
        limit = -bound
        if high < limit - _TOLERANCE:
            return FAIL
        return PASS if low >= limit - _TOLERANCE else INCONCLUSIVE
    if low > bound + _TOLERANCE:
        return FAIL
    return PASS if high <= bound + _TOLERANCE else INCONCLUSIVE


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _exp(value: float) -> float:
    """exp that saturates: a sequential look's tiny alpha over two tasks gives t quantiles in the
    thousands, and exp() of such a bound overflows instead of meaning "unbounded"."""
    try:
        return math.exp(value)
    except OverflowError:
        return math.inf


def evaluate_metric(spec: MetricSpec, base: np.ndarray, candidate: np.ndarray, task_index: np.ndarray,
                    task_count: int, bound: float | None, confidence: float,
                    floor: float | None = None) -> tuple[MetricResult, np.ndarray]:
    """One metric from its paired columns; also returns the per-task values (0 where a task has none)."""
    usable = ~(np.isnan(base) | np.isnan(candidate))
    per_task_all = np.zeros(task_count)
    if not usable.any():
        verdict = NOT_GATED if bound is None else INCONCLUSIVE
        return MetricResult(spec, bound, 0, 0, None, None, None, math.nan, None, verdict, {"reason": "no data"}), per_task_all
    base, candidate, index = base[usable], candidate[usable], task_index[usable]
    info: dict[str, Any] = {}
    if spec.kind == "difference":
        values = candidate - base
    else:
        values = np.log(np.maximum(candidate, spec.floor)) - np.log(np.maximum(base, spec.floor))
    per_task, present = task_means(index, values, task_count)
    per_task_all[present] = per_task
    if spec.kind == "difference":
        interval = stats.t_interval(per_task, confidence, correction=1 / (2 * len(base)),
                                    flat_spread=stats.smallest_step_spread(len(base) / len(per_task), len(per_task)))
        estimate, low, high = interval.estimate, max(interval.low, -1.0), min(interval.high, 1.0)
    else:
        interval = stats.t_interval(per_task, confidence)
        estimate, low, high = _exp(interval.estimate), _exp(interval.low), _exp(interval.high)
        base_total = float(base.sum())
        info["ratio_of_totals"] = float(candidate.sum()) / base_total if base_total > 0 else None
        info["median_of_ratios"] = median_of_task_ratios(index, values)
    verdict = _verdict(spec, bound, low, high)
    if verdict != NOT_GATED and (why := _below_noise_floor(spec, base, floor)):
        verdict, info["reason"] = NOT_GATED, why
    result = MetricResult(spec, bound, int(usable.sum()), len(per_task), estimate, _finite(low), _finite(high),
                          interval.spread, None, verdict, info)
    return result, per_task_all


def _below_noise_floor(spec: MetricSpec, base: np.ndarray, floor: float | None) -> str | None:
    """Why a ratio is not judged: the base arm's median is under the policy's noise floor."""
    if spec.kind != "ratio" or floor is None:
        return None
    median = float(np.median(base))
    if median >= floor:
        return None
    unit = f" {spec.unit}" if spec.unit else ""
    return (f"not judged: base runs too short for a ratio (median {median:.3g}{unit} < "
            f"soft.min_base_median.{spec.name} = {floor:g}{unit})")


def median_of_task_ratios(task_index: np.ndarray, log_ratio: np.ndarray) -> float:
    """Median over tasks of each task's median per-repeat ratio, both medians taken on logs."""
    order = np.lexsort((log_ratio, task_index))
    sorted_index, sorted_logs = task_index[order], log_ratio[order]
    starts = np.flatnonzero(np.r_[True, sorted_index[1:] != sorted_index[:-1]])
    ends = np.r_[starts[1:], len(sorted_index)]
    middle_low, middle_high = starts + (ends - starts - 1) // 2, starts + (ends - starts) // 2
    per_task = (sorted_logs[middle_low] + sorted_logs[middle_high]) / 2
    return stats.log_median(per_task)


def task_index(pairs: list[Pair]) -> tuple[np.ndarray, int]:
    """Each pair's task as an integer index (tasks sorted by id), and the number of tasks."""
    tasks = sorted({p.task_id for p in pairs})
    position = {task: i for i, task in enumerate(tasks)}
    return np.fromiter((position[p.task_id] for p in pairs), np.int64, len(pairs)), len(tasks)


def with_p_values(evaluated: list[tuple[MetricResult, np.ndarray]], task_count: int,
                  statistics: dict[str, Any]) -> list[MetricResult]:
    """Attach sign-flip p-values; one batch of sign patterns serves every metric."""
    results = [result for result, _ in evaluated]
    if task_count:
        columns = np.column_stack([per_task for _, per_task in evaluated])
        p_values = stats.sign_flip_p_values(columns, int(statistics["draws"]), int(statistics["seed"]))
        for result, p_value in zip(results, p_values):
            result.p_value = None if result.estimate is None else float(p_value)
    return results


def evaluate_metrics(pairs: list[Pair], soft: dict[str, Any], statistics: dict[str, Any]) -> list[MetricResult]:
    index, count = task_index(pairs)
    base, candidate = paired_table(pairs, [spec.name for spec in METRICS])
    confidence = float(statistics["confidence_level"])
    floors = soft.get("min_base_median") or {}
    evaluated = [evaluate_metric(spec, base[:, i], candidate[:, i], index, count,
                                 soft.get(spec.policy_key), confidence, floors.get(spec.name))
                 for i, spec in enumerate(METRICS)]
    return with_p_values(evaluated, count, statistics)
