#!/usr/bin/env python3
"""Whole-process time of `compare.py` on synthetic results: 1,000 tasks x 5 repeats and 8 x 3.

Each figure is the median of a few runs of a fresh interpreter (imports included), which is
what a CI step pays: wall seconds, and CPU seconds (user + system) of the child, which stay
meaningful on a busy machine. Also prints a bare `python -c pass` as the floor.

Beside ours, on the same data in the same run: the seed design's compare (the reference the
project started from, kept outside the repository as a design document; `--seed-design`). Its
script is cut out of that document at run time into a temporary file, never copied here, and fed
the rows it reads (a JSON list of run records). Without the document (CI) its column is skipped.

Usage: benchmarks/compare_speed.py [--runs N] [--seed-design FILE]
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
sys.path[:0] = [str(ROOT / "tests"), str(Path(__file__).resolve().parent)]

from compare_builders import index, run  # noqa: E402
from figures import record  # noqa: E402

#: Where the seed design document lies on the machines that have it.
SEED_DESIGN = Path("/work/shared/seeds/002_56ed8dbe27662854.txt")
#: Run-record fields the seed design's compare reads.
SEED_FIELDS = ("task_id", "repeat", "variant", "valid", "resolved", "wall_seconds", "output_tokens",
               "provider_cost_usd")
#: Both designs judge the same bounds (the seed design has no input-token or tool-call bound).
POLICY = {"soft": {"max_success_rate_drop": 0.1, "max_paired_wall_time_ratio": 1.5,
                   "max_paired_output_token_ratio": 1.5, "max_paired_input_token_ratio": 1.5,
                   "max_paired_provider_cost_ratio": 1.5, "max_paired_tool_call_ratio": 1.5}}


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


def timed(argv: list[str], runs: int, warm_up: bool = True) -> tuple[float, float]:
    """Median (wall, CPU) seconds of `argv` over `runs` fresh processes (the command must not crash).

    One untimed run first, allowed to write bytecode: with PYTHONDONTWRITEBYTECODE set, every
    module edited since its .pyc was written would be compiled again in every timed run (tens of
    milliseconds), which no CI step pays twice."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if warm_up:
        subprocess.run(argv, capture_output=True, env=env)
    walls, cpus = [], []
    for _ in range(runs):
        started, cpu_before = time.perf_counter(), _child_cpu()
        done = subprocess.run(argv, capture_output=True, text=True, env=env)
        walls.append(time.perf_counter() - started)
        cpus.append(_child_cpu() - cpu_before)
        if done.returncode not in (0, 1):
            raise SystemExit(f"{argv} exited {done.returncode}:\n{done.stderr}")
    return statistics.median(walls), statistics.median(cpus)


def seed_script(document: Path) -> str | None:
    """The seed design's compare.py: the Python block after the policy JSON (from its
    `#!/usr/bin/env python3` line to the end of that block), or None when it is not there."""
    lines = document.read_text(encoding="utf-8").splitlines()
    policy = next((i for i, line in enumerate(lines) if line.strip() == '"soft": {'), None)
    if policy is None:
        return None
    start = next((i for i in range(policy, len(lines)) if lines[i].strip() == "#!/usr/bin/env python3"), None)
    if start is None:
        return None
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("```")), len(lines))
    return "\n".join(lines[start:end]) + "\n"


def seed_inputs(data: dict, folder: Path) -> tuple[Path, Path]:
    """The seed design's inputs for the same results: a list of rows, and its policy (same bounds)."""
    rows = [{name: run_record.get(name) for name in SEED_FIELDS} for run_record in data["runs"]]
    (folder / "seed-rows.json").write_text(json.dumps(rows))
    (folder / "seed-policy.json").write_text(json.dumps({"soft": {**POLICY["soft"], "mode": "warn"}}))
    return folder / "seed-rows.json", folder / "seed-policy.json"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed-design", type=Path, default=SEED_DESIGN,
                        help="the seed design document holding its compare.py (absent: seed column skipped)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        (work / "policy.json").write_text(json.dumps(POLICY))
        seed = seed_script(args.seed_design) if args.seed_design.is_file() else None
        if seed is not None:
            (work / "seed_compare.py").write_text(seed)
        floor = timed([sys.executable, "-c", "pass"], args.runs)
        print(f"{'suite':>12} {'runs':>7} {'index MB':>9} {'wall s':>7} {'CPU s':>6}"
              f" {'seed wall s':>12} {'seed CPU s':>11} {'speed-up (CPU)':>15}")
        for tasks, repeats in ((1000, 5), (8, 3)):
            out = work / f"{tasks}x{repeats}"
            out.mkdir()
            data = synthetic_index(tasks, repeats)
            (out / "index.json").write_text(json.dumps(data))
            argv = [sys.executable, str(ROOT / "compare.py"), "--results", str(out / "index.json"),
                    "--policy", str(work / "policy.json"), "--summary", str(out / "summary.md")]
            wall, cpu = timed(argv, args.runs)
            size = (out / "index.json").stat().st_size / 1e6
            line = f"{f'{tasks} x {repeats}':>12} {2 * tasks * repeats:>7} {size:>9.1f} {wall:>7.2f} {cpu:>6.2f}"
            if seed is not None:
                rows, policy = seed_inputs(data, out)
                seed_wall, seed_cpu = timed([sys.executable, str(work / "seed_compare.py"), "--results", str(rows),
                                             "--policy", str(policy), "--summary", str(out / "seed-summary.json")],
                                            args.runs, warm_up=False)  # one script: nothing to cache
                line += f" {seed_wall:>12.2f} {seed_cpu:>11.2f} {seed_cpu / cpu:>14.1f}x"
                if tasks == 1000:
                    record("compare 1000x5: speed-up over the seed design", seed_cpu / cpu, "x", better="higher")
            print(line)
            if tasks == 1000:
                record("compare 1000x5: CPU seconds", cpu, "s")
                record("compare 1000x5: wall seconds", wall, "s")
            else:
                record("compare 8x3: wall seconds", wall, "s")
        print(f"{'python floor':>12} {'':>7} {'':>9} {floor[0]:>7.2f} {floor[1]:>6.2f}")
        if seed is None:
            print(f"seed design column skipped: {args.seed_design} is not here (it lives outside the repository)")
        print(f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs while measuring)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
