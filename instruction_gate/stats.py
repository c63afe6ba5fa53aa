"""Paired statistics over task clusters: intervals, the sign-flip test, ratios and power.

The unit of analysis is the task: each task contributes one number (the mean of its paired
deltas over repeats), so a task run five times weighs the same as a task run once and the
repeats of one task never pass for independent evidence.

Interval method (chosen by `benchmarks/calibration.py`): a Student t interval on the per-task
values. For the binary success metric it is widened by a continuity correction of half the
estimate's resolution, 1 / (2 * pairs); without it the lattice of possible means pushes the
false-alarm rate above nominal on small suites (8 tasks x 3 repeats: 3.0 % at a nominal 2.5 %).
scipy is imported lazily and only `scipy.special`, because `scipy.stats` costs over a second.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: Up to this many tasks the sign-flip test enumerates all 2**n sign patterns exactly.
EXACT_SIGN_FLIP_MAX_TASKS = 16
#: Sign patterns evaluated per vectorized block in the Monte Carlo sign-flip test.
_SIGN_FLIP_BLOCK = 2048


def t_quantile(df: float | np.ndarray, probability: float) -> float | np.ndarray:
    from scipy.special import stdtrit  # lazy: only compare pays for scipy

    return stdtrit(df, probability)


@dataclass(frozen=True)
class Interval:
    """A two-sided interval around the mean of per-task values."""

    estimate: float
    low: float  #: may be -inf when one task leaves the spread unknown
    high: float
    spread: float  #: sample standard deviation of the per-task values (nan below 2 tasks)
    tasks: int


def t_interval(values: np.ndarray, confidence: float, correction: float = 0.0) -> Interval | None:
    """Student t interval for the mean of `values`, widened by `correction` on each side.

    None without values. One value: the spread is unknown, so the interval is unbounded.
    All values equal: the spread is zero and the interval collapses onto the estimate
    (the correction is skipped too: it accounts for discreteness of a varying sample).
    """
    n = len(values)
    if n == 0:
        return None
    estimate = float(np.mean(values))
    if n == 1:
        return Interval(estimate, -math.inf, math.inf, math.nan, 1)
    spread = float(np.std(values, ddof=1))
    if spread <= 1e-12 * max(1.0, abs(estimate)):
        return Interval(estimate, estimate, estimate, 0.0, n)
    half = float(t_quantile(n - 1, 0.5 + confidence / 2)) * spread / math.sqrt(n) + correction
    return Interval(estimate, estimate - half, estimate + half, spread, n)


def sign_flip_p_value(values: np.ndarray, draws: int, seed: int) -> float | None:
    """Two-sided p-value of the paired sign-flip permutation test on the per-task values.

    Under "instructions make no difference" each task's value is as likely to have either sign,
    so the observed |sum| is compared with the sums over sign patterns. Exact enumeration up to
    EXACT_SIGN_FLIP_MAX_TASKS tasks; beyond that `draws` seeded random patterns (the observed
    pattern counted once, so p is never 0).
    """
    magnitudes = np.abs(np.asarray(values, dtype=float))
    magnitudes = magnitudes[magnitudes > 0]  # zeros are sign-invariant
    if len(values) == 0:
        return None
    if len(magnitudes) == 0:
        return 1.0
    observed = abs(float(np.sum(values))) * (1 - 1e-9)
    total = float(magnitudes.sum())
    n = len(magnitudes)
    if n <= EXACT_SIGN_FLIP_MAX_TASKS:
        patterns = (np.arange(2 ** n)[:, None] >> np.arange(n)) & 1
        sums = 2 * (patterns @ magnitudes) - total
        return float(np.mean(np.abs(sums) >= observed))
    rng = np.random.default_rng(seed)
    extreme, done = 0, 0
    while done < draws:
        block = min(_SIGN_FLIP_BLOCK, draws - done)
        positive = rng.random((block, n)) < 0.5
        sums = 2 * (positive @ magnitudes) - total
        extreme += int(np.count_nonzero(np.abs(sums) >= observed))
        done += block
    return (extreme + 1) / (draws + 1)


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


def power_note(spread: float, tasks: int, repeats: float, bound: float, confidence: float, power: float,
               target_drop: float | None, max_tasks: int = 100_000) -> PowerNote:
    """Smallest true drop that fails the gate (whole interval beyond `bound`) with `power` probability.

    A normal-theory approximation with the same t quantiles and continuity correction the gate
    uses. When the observed spread is zero or unknown the worst case for a binary outcome is
    assumed: two independent coin flips per pair, variance 0.5 / repeats per task.
    """
    assumed = not (spread > 0 and math.isfinite(spread))
    if assumed:
        spread = math.sqrt(0.5 / max(repeats, 1.0))
    detectable = None
    if tasks >= 2:
        drop = bound + float(_detectable_shift(np.array([tasks]), spread, repeats, confidence, power)[0])
        detectable = drop if drop <= 1 else None
    tasks_needed = pairs_needed = None
    if target_drop is not None and target_drop > bound:
        candidates = np.arange(2, max_tasks + 1, dtype=float)
        reachable = np.nonzero(bound + _detectable_shift(candidates, spread, repeats, confidence, power) <= target_drop)[0]
        if len(reachable):
            tasks_needed = int(candidates[reachable[0]])
            pairs_needed = int(math.ceil(tasks_needed * repeats))
    return PowerNote(detectable, spread, assumed, tasks, repeats, target_drop, tasks_needed, pairs_needed)
