#!/usr/bin/env python3
"""Hard gates with a stochastic agent: false blocks and power for `hard.min_reproductions` 1 vs 2.

A real agent sometimes slips on a rule (skips the test command, say) whatever its instructions.
Each run of each arm slips independently with probability `slip`; under a real regression the
instruction edit breaks the rule for ONE task (the one that depends on it), whose candidate runs
then fail with probability `broken`. Every simulated evaluation goes through
the gate's own hard-gate classification and policy (`instruction_gate.verdict.hardgates.classify`), and
the script prints, per suite size and policy, the share of evaluations blocked:
under A/A (a false block) and under the regression (power).
Usage: python benchmarks/hard_gate_noise.py [--sims N] [--seed S]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from instruction_gate.verdict.hardgates import classify  # noqa: E402
from instruction_gate.verdict.policy import policy_from_dict  # noqa: E402
from instruction_gate.verdict.results import ResultSet  # noqa: E402

CATEGORY = "required_command_missing"


def blocked_share(tasks: int, repeats: int, slip: float, broken: float | None, needed: int,
                  sims: int, rng: np.random.Generator) -> float:
    policy = policy_from_dict({"hard": {"min_reproductions": needed}}, "benchmark")
    probability = np.full((2, tasks, 1), slip)
    if broken is not None:
        probability[1, 0] = broken  # the candidate arm of the one task that depends on the rule
    slips = rng.random((sims, 2, tasks, repeats)) < probability[None]
    blocked = 0
    for sim in range(sims):
        runs = {}
        for arm, variant in enumerate(("base", "candidate")):
            for task in range(tasks):
                for repeat in range(repeats):
                    hard = [CATEGORY] if slips[sim, arm, task, repeat] else []
                    runs[(f"t{task}", repeat, variant)] = {"valid": True, "hard_failures": hard}
        blocked += any(f.blocking for f in classify(ResultSet(runs=runs), policy))
    return blocked / sims


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    print(f"{args.sims} simulated evaluations per cell; share of evaluations the hard gate blocks")
    print(f"{'tasks x repeats':>15} {'slip':>5} {'broken':>6} | {'A/A k=1':>8} {'A/A k=2':>8} | "
          f"{'power k=1':>9} {'power k=2':>9}")
    for tasks, repeats in ((8, 3), (8, 5), (15, 3)):
        for slip, broken in ((0.02, 0.8), (0.05, 0.8), (0.10, 0.8), (0.05, 0.4)):
            cells = [blocked_share(tasks, repeats, slip, None, k, args.sims, rng) for k in (1, 2)]
            cells += [blocked_share(tasks, repeats, slip, broken, k, args.sims, rng) for k in (1, 2)]
            print(f"{f'{tasks} x {repeats}':>15} {slip:>5.2f} {broken:>6.2f} | {cells[0]:>8.1%} {cells[1]:>8.1%} | "
                  f"{cells[2]:>9.1%} {cells[3]:>9.1%}")
    print(f"(regression: one task's candidate runs fail with probability 'broken'; "
          f"{time.perf_counter() - started:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
