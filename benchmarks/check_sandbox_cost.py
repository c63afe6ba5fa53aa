#!/usr/bin/env python3
"""What the checks' sandbox costs per check: the same check run on the host and in its sandbox.

Each check runs through `CheckSandbox.run`, exactly as an evaluation runs it (a fresh bubblewrap
sandbox per check, PID and network namespaces, the harness read-only), against `--unisolated`
(a plain subprocess). Two checks: `true` (the floor of starting anything) and the harness's own
`python -c pass`. Prints the medians side by side and the sandbox's cost per check
(target < 0.2 s).

Usage: python benchmarks/check_sandbox_cost.py [--samples N]
(benchmarks/runner_overhead.py prints the same figures beside the agent sandbox's.)
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from instruction_gate.run import check_sandbox, sandbox, sandbox_paths  # noqa: E402
from instruction_gate.run.check_sandbox import CheckSandbox  # noqa: E402

CHECKS = {"true": ["true"], "python -c pass": [sys.executable, "-c", "pass"]}


def median_seconds(confinement: CheckSandbox, argv: list[str], workspace: Path, env: dict[str, str],
                   samples: int) -> float:
    home = confinement.home("bench")
    env = confinement.environment(env, home)
    times = []
    for _ in range(samples):
        started = time.perf_counter()
        result = confinement.run(argv, workspace, workspace, env, timeout=60, tail_bytes=4000, home=home)
        times.append(time.perf_counter() - started)
        if result.exit_code != 0:
            raise SystemExit(f"{argv} failed: {result.stderr or result.start_error}")
    return statistics.median(times)


def measure(samples: int) -> list[tuple[str, float, float]]:
    """(check, host median seconds, sandbox median seconds) for each of CHECKS."""
    with tempfile.TemporaryDirectory(prefix="check-sandbox-bench-") as temp:
        root = Path(temp)
        workspace = root / "val"
        workspace.mkdir()
        env = {"PATH": os.environ.get("PATH", os.defpath), "LANG": "C.UTF-8"}
        host = CheckSandbox()
        confined = check_sandbox.for_checks(sandbox.detect(False, "none"), sandbox_paths.harness_paths(), None,
                                            env, root, ())
        return [(name, median_seconds(host, argv, workspace, env, samples),
                 median_seconds(confined, argv, workspace, env, samples)) for name, argv in CHECKS.items()]


def report(samples: int) -> None:
    print(f"checks' sandbox cost per check ({samples} samples each, medians)")
    print(f"{'check':<16} {'host s':>8} {'sandbox s':>10} {'cost s':>8} {'ratio':>6}")
    costs = []
    for name, plain, boxed in measure(samples):
        costs.append(boxed - plain)
        print(f"{name:<16} {plain:>8.4f} {boxed:>10.4f} {boxed - plain:>8.4f} {boxed / plain:>6.1f}")
    print(f"target < 0.2 s sandbox cost per check: {'meets' if max(costs) < 0.2 else 'MISSES'} ({max(costs):.3f}s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=30)
    report(parser.parse_args().samples)


if __name__ == "__main__":
    main()
