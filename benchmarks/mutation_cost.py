#!/usr/bin/env python3
"""Cost of a mutation run in agent runs, next to the naive cost (mutants x full paired evaluation).

Runs `mutate` on the example suite with the offline reference agent (the seed patch files,
optionally some operators) and prints measured figures side by side with the naive figure and
the general formula. Usage: python benchmarks/mutation_cost.py [--repeats N] [--operators ...]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from instruction_gate import demo_repo  # noqa: E402
from instruction_gate.cli import main  # noqa: E402


def measure(repeats: int, operators: list[str], max_mutants: int | None) -> dict:
    with tempfile.TemporaryDirectory(prefix="ig-bench-mutate-") as tmp:
        repo = demo_repo.build(Path(tmp) / "repo", demo_repo.resolve_candidate("benign"))
        out = Path(tmp) / "out"
        argv = ["mutate", "--repo", str(repo.path), "--manifest", str(repo.suite / "manifest.json"),
                "--base", repo.base, "--out", str(out), "--adapter", str(repo.suite / "adapters" / "reference"),
                "--repeats", str(repeats), "--jobs", "2", "--operators", *operators]
        if max_mutants:
            argv += ["--max-mutants", str(max_mutants)]
        started = time.monotonic()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            code = main(argv)
        report = json.loads((out / "mutation.json").read_text())
        report["wall_seconds"] = time.monotonic() - started
        report["exit_code"] = code
        return report


def main_cli() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--operators", nargs="*", default=[])
    parser.add_argument("--max-mutants", type=int)
    args = parser.parse_args()
    report = measure(args.repeats, args.operators, args.max_mutants)
    mutants, cost = report["score"]["total"], report["cost"]
    arm = cost["naive_agent_runs"] // (2 * (mutants + 1))  # runs in one arm: tasks x repeats
    print(f"mutation run on the example suite: {mutants} mutant(s) + A/A control, {args.repeats} repeat(s)")
    print(f"  score                     {report['score']['killed']}/{mutants} killed; control {report['control']['status']}")
    print(f"  agent runs (measured)     {cost['agent_runs']:>6}   = base arm once ({arm}) + candidate arm per "
          f"mutant and control ({arm} x {mutants + 1})")
    print(f"  agent runs (naive)        {cost['naive_agent_runs']:>6}   = (mutants + 1) x 2 x {arm}")
    print(f"  saving                    {1 - cost['agent_runs'] / cost['naive_agent_runs']:>6.0%}   "
          f"(tends to 50% as mutants grow: base arm shared)")
    print(f"  wall time                 {report['wall_seconds']:>6.1f} s  (offline reference agent, 2 jobs)")
    return 0 if report["control"]["status"] == "survived" else 1


if __name__ == "__main__":
    raise SystemExit(main_cli())
