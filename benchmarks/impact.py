#!/usr/bin/env python3
"""Impact analysis: agent runs per candidate, and the power to catch one broken task.

Part 1 (real code, no agent): for the embedded example suite and for a generated monorepo
(38 instruction files, 31 of them nested; 32 tasks), every candidate that edits one instruction
file is analysed with `suite.impact.analyse` under each discovery mode, and the agent runs a
candidate costs are printed with impact analysis (2 x repeats x affected tasks) and without it
(2 x repeats x all tasks), with the time the analysis itself took.

Part 2 (simulation, like calibration.py): the success-rate gate (t interval over task means
with the continuity correction, FAIL when the whole interval is below -0.1) on N tasks of
which one is broken outright (its candidate never succeeds; base success rates uniform in
0.15-0.95). Judged over all N tasks (impact: run) versus over the k tasks that can see the
change (impact: skip), with the A/A false-alarm rate of each design (nominal 2.5 %).

Usage: benchmarks/impact.py [--sims N] [--repeats N] [--seed N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from instruction_gate import demo_repo  # noqa: E402
from instruction_gate.suite import impact  # noqa: E402
from instruction_gate.suite.exposure import Discovery  # noqa: E402
from instruction_gate.suite.prepare import check_all  # noqa: E402
from instruction_gate.verdict.stats import smallest_step_spread, t_bounds  # noqa: E402

MODES = ("codex", "claude", "both")
BOUND, CONFIDENCE = 0.1, 0.95
_ENV = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@invalid",
        "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@invalid", "GIT_CONFIG_GLOBAL": os.devnull}


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, env=_ENV, check=True, capture_output=True, text=True).stdout.strip()


def _edit_each(repo: Path, base: str, paths: list[str]) -> dict[str, str]:
    """One candidate commit per instruction file, each appending a rule to that file alone."""
    out = {}
    for path in paths:
        _git(repo, "checkout", "-q", "--detach", base)
        target = repo / path
        target.write_text(target.read_text() + "\n- Always run `make check` first.\n")
        _git(repo, "commit", "-q", "-am", f"edit {path}")
        out[path] = _git(repo, "rev-parse", "HEAD")
    return out


def monorepo(root: Path, services: int = 6, packages: int = 4) -> tuple[Path, str, list[str]]:
    """A generated monorepo: root AGENTS.md + CLAUDE.md, per service AGENTS.md + CLAUDE.md, per package AGENTS.md."""
    repo = root / "mono"
    files = {"AGENTS.md": "# Rules\n\n- Run `make test`.\n", "CLAUDE.md": "Shared rules: @AGENTS.md\n"}
    tasks = [{"id": "root-0", "cwd": "."}, {"id": "root-1", "cwd": "."}]
    for s in range(services):
        files[f"services/s{s}/AGENTS.md"] = f"# Service {s}\n\n- Run `make test-s{s}`.\n"
        files[f"services/s{s}/CLAUDE.md"] = f"Service {s}: follow @AGENTS.md\n"
        tasks.append({"id": f"s{s}", "cwd": f"services/s{s}"})
        for p in range(packages):
            files[f"services/s{s}/pkg{p}/AGENTS.md"] = f"# Package {s}.{p}\n\n- Keep `pkg{p}` pure.\n"
            files[f"services/s{s}/pkg{p}/code.py"] = "VALUE = 1\n"
            tasks.append({"id": f"s{s}-p{p}", "cwd": f"services/s{s}/pkg{p}"})
    manifest = {"schema_version": 1, "repeats": 1, "instruction_paths": ["**/AGENTS.md", "**/CLAUDE.md"],
                "tasks": [{**t, "kind": "bug_fix", "prompt_file": f"evals/{t['id']}.md", "checks": [["true"]]}
                          for t in tasks]}
    files.update({f"evals/{t['id']}.md": "Do the task.\n" for t in tasks})
    files["evals/manifest.json"] = json.dumps(manifest)
    for path, text in files.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "base")
    return repo, _git(repo, "rev-parse", "HEAD"), sorted(p for p in files if p.endswith(("AGENTS.md", "CLAUDE.md")))


def runs_table(label: str, repo: Path, manifest: Path, base: str, paths: list[str], repeats: int) -> None:
    candidates = _edit_each(repo, base, paths)
    print(f"{label}: {len(paths)} candidates (one instruction file edited each), {repeats} repeat(s)")
    print(f"  {'discovery':>9} | {'runs without':>12} | {'runs with impact: mean / median / max':>38} | "
          f"{'no task sees it':>15} | {'analysis s':>10}")
    for mode in MODES:
        with_impact, unseen, seconds = [], 0, []
        for sha in candidates.values():
            checked = check_all(repo, manifest, base, sha)
            started = time.perf_counter()
            found = impact.analyse(checked, Discovery(mode))
            seconds.append(time.perf_counter() - started)
            with_impact.append(2 * repeats * len(found.affected))
            unseen += not found.affected
            tasks = len(found.tasks)
        without = 2 * repeats * tasks
        print(f"  {mode:>9} | {without:>12} | {statistics.mean(with_impact):>14.1f} / "
              f"{statistics.median(with_impact):>6.0f} / {max(with_impact):>4} ({statistics.mean(with_impact) / without:>4.0%}) "
              f"| {unseen:>15} | {statistics.mean(seconds):>10.2f}")
    print()


def fail_rate(rng, sims: int, tasks: int, repeats: int, broken: bool) -> tuple[float, float]:
    """FAIL rate in % of the success-rate gate over simulated suites, and the mean estimated
    difference; one task broken outright (its candidate never succeeds) when `broken`."""
    base_p = rng.uniform(0.15, 0.95, size=(sims, tasks, 1))
    cand_p = base_p.copy()
    if broken:
        cand_p[:, 0, :] = 0.0
    base = rng.random((sims, tasks, repeats)) < base_p
    cand = rng.random((sims, tasks, repeats)) < cand_p
    deltas = (cand.astype(float) - base).mean(axis=2)
    if tasks < 2:
        return 0.0, float(deltas.mean())  # one task: the spread is unknown, the interval unbounded
    high = np.minimum(t_bounds(deltas, CONFIDENCE, 1 / (2 * tasks * repeats), smallest_step_spread(repeats, tasks))[2], 1.0)
    return float(np.mean(high < -BOUND)) * 100, float(deltas.mean())


def power_table(rng, sims: int) -> None:
    print(f"One broken task, success-rate gate: FAIL rate in % ({sims} simulated suites per cell; bound {BOUND}; "
          "nominal A/A 2.5 %)")
    print(f"  {'all N':>5} {'affected k':>10} {'reps':>4} | {'mean drop: N':>12} {'k':>6} | {'power: N':>8} "
          f"{'k':>6} | {'A/A: N':>6} {'k':>6}")
    for total, affected in ((9, 8), (9, 2), (32, 8), (32, 5), (32, 3), (32, 2)):
        for repeats in (1, 3, 5):
            (p_all, d_all), (p_k, d_k), (a_all, _), (a_k, _) = (
                fail_rate(rng, sims, n, repeats, broken) for broken in (True, False) for n in (total, affected))
            print(f"  {total:>5} {affected:>10} {repeats:>4} | {-d_all:>12.3f} {-d_k:>6.3f} | {p_all:>8.1f} "
                  f"{p_k:>6.1f} | {a_all:>6.2f} {a_k:>6.2f}", flush=True)
    print()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="ig-bench-impact-") as tmp:
        demo = demo_repo.build(Path(tmp) / "example", demo_repo.resolve_candidate("benign"))
        runs_table("example suite (9 tasks)", demo.path, demo.suite / "manifest.json", demo.base,
                   ["AGENTS.md", "CLAUDE.md", "services/payments/AGENTS.override.md"], args.repeats)
        repo, base, paths = monorepo(Path(tmp))
        runs_table(f"generated monorepo (32 tasks, {len(paths)} instruction files)", repo,
                   repo / "evals" / "manifest.json", base, paths, args.repeats)
    power_table(np.random.default_rng(args.seed), args.sims)
    print(f"({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
