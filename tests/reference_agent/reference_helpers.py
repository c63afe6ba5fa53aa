"""Build agent workspaces from the example repository the way the runner does, and run the agent."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from instruction_gate.reference_agent.agent import Options, ReferenceAgent

PROJECT = Path(__file__).resolve().parents[2]
EXAMPLE = PROJECT / "examples" / "repo"
TASKS = PROJECT / "tasks"


def workspace(tmp_path: Path, task_id: str | None = None, files: dict[str, str | None] | None = None) -> Path:
    """A one-commit repository: the example, `files` written over it (None deletes), the task's fixture."""
    root = tmp_path / "ws"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("__pycache__"))
    for rel, text in (files or {}).items():
        if text is None:
            (root / rel).unlink()
        else:
            (root / rel).write_text(text, encoding="utf-8")
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    fixture = TASKS / task_id / "fixture.patch" if task_id else None
    if fixture and fixture.is_file():
        subprocess.run(["git", "apply", str(fixture)], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "input"], cwd=root, check=True)
    return root


def request(root: Path, task_id: str, cwd: str = ".", prompt: str | None = None, variant: str = "base",
            repeat: int = 0, solution: bool = True) -> dict[str, Any]:
    text = prompt if prompt is not None else (TASKS / task_id / "prompt.md").read_text(encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k in ("HOME", "LANG", "LC_ALL", "TMPDIR")}
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", os.defpath)])
    return {
        "schema_version": 1, "workspace": str(root / cwd), "repo_root": str(root), "cwd": cwd,
        "prompt": text, "turns": [text], "task_id": task_id, "variant": variant, "repeat": repeat,
        "limits": {"timeout_seconds": 60}, "agent_env": env, "adapter_options": {},
        "reference_solution": str(TASKS / task_id / "solution.patch") if solution else None,
    }


def run_agent(req: dict[str, Any], options: Options | None = None) -> list[dict[str, Any]]:
    """Run the agent in-process; returns every event, the result last."""
    events: list[dict[str, Any]] = []
    result = ReferenceAgent(req, options or Options(), events.append).run()
    return [*events, result]


def commands(events: list[dict[str, Any]]) -> list[str]:
    return [e["command"] for e in events if e.get("type") == "tool" and "command" in e]


def names(events: list[dict[str, Any]]) -> list[str]:
    return [e["name"] for e in events if "name" in e]
