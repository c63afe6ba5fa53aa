"""Fixed design vs sequential repeats: false-alarm rate, power and mean agent runs, side by side.

Simulates paired binary outcomes the way the compare calibration does: every task has its own
base success probability; under A/A the candidate has the same one, under a regression every
task's probability drops by the same amount. The fixed design runs all tasks x rounds pairs and
decides once with compare's interval; the sequential mode runs one repeat per task per round
and stops at the first boundary crossing (`instruction_gate.verdict.sequential`).

A false alarm is a FAIL under A/A (the hardest case is the bound 0: A/A then sits exactly on
the boundary). Power is the FAIL rate under a known drop. Runs count both arms.

    python benchmarks/sequential.py [--sims 4000] [--seed 7]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from instruction_gate.verdict import sequential  # noqa: E402

CONFIDENCE = 0.95
#: (tasks, rounds, bound, drops): drops include 0 (A/A) and the drop the fixed design catches ~80 %.
CELLS = [
    (8, 3, 0.0, (0.0, 0.2, 0.3, 0.4)),
    (8, 5, 0.0, (0.0, 0.2, 0.3)),
    (5, 3, 0.0, (0.0, 0.5)),
    (15, 3, 0.0, (0.0, 0.3)),
    (8, 3, 0.1, (0.0, 0.1, 0.5)),
]


def simulate(rng: np.random.Generator, sims: int, tasks: int, rounds: int, drop: float) -> np.ndarray:
    """Paired deltas (candidate - base), shape (sims, tasks, rounds), values in {-1, 0, 1}."""
    base_p = rng.uniform(max(0.1, drop), 0.95, size=(sims, tasks, 1))
    base = rng.random((sims, tasks, rounds)) < base_p
    candidate = rng.random((sims, tasks, rounds)) < base_p - drop
    return candidate.astype(int) - base.astype(int)


#: A one-look design is the fixed design: its interval is compare's 95 % interval and its verdict
#: rule compare's (tests/test_sequential.py checks the two agree on random data).
FIXED = sequential.Design(max_rounds=1, alpha=(1 - CONFIDENCE) / 2)


def fixed_verdict(deltas: np.ndarray, bound: float) -> str:
    """Compare's success-rate verdict on all pairs of one simulated evaluation."""
    return sequential.assess(deltas.mean(axis=1), deltas.size, bound, FIXED, 1).verdict


def sequential_verdict(deltas: np.ndarray, bound: float, design: sequential.Design,
                       confidences: tuple[float, ...]) -> tuple[str, int]:
    """Verdict and rounds used, looking after every round."""
    tasks = deltas.shape[0]
    for k in range(1, design.max_rounds + 1):
        look = sequential.assess(deltas[:, :k].mean(axis=1), tasks * k, bound, design, k, confidences)
        if look.stop:
            return look.verdict, k
    raise AssertionError("the last round always stops")


def run_cell(rng, sims, tasks, rounds, bound, drop, design):
    confidences = sequential.look_confidences(design)
    data = simulate(rng, sims, tasks, rounds, drop)
    fixed = [fixed_verdict(d, bound) for d in data]
    seq = [sequential_verdict(d, bound, design, confidences) for d in data]
    fixed_fail = np.mean([v == "fail" for v in fixed])
    seq_fail = np.mean([v == "fail" for v, _ in seq])
    seq_runs = 2 * tasks * np.mean([k for _, k in seq])
    agree = np.mean([f == v for f, (v, _) in zip(fixed, seq)])
    return fixed_fail, seq_fail, 2 * tasks * rounds, seq_runs, agree


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--boundary", default="obrien-fleming", choices=sorted(sequential.SPENDING))
    parser.add_argument("--futility-z", type=float, default=sequential.Design.futility_z)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    alpha = (1 - CONFIDENCE) / 2
    print(f"fixed design vs sequential ({args.boundary}, futility at z >= {args.futility_z:g}); "
          f"{args.sims} simulated evaluations per row; nominal one-sided false-alarm rate {alpha:.1%}")
    print(f"{'tasks x rounds':>14} {'bound':>5} {'drop':>5} | {'FAIL fixed':>10} {'FAIL seq':>9} {'diff':>6} |"
          f" {'runs fixed':>10} {'runs seq':>8} {'saved':>6} | {'same verdict':>12}")
    started = time.perf_counter()
    for tasks, rounds, bound, drops in CELLS:
        design = sequential.Design(max_rounds=rounds, boundary=args.boundary, alpha=alpha, futility_z=args.futility_z)
        for drop in drops:
            fixed_fail, seq_fail, fixed_runs, seq_runs, agree = run_cell(rng, args.sims, tasks, rounds, bound, drop, design)
            label = "A/A" if drop == 0 else f"{drop:.2f}"
            print(f"{f'{tasks} x {rounds}':>14} {bound:>5.2f} {label:>5} | {fixed_fail:>10.2%} {seq_fail:>9.2%}"
                  f" {100 * (seq_fail - fixed_fail):>+6.1f} | {fixed_runs:>10d} {seq_runs:>8.1f}"
                  f" {1 - seq_runs / fixed_runs:>6.0%} | {agree:>12.1%}")
    print(f"(FAIL under A/A is the false-alarm rate, under a drop the power; 'diff' in points; "
          f"{time.perf_counter() - started:.0f}s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
