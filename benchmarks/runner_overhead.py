#!/usr/bin/env python3
"""Harness overhead per paired run vs. the floor of one plain `git worktree add` + `remove`.

Builds a repository of --files small files (default 6,000) with a suite of 8 tasks x 3 repeats,
runs the evaluation with a no-op adapter and no checks, and prints, side by side:

  floor        one `git worktree add --detach` + `git worktree remove` of the base commit (median)
  adapter      the no-op adapter run directly (median), multiplied out over all runs
  overhead     (evaluation wall time - adapter time) / pairs, in seconds and in floors

Target: overhead <= 0.5 floor per pair. The evaluation runs twice, in the agent sandbox (bwrap,
the default) and `--unisolated`; their difference per run is the sandbox's cost (target < 0.2 s); then each check's sandbox cost
(benchmarks/check_sandbox_cost.py, target < 0.2 s per check). `--profile` re-runs the evaluation in-process and
tabulates the harness's git calls by subcommand (count, seconds, seconds per pair).
Usage: python benchmarks/runner_overhead.py [--files N] [--tasks N] [--repeats N] [--profile]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from instruction_gate import proc  # noqa: E402

sys.path.insert(0, str(REPO_ROOT / "benchmarks"))
import check_sandbox_cost  # noqa: E402
from figures import record  # noqa: E402

IDENTITY = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@invalid", "GIT_COMMITTER_NAME": "bench",
            "GIT_COMMITTER_EMAIL": "bench@invalid", "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
NOOP_ADAPTER = """#!/bin/sh
cat >/dev/null
echo '{"type":"result","status":"completed","tool_calls":0,"provider_cost_usd":0,"instruction_sources":["AGENTS.md"]}'
"""


def sh(argv: list[str], cwd: Path, stdin: str | None = None) -> proc.ProcResult:
    result = proc.run(argv, cwd, env={**os.environ, **IDENTITY}, stdin=stdin, tail_bytes=None)
    if not result.ok:
        raise SystemExit(f"{' '.join(argv)} failed: {result.stderr or result.start_error}")
    return result


def build_repo(root: Path, files: int, tasks: int, repeats: int) -> tuple[Path, str, str]:
    repo = root / "repo"
    repo.mkdir()
    sh(["git", "init", "-q", "-b", "main"], repo)
    for i in range(files):
        path = repo / "src" / f"pkg{i // 500:02d}" / f"mod{(i // 50) % 10}" / f"file{i:05d}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"VALUE_{i} = {i}\n")
    (repo / "AGENTS.md").write_text("Run the tests before finishing.\n")
    suite = {"schema_version": 1, "repeats": repeats, "instruction_paths": ["AGENTS.md", "**/AGENTS.override.md"],
             "defaults": {"timeout_seconds": 60, "max_tool_calls": None, "check_timeout_seconds": 60},
             "tasks": [{"id": f"task-{t}", "kind": "bug_fix", "prompt_file": f"evals/tasks/task-{t}/prompt.md",
                        "checks": []} for t in range(tasks)]}
    for t in range(tasks):
        prompt = repo / "evals" / "tasks" / f"task-{t}" / "prompt.md"
        prompt.parent.mkdir(parents=True, exist_ok=True)
        prompt.write_text(f"Do task {t}.\n")
    (repo / "evals" / "manifest.json").write_text(json.dumps(suite, indent=2))
    sh(["git", "add", "-A"], repo)
    sh(["git", "commit", "-q", "-m", "base"], repo)
    base = sh(["git", "rev-parse", "HEAD"], repo).stdout.strip()
    (repo / "AGENTS.md").write_text("Run the tests with -q before finishing.\n")
    sh(["git", "commit", "-q", "-am", "candidate"], repo)
    candidate = sh(["git", "rev-parse", "HEAD"], repo).stdout.strip()
    return repo, base, candidate


def floor_seconds(repo: Path, commit: str, root: Path, samples: int) -> list[float]:
    times = []
    for i in range(samples):
        target = root / f"floor-{i}"
        started = time.perf_counter()
        sh(["git", "worktree", "add", "-q", "--detach", str(target), commit], repo)
        sh(["git", "worktree", "remove", "--force", str(target)], repo)
        times.append(time.perf_counter() - started)
    return times


def adapter_seconds(adapter: Path, cwd: Path, samples: int) -> list[float]:
    request = json.dumps({"schema_version": 1, "workspace": str(cwd), "prompt": "x"})
    times = []
    for _ in range(samples):
        started = time.perf_counter()
        sh([str(adapter)], cwd, stdin=request)
        times.append(time.perf_counter() - started)
    return times


def evaluate_argv(repo: Path, base: str, candidate: str, out: Path, adapter: Path, temp: Path) -> list[str]:
    return ["--repo", str(repo), "--manifest", str(repo / "evals" / "manifest.json"), "--base", base,
            "--candidate", candidate, "--out", str(out), "--adapter", str(adapter), "--temp-dir", str(temp)]


def profile_git(argv: list[str], pairs: int) -> None:
    """Run the evaluation in this process and time every harness git call by subcommand."""
    from instruction_gate import cli, git

    spent: dict[str, list[float]] = defaultdict(list)
    slowest: list[tuple[float, str]] = []
    original = git.git

    def timed(*args, **kwargs):
        words = [a for i, a in enumerate(args) if not a.startswith("-") and (i == 0 or args[i - 1] != "-c")]
        name = words[0] if words else "?"
        started = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            spent[name].append(time.perf_counter() - started)
            slowest.append((spent[name][-1], " ".join(a for a in args if len(a) < 60)))

    from instruction_gate.run.workspace import Stage

    build = Stage.build
    build_seconds: list[float] = []

    def timed_build(self, *args, **kwargs):
        started = time.perf_counter()
        try:
            return build(self, *args, **kwargs)
        finally:
            build_seconds.append(time.perf_counter() - started)

    git.git, Stage.build = timed, timed_build
    try:
        started = time.perf_counter()
        code = cli.main(argv, only="evaluate")
        wall = time.perf_counter() - started
    finally:
        git.git, Stage.build = original, build
    total = sum(sum(v) for v in spent.values())
    print(f"\nin-process evaluation: exit {code}, {wall:.2f}s wall, {total:.2f}s in git, "
          f"{sum(build_seconds):.2f}s building input commits and packs (once)")
    print(f"{'git subcommand':<16}{'calls':>7}{'seconds':>10}{'s/pair':>10}")
    for name, values in sorted(spent.items(), key=lambda item: -sum(item[1])):
        print(f"{name:<16}{len(values):>7}{sum(values):>10.3f}{sum(values) / pairs:>10.4f}")
    print("slowest calls:")
    for seconds, command in sorted(slowest, reverse=True)[:8]:
        print(f"  {seconds:8.3f}s  git {command}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=6000)
    parser.add_argument("--tasks", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--samples", type=int, default=5, help="floor and adapter samples (median)")
    parser.add_argument("--profile", action="store_true", help="also tabulate git calls by subcommand")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="runner-overhead-"))
    try:
        repo, base, candidate = build_repo(root, args.files, args.tasks, args.repeats)
        adapter = root / "noop-adapter"
        adapter.write_text(NOOP_ADAPTER)
        adapter.chmod(0o755)
        temp = root / "temp"
        temp.mkdir()
        pairs = args.tasks * args.repeats
        # Floor samples before and after the evaluation: a shared machine's load drifts.
        floors = floor_seconds(repo, base, root, (args.samples + 1) // 2)
        noop = statistics.median(adapter_seconds(adapter, root, max(args.samples, 10)))

        started = time.perf_counter()
        result = proc.run([sys.executable, str(REPO_ROOT / "runner.py"),
                           *evaluate_argv(repo, base, candidate, root / "out", adapter, temp)],
                          repo, env={**os.environ, **IDENTITY}, tail_bytes=4000)
        wall = time.perf_counter() - started
        if result.exit_code != 0:
            print(result.stderr, file=sys.stderr)
            return 1
        started = time.perf_counter()
        sh([sys.executable, str(REPO_ROOT / "runner.py"),
            *evaluate_argv(repo, base, candidate, root / "out-u", adapter, temp), "--unisolated"], repo)
        unisolated = time.perf_counter() - started
        started = time.perf_counter()
        sh([sys.executable, str(REPO_ROOT / "runner.py"),
            *evaluate_argv(repo, base, candidate, root / "out-v", adapter, temp), "--validate-only"], repo)
        fixed = time.perf_counter() - started
        floors += floor_seconds(repo, base, root, args.samples // 2 + 1)
        floor = statistics.median(floors)

        overhead = (wall - 2 * pairs * noop) / pairs
        print(f"repository: {args.files} files; suite: {args.tasks} tasks x {args.repeats} repeats = {pairs} pairs")
        print(f"{'measure':<50}{'seconds':>10}{'floors':>9}")
        rows = [(f"floor: git worktree add + remove (median of {len(floors)})", floor),
                ("no-op adapter, one run (median)", noop),
                ("evaluation wall time, all pairs", wall),
                ("  of which startup + manifest + contract", fixed),
                ("harness overhead per pair", overhead),
                ("  excluding startup + contract", (wall - fixed - 2 * pairs * noop) / pairs)]
        sandbox = (wall - unisolated) / (2 * pairs)
        rows += [("evaluation wall time, --unisolated", unisolated), ("agent sandbox cost per run", sandbox)]
        for label, seconds in rows:
            print(f"{label:<50}{seconds:>10.4f}{seconds / floor:>9.2f}")
        verdict = "meets" if overhead / floor <= 0.5 else "MISSES"
        print(f"target <= 0.50 floors per pair: {verdict} ({overhead / floor:.2f})")
        print(f"target < 0.2 s sandbox cost per run: {'meets' if sandbox < 0.2 else 'MISSES'} ({sandbox:.3f}s)")
        record(f"runner overhead per pair, {args.files} files: floors", overhead / floor, "floors")
        record("agent sandbox cost per run", sandbox, "s")
        print()
        check_sandbox_cost.report(max(args.samples, 10))
        if args.profile:
            shutil.rmtree(root / "out", ignore_errors=True)
            os.environ.update(IDENTITY)
            profile_git(evaluate_argv(repo, base, candidate, root / "out", adapter, temp), pairs)
        return 0
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
