"""Statistics with known answers: t intervals, the sign-flip test, log medians, power."""

import math

import numpy as np
import pytest

from instruction_gate.verdict import stats


def test_t_interval_matches_textbook_values():
    values = np.array([-1, -1, -0.5, -1, -0.5, -1])
    interval = stats.t_interval(values, 0.95, correction=0.05)
    half = 2.570581836 * np.std(values, ddof=1) / math.sqrt(6) + 0.05
    assert interval.estimate == pytest.approx(-5 / 6)
    assert interval.low == pytest.approx(-5 / 6 - half)
    assert interval.high == pytest.approx(-5 / 6 + half)
    assert interval.tasks == 6


def test_zero_spread_collapses_to_the_estimate_without_correction():
    interval = stats.t_interval(np.zeros(5), 0.95, correction=0.1)
    assert (interval.low, interval.estimate, interval.high, interval.spread) == (0.0, 0.0, 0.0, 0.0)


def test_single_task_leaves_the_interval_unbounded():
    interval = stats.t_interval(np.array([-0.5]), 0.95)
    assert interval.estimate == -0.5 and interval.low == -math.inf and interval.high == math.inf


def test_no_values_give_no_interval():
    assert stats.t_interval(np.array([]), 0.95) is None


def test_sign_flip_exact_enumeration():
    # All five tasks negative: only the all-negative and all-positive patterns are as extreme.
    assert stats.sign_flip_p_value(np.array([-1.0] * 5), 1000, 0) == pytest.approx(2 / 32)
    # Zeros carry no sign; symmetric data is not evidence at all.
    assert stats.sign_flip_p_value(np.array([0.0, 0.0, 0.0]), 1000, 0) == 1.0
    assert stats.sign_flip_p_value(np.array([1.0, -1.0, 0.0]), 1000, 0) == 1.0


def test_sign_flip_monte_carlo_is_seeded_and_never_zero():
    values = np.full(40, -0.5)
    first = stats.sign_flip_p_value(values, 5000, seed=7)
    assert first == stats.sign_flip_p_value(values, 5000, seed=7)
    assert first == pytest.approx(1 / 5001)
    noisy = np.random.default_rng(1).normal(size=40)
    p = stats.sign_flip_p_value(noisy, 5000, seed=7)
    assert 0.05 < p <= 1


def test_log_median_averages_the_middle_pair_on_the_log_scale():
    assert stats.log_median(np.log([0.5, 2.0])) == pytest.approx(1.0)
    assert stats.log_median(np.log([1.0, 2.0, 8.0])) == pytest.approx(2.0)


def test_power_note_shrinks_with_more_tasks_and_sizes_the_suite():
    small = stats.power_note(0.3, 8, 3, 0.0, 0.95, 0.8, 0.1)
    large = stats.power_note(0.3, 30, 3, 0.0, 0.95, 0.8, 0.1)
    assert large.detectable_drop < small.detectable_drop
    assert small.tasks_needed > 8 and small.pairs_needed == small.tasks_needed * 3
    # At the needed size, the same formula says the target is detectable.
    sized = stats.power_note(0.3, small.tasks_needed, 3, 0.0, 0.95, 0.8, None)
    assert sized.detectable_drop <= 0.1 < stats.power_note(0.3, small.tasks_needed - 1, 3, 0.0, 0.95, 0.8, None).detectable_drop


def test_power_note_assumes_worst_case_spread_when_observed_is_zero():
    note = stats.power_note(0.0, 10, 2, 0.1, 0.95, 0.8, 0.05)
    assert note.spread_assumed and note.spread == pytest.approx(0.5)
    assert note.tasks_needed is None  # a target inside the bound can never fail the gate


def test_a_ratio_interval_too_wide_for_exp_is_unbounded_not_a_crash():
    import numpy as np

    from instruction_gate.verdict.metrics import METRICS, evaluate_metric

    wall = next(spec for spec in METRICS if spec.name == "wall_seconds")
    base, candidate = np.array([1.0, 1.0]), np.array([1e-2, 1e300])
    result, _ = evaluate_metric(wall, base, candidate, np.array([0, 1]), 2, 1.5, 0.999999)
    assert result.high is None and result.verdict == "inconclusive"


def test_equal_nonzero_values_get_the_smallest_step_spread_and_zeros_stay_zero_width():
    import numpy as np

    def bounds(values, floor=0.25):
        return [float(x[0]) for x in stats.t_bounds(np.array([values]), 0.95, 0.0, flat_spread=floor)]

    _, low, high, spread = bounds([0.0, 0.0])
    assert low == high == spread == 0.0  # every pair agreed: PASS stays possible for a deterministic agent
    _, low, high, spread = bounds([-1 / 3, -1 / 3])
    assert spread == 0.25 and high > 0.5  # two tasks that dropped alike: no evidence beyond the bound
    _, low, high, spread = bounds([-1.0] * 8)
    assert spread == 0.25 and high < -0.5  # eight tasks that all dropped: still a clear regression
    assert stats.smallest_step_spread(3, 2) == (1 / 3) / 2 ** 0.5
    legacy = bounds([-1 / 3, -1 / 3], None)  # without the floor (calibration benchmark): collapses
    assert legacy[1] == legacy[2] == -1 / 3
