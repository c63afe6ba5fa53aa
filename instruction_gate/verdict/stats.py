"""Paired statistics over task clusters: intervals, the sign-flip test, ratios and power.

The unit of analysis is the task: each task contributes one number (the mean of its paired
deltas over repeats), so a task run five times weighs the same as a task run once and the
repeats of one task never pass for independent evidence.

Interval method (chosen by `benchmarks/calibration.py`): a Student t interval on the per-task
values. For the binary success metric it is widened by a continuity correction of half the
estimate's resolution, 1 / (2 * pairs); without it the lattice of possible means pushes the
false-alarm rate above nominal on small suites (8 tasks x 3 repeats: 3.0 % at a nominal 2.5 %).
scipy is imported lazily and only `scipy.special`, because `scipy.stats` costs over a second; at
the default levels the quantiles come from a table scipy wrote (t_table.py) and scipy is not loaded.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from instruction_gate.verdict import t_table

#: Up to this many tasks the sign-flip test enumerates all 2**n sign patterns exactly.
EXACT_SIGN_FLIP_MAX_TASKS = 16
#: Sign patterns evaluated per vectorized block in the Monte Carlo sign-flip test.
_SIGN_FLIP_BLOCK = 2048


def t_quantile(df: float | np.ndarray, probability: float) -> float | np.ndarray:
    tabled = t_table.lookup(df, probability)
    if tabled is not None:  # the default levels: scipy's own values, without importing scipy
        return tabled
    from scipy.special import stdtrit  # lazy: only a run off the table pays for scipy

    return stdtrit(df, probability)


@dataclass(frozen=True)
class Interval:
    """A two-sided interval around the mean of per-task values."""

    estimate: float
    low: float  #: may be -inf when one task leaves the spread unknown
    high: float
    spread: float  #: sample standard deviation of the per-task values (nan below 2 tasks)
    tasks: int


def t_bounds(values: np.ndarray, confidence: float, correction: float | np.ndarray = 0.0,
             flat_spread: float | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Vectorized core of `t_interval` over the rows of a (samples, tasks) array, tasks >= 2.

    Returns (estimate, low, high, spread) per row. Rows whose values are all equal collapse
    onto the estimate (the correction is skipped too: it accounts for the discreteness of a
    sample that varies). With `flat_spread`, only rows of zeros collapse (every pair agreed);
    equal non-zero values say nothing about the spread, so `flat_spread` (a worst case) stands
    in for it: two tasks that happened to drop alike are not a zero-width regression.
    Used as is by the calibration benchmark.
    """
    tasks = values.shape[1]
    estimate = values.mean(axis=1)
    spread = values.std(axis=1, ddof=1)
    flat = spread <= 1e-12 * np.maximum(1.0, np.abs(estimate))
    if flat_spread is not None:
        spread = np.where(flat & (np.abs(estimate) > 1e-12), flat_spread, spread)
        flat = flat & (np.abs(estimate) <= 1e-12)
    half = t_quantile(tasks - 1, 0.5 + confidence / 2) * spread / math.sqrt(tasks) + correction
    half = np.where(flat, 0.0, half)
    return estimate, estimate - half, estimate + half, np.where(flat, 0.0, spread)


def t_interval(values: np.ndarray, confidence: float, correction: float = 0.0,
               flat_spread: float | None = None) -> Interval | None:
    """Student t interval for the mean of `values`, widened by `correction` on each side.

    None without values. One value: the spread is unknown, so the interval is unbounded.
    """
    n = len(values)
    if n == 0:
        return None
    if n == 1:
        return Interval(float(values[0]), -math.inf, math.inf, math.nan, 1)
    estimate, low, high, spread = (float(x[0]) for x in t_bounds(np.asarray(values, float)[None, :], confidence,
                                                                   correction, flat_spread))
    return Interval(estimate, low, high, spread, n)


@dataclass(frozen=True)
class GroupBounds:
    """`t_interval` of many groups at once, one entry per group (numbered 0..groups-1)."""

    estimate: np.ndarray  #: nan for a group without values
    low: np.ndarray  #: -inf for a group of one value (its spread is unknown)
    high: np.ndarray
    counts: np.ndarray  #: values per group (nan values are not counted)


def grouped_t_bounds(groups: np.ndarray, values: np.ndarray, group_count: int, confidence: float) -> GroupBounds:
    """The t interval of each group's values (nan values skipped), equal to `t_interval` group
    by group: groups of the same size go through `t_bounds` as the rows of one array, so a
    thousand tasks over six metrics cost a few array operations, not six thousand calls.
    Within a group, values keep their order (the sums are taken in the same order)."""
    usable = ~np.isnan(values)
    groups, values = groups[usable], values[usable]
    order = np.argsort(groups, kind="stable")
    groups, values = groups[order], values[order]
    counts = np.bincount(groups, minlength=group_count)
    starts = np.cumsum(counts) - counts
    estimate, low, high = (np.full(group_count, math.nan) for _ in range(3))
    single = np.flatnonzero(counts == 1)
    estimate[single], low[single], high[single] = values[starts[single]], -math.inf, math.inf
    for size in np.unique(counts[counts >= 2]).tolist():
        chosen = np.flatnonzero(counts == size)
        rows = values[starts[chosen][:, None] + np.arange(size)]
        estimate[chosen], low[chosen], high[chosen], _ = t_bounds(rows, confidence)
    return GroupBounds(estimate, low, high, counts)


def sign_flip_p_values(columns: np.ndarray, draws: int, seed: int) -> np.ndarray:
    """Two-sided sign-flip permutation p-values, one per column of a (tasks, metrics) array.

    Under "the instructions make no difference" each task's paired value is as likely to have
    either sign, so the observed |sum| is compared with the sums under every sign pattern:
    exact enumeration up to EXACT_SIGN_FLIP_MAX_TASKS tasks, beyond that `draws` seeded random
    patterns shared by all columns (the observed pattern counted once, so p is never 0).
    A task without data for a metric enters as 0, which no sign pattern changes.
    """
    values = np.asarray(columns, dtype=float)
    tasks = values.shape[0]
    magnitudes = np.abs(values)
    observed = np.abs(values.sum(axis=0)) * (1 - 1e-9) - 1e-12  # ties count as extreme
    if tasks <= EXACT_SIGN_FLIP_MAX_TASKS:
        patterns = ((np.arange(2 ** tasks)[:, None] >> np.arange(tasks)) & 1).astype(float)
        sums = 2 * (patterns @ magnitudes) - magnitudes.sum(axis=0)
        return np.mean(np.abs(sums) >= observed, axis=0)
    # A column of zeros (a metric no task has data for) ties under every pattern: its p is 1,
    # and it takes no share of the matrix products (the patterns drawn stay the same).
    moving = magnitudes.any(axis=0)
    p_values = np.ones(values.shape[1])
    if not moving.any():
        return p_values
    magnitudes, observed = magnitudes[:, moving], observed[moving]
    rng = np.random.default_rng(seed)
    extreme = np.zeros(magnitudes.shape[1])
    width = (tasks + 7) // 8
    for done in range(0, draws, _SIGN_FLIP_BLOCK):
        block = min(_SIGN_FLIP_BLOCK, draws - done)
        raw = np.frombuffer(rng.bytes(block * width), dtype=np.uint8).reshape(block, width)
        positive = np.unpackbits(raw, axis=1, count=tasks).astype(float)
        sums = 2 * (positive @ magnitudes) - magnitudes.sum(axis=0)
        extreme += np.count_nonzero(np.abs(sums) >= observed, axis=0)
    p_values[moving] = (extreme + 1) / (draws + 1)
    return p_values


def sign_flip_p_value(values: np.ndarray, draws: int, seed: int) -> float | None:
    """`sign_flip_p_values` for one metric; None without values."""
    if len(values) == 0:
        return None
    return float(sign_flip_p_values(np.asarray(values, float)[:, None], draws, seed)[0])


def log_median(log_values: np.ndarray) -> float:
    """Median on the log scale, back-transformed.

    For an even count the two middle values are averaged as logs (their geometric mean), so
    the median of ratios stays symmetric: ratios 0.5 and 2 give 1, not 1.25.
    """
    return float(np.exp(np.median(log_values)))


@dataclass(frozen=True)
class PowerNote:
    """What this design can detect: the success-rate drop caught with `power` probability."""

    detectable_drop: float | None  #: None when it exceeds the whole scale (no drop is detectable)
    spread: float  #: per-task standard deviation used
    spread_assumed: bool  #: True when the observed spread was zero or unknown (worst case used)
    tasks: int
    repeats: float
    target_drop: float | None
    tasks_needed: int | None  #: tasks (at the same repeats) to detect `target_drop`; None if unreachable
    pairs_needed: int | None


def _detectable_shift(tasks: np.ndarray, spread: float, repeats: float, confidence: float, power: float) -> np.ndarray:
    alpha_quantile = t_quantile(tasks - 1, 0.5 + confidence / 2)
    power_quantile = t_quantile(tasks - 1, power)
    return (alpha_quantile + power_quantile) * spread / np.sqrt(tasks) + 1 / (2 * tasks * repeats)


def smallest_step_spread(repeats: float, tasks: int) -> float:
    """The spread of `tasks` per-task means of which one differs from the rest by the smallest
    step a mean over `repeats` pairs can take (1 / repeats): what equal values could hide.

    Equal non-zero deltas over two or three tasks are not a zero-width regression (with a t
    quantile of 12.7 for two tasks, any spread at all makes the interval wide); over many tasks
    this floor barely widens the interval, so a consistent drop still fails.
    """
    return (1.0 / max(repeats, 1.0)) / math.sqrt(tasks)


def worst_case_spread(repeats: float) -> float:
    """The largest per-task spread a binary outcome allows: two independent coin flips per pair."""
    return math.sqrt(0.5 / max(repeats, 1.0))


def _fewest_tasks(detects: Callable[[int], bool], max_tasks: int) -> int | None:
    """The fewest tasks (2..max_tasks) that detect, or None. The detectable drop shrinks with
    tasks, so `detects` turns true once: doubling from 2 then bisecting the last step finds it
    with the tabled quantiles (t_table.py, no scipy) when it lies within their range; otherwise
    the whole range is bisected."""
    step = 2
    while step <= min(t_table.DEGREES, max_tasks):
        if detects(step):
            low, high = max(2, step // 2 + 1), step
            break
        step *= 2
    else:
        if not detects(max_tasks):
            return None
        low, high = 2, max_tasks
    while low < high:
        middle = (low + high) // 2
        low, high = (low, middle) if detects(middle) else (middle + 1, high)
    return low


def power_note(spread: float, tasks: int, repeats: float, bound: float, confidence: float, power: float,
               target_drop: float | None, max_tasks: int = 100_000) -> PowerNote:
    """Smallest true drop that fails the gate (whole interval beyond `bound`) with `power` probability.

    A normal-theory approximation with the same t quantiles and continuity correction the gate
    uses. When the observed spread is zero or unknown the worst case for a binary outcome is
    assumed: two independent coin flips per pair, variance 0.5 / repeats per task.
    """
    assumed = not (spread > 0 and math.isfinite(spread))
    if assumed:
        spread = worst_case_spread(repeats)
    detectable = None
    if tasks >= 2:
        drop = bound + float(_detectable_shift(np.array([tasks]), spread, repeats, confidence, power)[0])
        detectable = drop if drop <= 1 else None
    tasks_needed = pairs_needed = None

    def detects(n: int) -> bool:
        return bound + float(_detectable_shift(np.array([n], float), spread, repeats, confidence, power)[0]) <= target_drop

    if target_drop is not None and target_drop > bound:
        tasks_needed = _fewest_tasks(detects, max_tasks)
        pairs_needed = None if tasks_needed is None else int(math.ceil(tasks_needed * repeats))
    return PowerNote(detectable, spread, assumed, tasks, repeats, target_drop, tasks_needed, pairs_needed)
