"""A small project with a two-task suite, for hold-code tests: a Makefile the instructions name."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO_ROOT, GitRepo

REFERENCE = str(REPO_ROOT / "adapters" / "reference")
MANIFEST = "evals/manifest.json"
AGENTS = "# Agents\n\nRun the tests with `make test` before finishing.\n"
MAKEFILE = "test:\n\t@echo tests ok\n"
EXISTS = "import pathlib, sys; sys.exit(0 if pathlib.Path('src/app.py').exists() else 1)"


def suite(tasks: int = 2) -> dict:
    found = []
    for number in range(1, tasks + 1):
        task = {"id": f"t{number}", "kind": "bug_fix", "cwd": ".", "prompt_file": f"evals/tasks/t{number}/prompt.md",
                "checks": [["python3", f"evals/tasks/t{number}/check.py"]],
                "required_command_patterns": ["^make "]}
        found.append(task)
    found[0]["reference_solution"] = "evals/tasks/t1/solution.patch"
    if tasks > 1:
        found[1]["fixture_patch"] = "evals/tasks/t2/fixture.patch"
    return {"schema_version": 1, "repeats": 1, "instruction_paths": ["AGENTS.md", "**/AGENTS.override.md"],
            "defaults": {"timeout_seconds": 30, "max_tool_calls": 20, "max_provider_cost_usd": None,
                         "check_timeout_seconds": 20, "forbidden_globs": [".github/workflows/**"]},
            "tasks": found}


SOLUTION = """diff --git a/src/app.py b/src/app.py
--- a/src/app.py
+++ b/src/app.py
@@ -1 +1 @@
-VALUE = 1
+VALUE = 2
"""
FIXTURE = """diff --git a/src/util.py b/src/util.py
--- a/src/util.py
+++ b/src/util.py
@@ -1 +1 @@
-HELPER = "a"
+HELPER = "broken"
"""


def build_base(repo: GitRepo, tasks: int = 2) -> str:
    files = {"AGENTS.md": AGENTS, "Makefile": MAKEFILE, "src/app.py": "VALUE = 1\n", "src/util.py": 'HELPER = "a"\n',
             MANIFEST: json.dumps(suite(tasks), indent=2), "evals/tasks/t1/solution.patch": SOLUTION,
             "evals/tasks/t2/fixture.patch": FIXTURE}
    for number in range(1, tasks + 1):
        files[f"evals/tasks/t{number}/prompt.md"] = f"Prompt {number}: make the change.\n"
        files[f"evals/tasks/t{number}/check.py"] = EXISTS + "\n"
    return repo.commit(files, "base with suite")


def runner(repo: GitRepo, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    import os
    return subprocess.run([sys.executable, str(REPO_ROOT / "runner.py"), "--repo", str(repo.path),
                           "--manifest", str(repo.path / MANIFEST), *args], cwd=repo.path, capture_output=True,
                          text=True, timeout=300, env={**os.environ, **(env or {})})


def gate(repo: GitRepo, base: str, candidate: str, out: Path, *flags: str, adapter: str = REFERENCE,
         env: dict | None = None) -> tuple[subprocess.CompletedProcess, subprocess.CompletedProcess | None]:
    """evaluate then compare; compare is skipped when evaluate could not record anything."""
    evaluated = runner(repo, "--base", base, "--candidate", candidate, "--out", str(out), "--adapter", adapter,
                       *flags, env=env)
    if not (out / "index.json").is_file():
        return evaluated, None
    policy = out.parent / "policy.json"
    policy.write_text(json.dumps({"soft": {"mode": "fail"}}))
    compared = subprocess.run([sys.executable, str(REPO_ROOT / "compare.py"), "--results", str(out), "--policy",
                               str(policy), "--summary", str(out / "summary.md")], capture_output=True, text=True,
                              timeout=120)
    return evaluated, compared
