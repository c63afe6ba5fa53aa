#!/usr/bin/env python3
"""Calibration of the success-rate gate: false alarms and power by simulation.

For 5, 8, 15 and 30 tasks x 1, 3 and 5 repeats it simulates paired binary outcomes (each task
has its own base success probability, drawn uniformly from a range; the candidate's is lower by
the true drop) and counts how often the gate says FAIL (the whole interval below -bound):

  A/A        true drop 0,    bound 0    -> false alarms; nominal 2.5 % (one side of a 95 % interval)
  boundary   true drop 0.1,  bound 0.1  -> false alarms exactly at the bound; nominal 2.5 %
  power      true drop 0.35, bound 0.1  -> detection rate (higher is better)

Methods, side by side:
  chosen      instruction_gate.verdict.stats.t_bounds: t interval over task means + continuity correction
  reference   percentile bootstrap of the mean of task means (the reference design's method)
  boot-t      studentized bootstrap (a contender that was not chosen)
  plain-t     the same t interval without the continuity correction (not chosen)

The reference and bootstrap-t are re-implemented here, vectorized: a bootstrap resample of task
means is a multinomial weight vector, so all resamples of all simulated suites are one matrix
product. A last table checks the chosen method's worst A/A and boundary rates over other
task-difficulty ranges, and the cost-ratio gate's A/A rate on log-normal costs.

Usage: benchmarks/calibration.py [--sims N] [--draws N] [--seed N]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from instruction_gate.verdict.stats import t_bounds  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from figures import record  # noqa: E402

TASKS = (5, 8, 15, 30)
REPEATS = (1, 3, 5)
CONFIDENCE = 0.95
SCENARIOS = {"A/A": (0.0, 0.0), "boundary": (0.1, 0.1), "power": (0.35, 0.1)}  # (true drop, bound)


def simulate(rng, sims: int, tasks: int, repeats: int, drop: float, p_range=(0.15, 0.95)) -> np.ndarray:
    """Per-task mean paired differences, shape (sims, tasks)."""
    base_p = rng.uniform(*p_range, size=(sims, tasks, 1))
    candidate_p = np.clip(base_p - drop, 0.0, 1.0)
    base = rng.random((sims, tasks, repeats)) < base_p
    candidate = rng.random((sims, tasks, repeats)) < candidate_p
    return (candidate.astype(float) - base).mean(axis=2)


def chosen_high(deltas: np.ndarray, repeats: int, corrected: bool = True) -> np.ndarray:
    correction = 1 / (2 * deltas.shape[1] * repeats) if corrected else 0.0
    return np.minimum(t_bounds(deltas, CONFIDENCE, correction)[2], 1.0)


def bootstrap_highs(rng, deltas: np.ndarray, draws: int, chunk: int = 2000) -> tuple[np.ndarray, np.ndarray]:
    """Upper ends of the reference percentile interval and of the studentized bootstrap interval."""
    sims, tasks = deltas.shape
    weights = rng.multinomial(tasks, np.full(tasks, 1 / tasks), size=draws).T / tasks  # (tasks, draws)
    upper_index = int(0.975 * (draws - 1))  # the reference's order statistic
    reference, studentized = np.empty(sims), np.empty(sims)
    mean = deltas.mean(axis=1)
    se = deltas.std(axis=1, ddof=1) / np.sqrt(tasks)
    for start in range(0, sims, chunk):
        block = deltas[start:start + chunk]
        means = block @ weights
        reference[start:start + chunk] = np.partition(means, upper_index, axis=1)[:, upper_index]
        second = (block ** 2) @ weights
        resample_se = np.sqrt(np.maximum(second - means ** 2, 0) * tasks / (tasks - 1) / tasks)
        with np.errstate(divide="ignore", invalid="ignore"):
            t_stats = (means - mean[start:start + chunk, None]) / resample_se
        # 0/0: a resample identical to the mean; x/0: a resample without spread (t is unbounded).
        t_stats = np.nan_to_num(t_stats, nan=0.0, posinf=1e12, neginf=-1e12)
        lower_t = np.quantile(t_stats, 0.025, axis=1)
        studentized[start:start + chunk] = mean[start:start + chunk] - lower_t * se[start:start + chunk]
    return reference, studentized


def main_table(rng, sims: int, draws: int) -> None:
    print(f"Success-rate gate: FAIL rate in % ({sims} simulated suites per cell; bootstrap {draws} draws)")
    print(f"{'tasks':>5} {'reps':>4} | {'A/A: chosen ref boot-t plain-t':>32} |"
          f" {'boundary: chosen ref boot-t plain-t':>37} | {'power: chosen ref boot-t plain-t':>34}")
    worst = {name: 0.0 for name in SCENARIOS}
    for tasks in TASKS:
        for repeats in REPEATS:
            cells = []
            for name, (drop, bound) in SCENARIOS.items():
                deltas = simulate(rng, sims, tasks, repeats, drop)
                reference, studentized = bootstrap_highs(rng, deltas, draws)
                highs = (chosen_high(deltas, repeats), reference, studentized, chosen_high(deltas, repeats, False))
                rates = [100 * np.mean(high < -bound) for high in highs]
                worst[name] = max(worst[name], rates[0])
                cells.append("  ".join(f"{r:6.2f}" for r in rates))
            print(f"{tasks:>5} {repeats:>4} | {cells[0]:>32} | {cells[1]:>37} | {cells[2]:>34}", flush=True)
    print(f"chosen method, worst cell: A/A {worst['A/A']:.2f} %, boundary {worst['boundary']:.2f} % "
          f"(nominal {100 * (1 - CONFIDENCE) / 2:.1f} %)\n")
    record("success-rate gate, worst cell: A/A false alarms", worst["A/A"], "%")


def robustness_table(rng, sims: int) -> None:
    print(f"Chosen method over other task-difficulty ranges: worst cell over {len(TASKS) * len(REPEATS)} cells, % "
          f"({sims} suites per cell)")
    print(f"{'base success range':>20} | {'A/A':>6} | {'boundary':>8}")
    for p_range in ((0.0, 1.0), (0.4, 0.6), (0.8, 1.0), (0.05, 0.3)):
        worst = [0.0, 0.0]
        for tasks in TASKS:
            for repeats in REPEATS:
                for slot, (drop, bound) in enumerate((SCENARIOS["A/A"], SCENARIOS["boundary"])):
                    deltas = simulate(rng, sims, tasks, repeats, drop, p_range)
                    worst[slot] = max(worst[slot], 100 * np.mean(chosen_high(deltas, repeats) < -bound))
        print(f"{str(p_range):>20} | {worst[0]:6.2f} | {worst[1]:8.2f}", flush=True)
    print()


def cost_table(rng, sims: int) -> None:
    """Cost gate A/A: log costs = task effect + run noise (log-normal), bound ratio 1.0."""
    print("Cost-ratio gate (geometric-mean ratio, t interval on task mean log ratios): A/A FAIL rate, %")
    print(f"{'tasks':>5} " + " ".join(f"{f'r={r}':>7}" for r in REPEATS))
    for tasks in TASKS:
        row = []
        for repeats in REPEATS:
            noise = rng.standard_t(3, size=(sims, tasks, repeats, 2)) * 0.4  # heavy-tailed run-to-run noise
            log_ratio = (noise[..., 1] - noise[..., 0]).mean(axis=2)
            low = t_bounds(log_ratio, CONFIDENCE)[1]
            row.append(100 * np.mean(low > 0.0))
        print(f"{tasks:>5} " + " ".join(f"{r:7.2f}" for r in row), flush=True)
    print()


def power_check(rng, sims: int) -> None:
    """The power note's promise: at its 'detectable drop' the gate fails about 80 % of the time."""
    from instruction_gate.verdict.stats import power_note

    print("Power note check: FAIL rate at the drop the note calls detectable with 80 % (bound 0.1), %")
    for tasks, repeats in ((8, 3), (15, 3), (30, 1), (30, 5)):
        drop, p_range = 0.3, (0.35, 0.95)
        for _ in range(4):  # the spread depends on the drop: iterate to a consistent pair
            # Base rates above the drop, so no task is clipped at 0 and the true mean drop is `drop`.
            p_range = (min(drop + 0.05, 0.9), 0.95)
            spread = float(np.sqrt(np.mean(simulate(rng, sims, tasks, repeats, drop, p_range).var(axis=1, ddof=1))))
            drop = power_note(spread, tasks, repeats, 0.1, CONFIDENCE, 0.8, None).detectable_drop or 1.0
        deltas = simulate(rng, sims, tasks, repeats, drop, p_range)
        rate = 100 * np.mean(chosen_high(deltas, repeats) < -0.1)
        print(f"  {tasks} x {repeats}: detectable drop {drop:.2f} -> FAIL rate {rate:.1f}")
    print()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=20000)
    parser.add_argument("--draws", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    main_table(rng, args.sims, args.draws)
    robustness_table(rng, args.sims)
    cost_table(rng, args.sims)
    power_check(rng, args.sims)
    print(f"({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
