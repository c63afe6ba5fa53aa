"""Group-sequential repeats: decide after each round whether more agent runs can change the verdict.

A round is one repeat of every task (one pair per task). After round k of at most K, the
success-rate metric is judged with a *repeated* interval: the same Student t interval with
continuity correction that compare uses (`stats.t_interval`), but at a per-look confidence
taken from an alpha-spending function (Lan-DeMets), so that over all looks together the
chance of a false FAIL stays at the one-sided nominal level. Naively re-checking an ordinary
95 % interval after every round inflates false alarms (about double at three looks).

Stopping rules, checked in this order at round k:
  fail      the repeated interval lies wholly below -bound (a clear regression);
  pass      the repeated interval lies wholly within -bound (clear evidence of no regression);
  exhausted k == K: stop with an inconclusive success-rate verdict;
  futility  the estimate is at least `futility_z` standard errors above -bound: the data show no
            sign of the regression, so further rounds would almost never end in FAIL.
Futility stops are non-binding (the fail boundaries are computed as if the trial always ran
on), which keeps the false-alarm rate at or below nominal whatever the futility rule does.
Information is planned as k / K: every round adds one repeat to every task.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from instruction_gate.verdict.stats import Interval, t_interval

#: Alpha-spending functions: cumulative one-sided alpha spent by information fraction t.
SPENDING: dict[str, Callable[[float, float], float]] = {
    # O'Brien-Fleming type: almost nothing spent early, close to a fixed test at the end.
    "obrien-fleming": lambda alpha, t: 2 * (1 - _normal_cdf(_normal_quantile(1 - alpha / 2) / math.sqrt(t))),
    # Pocock type: spent evenly; stops earlier, pays more at the final look.
    "pocock": lambda alpha, t: alpha * math.log(1 + (math.e - 1) * t),
}

STOP_REASONS = ("fail", "pass", "futility", "exhausted")
_GRID_STEP = 0.01
#: As compare: comparisons against the bound tolerate floating-point noise.
_TOLERANCE = 1e-12
_GRID_TAIL = 9.0


def _normal_cdf(x: float | np.ndarray) -> float | np.ndarray:
    from scipy.special import ndtr  # lazy, as in stats: scipy.stats costs over a second

    return ndtr(x)


def _normal_quantile(p: float) -> float:
    from scipy.special import ndtri

    return float(ndtri(p))


@dataclass(frozen=True)
class Design:
    """The `sequential` block of policy.json, resolved."""

    max_rounds: int  #: never more than this many repeats per task
    boundary: str = "obrien-fleming"  #: alpha-spending function, a key of SPENDING
    alpha: float = 0.025  #: one-sided false-alarm rate, (1 - confidence) / 2
    early_pass: bool = True  #: stop when the repeated interval lies inside the bound
    futility_z: float | None = 0.25  #: stop for futility at this many standard errors above -bound; None: never
    min_rounds: int = 1  #: no stop of any kind before this round


@dataclass(frozen=True)
class Look:
    """The success-rate evidence after one round, and what it means for the next."""

    round: int
    confidence: float  #: two-sided confidence of this look's repeated interval
    interval: Interval | None
    stop: str | None  #: one of STOP_REASONS, or None to run another round
    verdict: str  #: fail | pass | inconclusive (the success-rate verdict if it stopped here)
    reason: str


@functools.lru_cache(maxsize=32)
def fail_boundaries(max_rounds: int, alpha: float, boundary: str,
                    futility: tuple[float | None, ...] | None = None) -> tuple[float, ...]:
    """Standard-normal critical values z_1..z_K of a one-sided group-sequential test.

    Computed by recursive numerical integration of the score process with independent
    increments (Armitage-McPherson-Rowe), solving at each look for the value that spends
    exactly the alpha the spending function allots to it. `futility[k]`, when given, is the
    z value at or below which look k+1 stops without failing (on the regression scale, where
    large z means a regression); the paths it stops are not carried to later looks.
    """
    from scipy.optimize import brentq

    if boundary not in SPENDING:
        raise ValueError(f"unknown boundary {boundary!r}; known: {sorted(SPENDING)}")
    spend = [SPENDING[boundary](alpha, k / max_rounds) for k in range(1, max_rounds + 1)]
    fractions = np.arange(1, max_rounds + 1) / max_rounds
    futility = futility or (None,) * max_rounds
    z = [_normal_quantile(1 - spend[0])]
    # Sub-density of the score S_k = Z_k * sqrt(t_k) on a grid, restricted to paths still running.
    grid, spacing = _grid(fractions[0], futility[0], z[0])
    density = np.exp(-grid ** 2 / (2 * fractions[0])) / math.sqrt(2 * math.pi * fractions[0])
    for k in range(1, max_rounds):
        step = fractions[k] - fractions[k - 1]
        weights = density * spacing
        target = spend[k] - spend[k - 1]

        def crossing(score: float) -> float:
            return float(np.sum(weights * (1 - _normal_cdf((score - grid) / math.sqrt(step))))) - target

        upper = brentq(crossing, grid[0], grid[-1] + _GRID_TAIL * math.sqrt(step) + 10, xtol=1e-10)
        z.append(upper / math.sqrt(fractions[k]))
        new_grid, spacing = _grid(fractions[k], futility[k], z[-1])
        kernel = np.exp(-(new_grid[:, None] - grid[None, :]) ** 2 / (2 * step)) / math.sqrt(2 * math.pi * step)
        grid, density = new_grid, kernel @ weights
    return tuple(z)


def _grid(fraction: float, lower_z: float | None, upper_z: float) -> tuple[np.ndarray, np.ndarray]:
    """Score values between the futility and fail boundaries of one look, with trapezoid weights."""
    root = math.sqrt(fraction)
    lower = -_GRID_TAIL * root if lower_z is None else lower_z * root
    upper = upper_z * root
    points = np.linspace(lower, upper, max(3, int(math.ceil((upper - lower) / _GRID_STEP)) + 1))
    spacing = np.full(len(points), points[1] - points[0])
    spacing[[0, -1]] /= 2
    return points, spacing


def look_confidences(design: Design) -> tuple[float, ...]:
    """Two-sided confidence of the repeated interval at each look (its one-sided tail = nominal level).

    The runner always obeys the futility rule, so the boundaries count on it (binding futility):
    paths stopped for futility cannot fail later, which frees a little alpha for the last look.
    """
    futility = tuple(None if design.futility_z is None or k < design.min_rounds or k == design.max_rounds
                     else -design.futility_z for k in range(1, design.max_rounds + 1))
    z = fail_boundaries(design.max_rounds, design.alpha, design.boundary, futility)
    return tuple(float(1 - 2 * (1 - _normal_cdf(value))) for value in z)


def assess(values: np.ndarray, pairs: int, bound: float, design: Design, round_number: int,
           confidences: tuple[float, ...] | None = None) -> Look:
    """Judge round `round_number` (1-based) from per-task mean deltas (candidate - base).

    `pairs` is the number of valid pairs behind `values`; the continuity correction is half
    the resolution of the estimate, 1 / (2 * pairs), exactly as compare applies it.
    """
    confidences = confidences or look_confidences(design)
    confidence = confidences[round_number - 1]
    values = np.asarray(values, dtype=float)
    interval = t_interval(values, confidence, 0.5 / pairs if pairs else 0.0)
    final = round_number >= design.max_rounds

    def look(stop: str | None, verdict: str, reason: str) -> Look:
        return Look(round_number, confidence, interval, stop, verdict, reason)

    if interval is None:
        return look("exhausted" if final else None, "inconclusive", "no valid pairs")
    # A difference of success rates lies in [-1, 1]; wider ends are shown clipped (decisions use them as is).
    where = f"{confidence:.2%} repeated interval [{max(interval.low, -1.0):+.3f}, {min(interval.high, 1.0):+.3f}]"
    if round_number < design.min_rounds and not final:
        return look(None, "inconclusive", f"{where}; at least {design.min_rounds} rounds before any stop")
    if interval.high < -bound - _TOLERANCE:
        return look("fail", "fail", f"{where} lies below -{bound:g}: a clear regression")
    if interval.low >= -bound - _TOLERANCE and (design.early_pass or final):
        return look("pass", "pass", f"{where} lies within -{bound:g}: no regression beyond the bound")
    if final:
        return look("exhausted", "inconclusive", f"{where} still spans -{bound:g} after the last round")
    if design.futility_z is not None and interval.tasks >= 2 and math.isfinite(interval.spread):
        margin = design.futility_z * interval.spread / math.sqrt(interval.tasks)
        if interval.estimate + bound >= margin:
            return look("futility", "inconclusive",
                        f"estimate {interval.estimate:+.3f} is not below -{bound:g}"
                        + (f" by {design.futility_z:g} standard errors" if design.futility_z else "")
                        + ": no sign of a regression, more rounds would almost never fail")
    return look(None, "inconclusive", f"{where} spans -{bound:g}: running another round")


def design_from_policy(block: dict, confidence: float = 0.95) -> Design:
    """Build a Design from policy.json's `sequential` object (already schema-checked)."""
    futility = block.get("futility_z", Design.futility_z)
    return Design(max_rounds=int(block["max_rounds"]), boundary=block.get("boundary", "obrien-fleming"),
                  alpha=(1 - confidence) / 2, early_pass=bool(block.get("early_pass", True)),
                  futility_z=None if futility is None else float(futility),
                  min_rounds=int(block.get("min_rounds", 1)))
