#!/usr/bin/env python3
"""Whole-process time of `compare.py` on synthetic results: 1,000 tasks x 5 repeats and 8 x 3.

Each figure is the median of a few runs of a fresh interpreter (imports included), which is
what a CI step pays: wall seconds, and CPU seconds (user + system) of the child, which stay
meaningful on a busy machine. Also prints a bare `python -c pass` as the floor.

Usage: benchmarks/compare_speed.py [--runs N]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from compare_builders import index, run  # noqa: E402


def synthetic_index(tasks: int, repeats: int, seed: int = 1) -> dict:
    rng = random.Random(seed)
    runs = []
    for t in range(tasks):
        p = rng.uniform(0.2, 0.9)
        for r in range(repeats):
            for variant in ("base", "candidate"):
                runs.append(run(f"task-{t:04d}", r, variant, rng.random() < p,
                                wall_seconds=rng.uniform(10, 90), input_tokens=rng.randint(1000, 90000),
                                output_tokens=rng.randint(100, 9000), provider_cost_usd=rng.uniform(0.001, 0.3),
                                tool_calls=rng.randint(0, 60), edited_files=["src/a.py"],
                                checks=[{"argv": ["pytest", "-q"], "exit_code": 0, "timed_out": False,
                                         "duration_seconds": 1.2, "stdout_tail": "1 passed", "stderr_tail": ""}]))
    return index(runs)


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(argv: list[str], runs: int) -> tuple[float, float]:
    """Median (wall, CPU) seconds of `argv` over `runs` fresh processes (the command must not crash)."""
    walls, cpus = [], []
    for _ in range(runs):
        started, cpu_before = time.perf_counter(), _child_cpu()
        done = subprocess.run(argv, capture_output=True, text=True)
        walls.append(time.perf_counter() - started)
        cpus.append(_child_cpu() - cpu_before)
        if done.returncode not in (0, 1):
            raise SystemExit(f"{argv} exited {done.returncode}:\n{done.stderr}")
    return statistics.median(walls), statistics.median(cpus)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    policy = {"soft": {"max_success_rate_drop": 0.1, "max_paired_wall_time_ratio": 1.5,
                       "max_paired_output_token_ratio": 1.5, "max_paired_input_token_ratio": 1.5,
                       "max_paired_provider_cost_ratio": 1.5, "max_paired_tool_call_ratio": 1.5}}
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        (work / "policy.json").write_text(json.dumps(policy))
        floor = timed([sys.executable, "-c", "pass"], args.runs)
        print(f"{'suite':>12} {'runs':>7} {'index MB':>9} {'wall s':>7} {'CPU s':>6}")
        for tasks, repeats in ((1000, 5), (8, 3)):
            out = work / f"{tasks}x{repeats}"
            out.mkdir()
            (out / "index.json").write_text(json.dumps(synthetic_index(tasks, repeats)))
            argv = [sys.executable, str(ROOT / "compare.py"), "--results", str(out / "index.json"),
                    "--policy", str(work / "policy.json"), "--summary", str(out / "summary.md")]
            wall, cpu = timed(argv, args.runs)
            size = (out / "index.json").stat().st_size / 1e6
            print(f"{f'{tasks} x {repeats}':>12} {2 * tasks * repeats:>7} {size:>9.1f} {wall:>7.2f} {cpu:>6.2f}")
        print(f"{'python floor':>12} {'':>7} {'':>9} {floor[0]:>7.2f} {floor[1]:>6.2f}")
        print(f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs while measuring)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
