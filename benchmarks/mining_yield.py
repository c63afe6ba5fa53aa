#!/usr/bin/env python3
"""Mining yield and time per candidate: `mine` on a repository, figures from its report.

Without --repo, on a generated project whose history holds N fixes (each a bug and the test
that catches it) among features and chores, so the figure is reproducible offline. With
--repo, on a clone you name (a real project: `mine` never writes there with --dry-run).
Prints: commits scanned, fix-shaped candidates, validated, kept, yield, seconds per validated
candidate (two rounds each) and the whole run's wall time.

Usage: python benchmarks/mining_yield.py [--fixes N] [--repo PATH [--check-env-dir DIR]] [--max-tasks K]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from instruction_gate.cli import main  # noqa: E402

IDENTITY = ["-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "-c", "commit.gpgsign=false"]


def _commit(repo: Path, files: dict[str, str], message: str) -> None:
    for path, text in files.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
    subprocess.run(["git", *IDENTITY, "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", *IDENTITY, "commit", "-qm", message], cwd=repo, check=True)


def generated(root: Path, fixes: int) -> Path:
    """A project with `fixes` fix commits, each in its own module, interleaved with chores."""
    repo = root / "project"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, check=True)
    files = {"AGENTS.md": "Run the tests with `python -m pytest -q` before finishing.\n"}
    for i in range(fixes):
        files[f"pkg/m{i}.py"] = f"def f{i}(x):\n    return x - {i}\n"
        files[f"tests/test_m{i}.py"] = f"from pkg.m{i} import f{i}\n\n\ndef test_zero():\n    assert f{i}(0) == -{i}\n"
    files["pkg/__init__.py"] = ""
    _commit(repo, files, "initial")
    for i in range(fixes):
        _commit(repo, {f"pkg/m{i}.py": f"def f{i}(x):\n    return x + {i}\n",
                       f"tests/test_m{i}.py": f"from pkg.m{i} import f{i}\n\n\ndef test_zero():\n    assert f{i}(0) == {i}\n\n\n"
                                              f"def test_one():\n    assert f{i}(1) == {i + 1}\n"},
                f"Fix f{i} subtracting its offset")
        _commit(repo, {"CHANGELOG.md": f"- entry {i}\n"}, f"docs: changelog {i}")
    return repo


def main_() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fixes", type=int, default=6)
    parser.add_argument("--repo", type=Path)
    parser.add_argument("--check-env-dir", type=Path)
    parser.add_argument("--max-tasks", type=int, default=8)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mining-bench-") as holder:
        repo = args.repo.resolve() if args.repo else generated(Path(holder), args.fixes)
        report = Path(holder) / "report.md"
        argv = ["mine", "--repo", str(repo), "--dry-run", "--report", str(report), "--max-tasks", str(args.max_tasks)]
        argv += ["--check-env-dir", str(args.check_env_dir)] if args.check_env_dir else []
        started = time.monotonic()
        code = main(argv)
        wall = time.monotonic() - started
        data = json.loads(report.with_suffix(".json").read_text())
    print(f"\n{'repository':<28}{args.repo or f'generated ({args.fixes} fixes)'}")
    for label, value in [("commits scanned", data["scanned_commits"]), ("fix-shaped candidates", data["candidates"]),
                         ("validated", data["validated"]), ("kept", data["kept"]),
                         ("yield (kept / validated)", data["yield"]),
                         ("s per validated candidate", data["seconds_per_validated_candidate"]),
                         ("wall time, s", round(wall, 1)), ("exit code", code)]:
        print(f"{label:<28}{value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main_())
