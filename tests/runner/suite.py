"""A tiny suite and scriptable test adapters for driving the runner end to end."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.conftest import REPO_ROOT, GitRepo

ADAPTER_TEMPLATE = '''#!{python}
import json, os, subprocess, sys, time
request = json.load(sys.stdin)
def emit(**event):
    print(json.dumps(event), flush=True)
{body}
'''

COMPLETED = 'emit(type="result", status="completed", tool_calls=1, provider_cost_usd=0.01, input_tokens=10, output_tokens=5, instruction_sources=["AGENTS.md"], agent_name="test", model="none")'


def write_adapter(directory: Path, body: str, name: str = "adapter") -> Path:
    path = directory / name
    path.write_text(ADAPTER_TEMPLATE.format(python=sys.executable, body=textwrap.dedent(body)))
    path.chmod(0o755)
    return path


def manifest(tasks: list[dict], **top) -> dict:
    data = {"schema_version": 1, "repeats": 1, "instruction_paths": ["AGENTS.md", "**/AGENTS.override.md"],
            "defaults": {"timeout_seconds": 20, "max_tool_calls": 10, "max_provider_cost_usd": None,
                         "check_timeout_seconds": 20, "forbidden_globs": [".github/workflows/**"]},
            "tasks": tasks}
    data.update(top)
    return data


def task(task_id: str = "t1", **fields) -> dict:
    data = {"id": task_id, "kind": "bug_fix", "cwd": ".", "prompt_file": f"evals/tasks/{task_id}/prompt.md",
            "checks": [["python", "-c", "import pathlib,sys; sys.exit(0 if pathlib.Path('src/app.py').exists() else 1)"]]}
    data.update(fields)
    return data


def build_suite_repo(repo: GitRepo, tasks: list[dict], extra: dict[str, str] | None = None, **top) -> tuple[str, str]:
    """Commit a project + suite (base), then a candidate editing AGENTS.md. Returns (base, candidate)."""
    files = {"AGENTS.md": "Run `pytest` before finishing.\n", "src/app.py": "VALUE = 1\n",
             "evals/manifest.json": json.dumps(manifest(tasks, **top), indent=2)}
    for t in tasks:
        files[t["prompt_file"]] = f"Prompt for {t['id']}\n"
        files[f"evals/tasks/{t['id']}/secret_check.py"] = "HIDDEN = True\n"
    files.update(extra or {})
    base = repo.commit(files, "base")
    candidate = repo.commit({"AGENTS.md": "Run `pytest -q` before finishing.\n"}, "candidate")
    return base, candidate


def run_cli(repo: GitRepo, *args: str, env: dict | None = None, timeout: float = 120,
            cwd: Path | None = None) -> subprocess.CompletedProcess:
    """runner.py on `repo`, started in `cwd` (default: the repository)."""
    import os
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run([sys.executable, str(REPO_ROOT / "runner.py"), "--repo", str(repo.path), *args],
                          cwd=cwd or repo.path, capture_output=True, text=True, env=full_env, timeout=timeout)


def load_index(out: Path) -> dict:
    return json.loads((out / "index.json").read_text())
