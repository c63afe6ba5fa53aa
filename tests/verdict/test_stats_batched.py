"""The batched statistics give exactly what the one-at-a-time ones give: grouped t intervals,
tabled t quantiles, the power note's search, sign-flip p-values with empty metrics."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import stdtrit

from instruction_gate.verdict import stats, t_table


def test_grouped_bounds_equal_one_interval_per_group_bit_for_bit():
    rng = np.random.default_rng(7)
    sizes = [0, 1, 2, 3, 5, 5, 5, 8, 20]  # empty, single, and groups sharing a size
    groups = np.repeat(np.arange(len(sizes)), sizes)
    values = rng.normal(size=len(groups))
    values[groups == 6] = 0.25  # a flat group collapses onto its estimate
    values[[3, 12]] = math.nan  # skipped, and the group's order otherwise kept
    shuffle = rng.permutation(len(groups))  # groups interleaved, as pairs come
    bounds = stats.grouped_t_bounds(groups[shuffle], values[shuffle], len(sizes) + 1, 0.95)
    for group in range(len(sizes) + 1):
        mine = values[shuffle][groups[shuffle] == group]
        expected = stats.t_interval(mine[~np.isnan(mine)], 0.95)
        assert bounds.counts[group] == (0 if expected is None else expected.tasks)
        got = (bounds.estimate[group], bounds.low[group], bounds.high[group])
        if expected is None:
            assert all(math.isnan(x) for x in got)
        else:
            assert got == (expected.estimate, expected.low, expected.high)  # exact, not approx


def test_the_table_holds_scipys_own_quantiles():
    table = t_table._tables()
    assert list(table) == list(t_table.PROBABILITIES)
    degrees = np.arange(1, t_table.DEGREES + 1)
    for probability, quantiles in table.items():
        assert np.array_equal(quantiles, stdtrit(degrees.astype(float), probability))
        assert [stdtrit(int(df), probability) for df in (1, 4, 999, t_table.DEGREES)] == \
            [quantiles[df - 1] for df in (1, 4, 999, t_table.DEGREES)]


@pytest.mark.parametrize("df", [4, np.array([1, 30, 8192]), np.array([9.0])])
def test_tabled_quantiles_are_shaped_as_scipy_returns_them(df):
    tabled = t_table.lookup(df, 0.5 + 0.95 / 2)
    assert np.shape(tabled) == np.shape(stdtrit(df, 0.975)) and np.array_equal(tabled, stdtrit(df, 0.975))


@pytest.mark.parametrize("df, probability", [(8193, 0.975), (2.5, 0.975), (0, 0.975), (5, 0.99),
                                             (np.array([3, 9000]), 0.8)])
def test_untabled_quantiles_come_from_scipy(df, probability):
    assert t_table.lookup(df, probability) is None
    assert np.array_equal(stats.t_quantile(df, probability), stdtrit(df, probability), equal_nan=True)


def _bisected(detects, max_tasks: int) -> int | None:
    """The search over the whole range the power note used before the tabled quantiles."""
    if not detects(max_tasks):
        return None
    low, high = 2, max_tasks
    while low < high:
        middle = (low + high) // 2
        low, high = (low, middle) if detects(middle) else (middle + 1, high)
    return low


@pytest.mark.parametrize("threshold", [1, 2, 3, 4, 5, 100, 1024, 1025, 8192, 8193, 50_000, 100_000, 100_001])
def test_fewest_tasks_finds_what_bisecting_the_whole_range_finds(threshold):
    asked = []

    def detects(n):
        asked.append(n)
        return n >= threshold

    found = stats._fewest_tasks(detects, 100_000)
    if threshold <= t_table.DEGREES:
        assert max(asked) <= t_table.DEGREES  # the tabled quantiles serve the whole search
    assert found == _bisected(detects, 100_000)


@pytest.mark.parametrize("spread, repeats, target", [(0.3, 5, 0.15), (0.05, 3, 0.2), (0.0, 1, 0.3), (0.3, 5, 0.101)])
def test_power_note_sizes_the_suite_as_the_full_search_does(spread, repeats, target):
    note = stats.power_note(spread, 40, repeats, 0.1, 0.95, 0.8, target)
    spread = note.spread

    def detects(n):
        shift = stats._detectable_shift(np.array([n], float), spread, repeats, 0.95, 0.8)
        return 0.1 + float(shift[0]) <= target

    assert note.tasks_needed == _bisected(detects, 100_000)


def test_a_metric_without_data_gets_p_one_and_leaves_the_others_alone():
    rng = np.random.default_rng(3)
    columns = rng.normal(size=(40, 2))
    with_empty = np.column_stack([columns[:, 0], np.zeros(40), columns[:, 1]])
    assert np.array_equal(stats.sign_flip_p_values(with_empty, 2000, 5),
                          np.insert(stats.sign_flip_p_values(columns, 2000, 5), 1, 1.0))
    assert np.array_equal(stats.sign_flip_p_values(np.zeros((40, 2)), 2000, 5), [1.0, 1.0])
