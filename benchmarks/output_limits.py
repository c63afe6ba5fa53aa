#!/usr/bin/env python3
"""What a run keeps of an adapter that prints more events than the policy allows, and what it costs.

Builds a one-task suite, runs an evaluation (one pair) with an adapter printing --mib MiB of
events (lines of --line-bytes bytes, a tool call and a message alternately), and prints:

  peak tree RSS   the runner and every process under it, summed, sampled every 20 ms (MiB)
  runner max RSS  the runner process's own high-water mark (ru_maxrss, MiB)
  per run dir     bytes of run.json, events.jsonl, patch.diff of each run, and the total
  limit           the documented bound of a run directory (limits.OutputLimits.run_dir_bytes)

Usage: python benchmarks/output_limits.py [--mib 30] [--line-bytes 200] [--unisolated]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from instruction_gate.run.limits import MIB, OutputLimits  # noqa: E402

IDENTITY = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@invalid", "GIT_COMMITTER_NAME": "bench",
            "GIT_COMMITTER_EMAIL": "bench@invalid", "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
ADAPTER = """#!{python}
import json, sys
sys.stdin.read()
size, total = {line_bytes}, {total}
call = {{"type": "tool_call", "name": "shell", "input": {{"command": "x" * max(1, size - 70)}}}}
message = {{"type": "message", "role": "assistant", "text": "y" * max(1, size - 50)}}
written = 0
while written < total:
    line = json.dumps(call if written % 2 == 0 else message) + "\\n"
    sys.stdout.write(line)
    written += len(line)
print(json.dumps({{"type": "result", "status": "completed", "tool_calls": 1, "instruction_sources": ["AGENTS.md"]}}))
"""


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True,
                          env={**os.environ, **IDENTITY}).stdout.strip()


def build_repo(root: Path) -> tuple[Path, str, str]:
    repo = root / "repo"
    (repo / "evals" / "tasks" / "t1").mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    (repo / "AGENTS.md").write_text("Run the tests.\n")
    (repo / "evals" / "tasks" / "t1" / "prompt.md").write_text("Do it.\n")
    suite = {"schema_version": 1, "repeats": 1, "instruction_paths": ["AGENTS.md"],
             "defaults": {"timeout_seconds": 300, "max_tool_calls": None, "check_timeout_seconds": 60},
             "tasks": [{"id": "t1", "kind": "bug_fix", "prompt_file": "evals/tasks/t1/prompt.md", "checks": []}]}
    (repo / "evals" / "manifest.json").write_text(json.dumps(suite))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    base = git(repo, "rev-parse", "HEAD")
    (repo / "AGENTS.md").write_text("Run the tests with -q.\n")
    git(repo, "commit", "-q", "-am", "candidate")
    return repo, base, git(repo, "rev-parse", "HEAD")


def tree_rss(pid: int) -> int:
    """Resident bytes of `pid` and all its descendants."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            rss[int(entry.name)] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
            children.setdefault(int(fields[1]), []).append(int(entry.name))
        except (OSError, IndexError, ValueError):
            continue
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        total += rss.get(current, 0)
        todo += children.get(current, [])
    return total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=float, default=30.0, help="MiB of events the adapter prints per run")
    parser.add_argument("--line-bytes", type=int, default=200, help="bytes per event line")
    parser.add_argument("--unisolated", action="store_true", help="run without the agent sandbox")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="output-limits-"))
    repo, base, candidate = build_repo(root)
    adapter = root / "adapter"
    adapter.write_text(ADAPTER.format(python=sys.executable, line_bytes=args.line_bytes, total=int(args.mib * MIB)))
    adapter.chmod(0o755)
    out, temp = root / "out", root / "temp"
    temp.mkdir()
    argv = [sys.executable, str(REPO_ROOT / "runner.py"), "--repo", str(repo), "--manifest",
            str(repo / "evals" / "manifest.json"), "--base", base, "--candidate", candidate, "--out", str(out),
            "--adapter", str(adapter), "--temp-dir", str(temp), *(["--unisolated"] if args.unisolated else [])]
    started = time.perf_counter()
    runner = subprocess.Popen(argv, cwd=repo, env={**os.environ, **IDENTITY}, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
    peak = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, tree_rss(runner.pid))
            time.sleep(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    stderr = runner.communicate()[1]
    done.set()
    sampler.join()
    wall = time.perf_counter() - started
    own = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    limits = OutputLimits()
    print(f"adapter: {args.mib:g} MiB of events in {args.line_bytes}-byte lines per run; "
          f"{'unisolated' if args.unisolated else 'bwrap'}; runner exit {runner.returncode}, {wall:.1f}s")
    print(f"peak tree RSS   {peak / MIB:8.1f} MiB")
    print(f"runner max RSS  {own / MIB:8.1f} MiB")
    for directory in sorted(out.glob("t1/repeat-0/*")):
        sizes = {p.name: p.stat().st_size for p in sorted(directory.iterdir())}
        listed = ", ".join(f"{name} {size / MIB:.2f}" for name, size in sizes.items())
        print(f"per run dir     {sum(sizes.values()) / MIB:8.2f} MiB  ({directory.name}: {listed})")
    bound = getattr(limits, "run_dir_bytes", None)
    print(f"limit           {bound / MIB:8.2f} MiB per run directory" if bound else
          f"limit           (no run-directory bound; max_event_bytes {limits.event_bytes / MIB:.0f} MiB)")
    if not out.is_dir():
        print(stderr[-2000:], file=sys.stderr)
    subprocess.run(["rm", "-rf", str(root)], check=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
