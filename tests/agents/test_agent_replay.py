"""adapters/replay plays a stored run back: same events, same result, patch applied."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from agent_helpers import make_request, run_adapter

from instruction_gate import proc

GIT_ENV = {"GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.invalid",
           "GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "test@example.invalid"}
RECORDED = [
    {"type": "turn", "index": 0},
    {"type": "tool", "tool": "shell", "command": "pytest -q", "exit_code": 0, "turn": 0},
    {"type": "file_change", "path": "calc.py", "change": "modify", "turn": 0},
    {"type": "policy", "name": "approval_requested"},
    {"type": "result", "status": "completed", "tool_calls": 1, "input_tokens": 10, "output_tokens": 2,
     "cached_input_tokens": 0, "provider_cost_usd": None, "instruction_sources": ["AGENTS.md"]},
]


def git(repo: Path, *args: str) -> None:
    result = proc.run(["git", *args], repo, env={**os.environ, **GIT_ENV})
    assert result.ok, result.stderr


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    repo = tmp_path / "work"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    return repo


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    stored = tmp_path / "stored-run"
    stored.mkdir()
    lines = [json.dumps(e) for e in RECORDED]
    lines.insert(2, "not json")
    (stored / "events.jsonl").write_text("\n".join(lines) + "\n")
    (stored / "patch.diff").write_text(
        "diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n"
        " def add(a, b):\n-    return a - b\n+    return a + b\n")
    return stored


def test_replay_re_emits_events_and_applies_the_patch(workspace, run_dir):
    request = make_request(workspace, workspace, {}, options={"run_dir": str(run_dir)})
    events, result = run_adapter("replay", request, {"PATH": os.environ["PATH"], **GIT_ENV})
    assert result.exit_code == 0, result.stderr
    assert events == RECORDED
    assert "return a + b" in (workspace / "calc.py").read_text()
    assert "1 malformed" in result.stderr


def test_replay_of_run_json_events_without_patch(workspace, tmp_path):
    record = tmp_path / "run.json"
    record.write_text(json.dumps({"schema_version": 1, "events": RECORDED}))
    request = make_request(workspace, workspace, {})
    events, _ = run_adapter("replay", request, {"PATH": os.environ["PATH"]}, "--events", str(record))
    assert events == RECORDED
    assert "return a - b" in (workspace / "calc.py").read_text()


def test_patch_that_does_not_apply_makes_the_replay_invalid(workspace, run_dir):
    (workspace / "calc.py").write_text("something else entirely\n")
    request = make_request(workspace, workspace, {}, options={"run_dir": str(run_dir)})
    events, _ = run_adapter("replay", request, {"PATH": os.environ["PATH"]})
    assert events[:-1] == RECORDED[:-1]
    assert (events[-1]["status"], events[-1]["failure_class"]) == ("failed", "infrastructure")


def test_missing_events_option_is_a_configuration_error(workspace):
    events, result = run_adapter("replay", make_request(workspace, workspace, {}), {"PATH": os.environ["PATH"]})
    assert result.exit_code == 2 and events == [] and "run_dir" in result.stderr
