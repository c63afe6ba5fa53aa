"""Runs' events beside their index: found where the evaluation wrote them, and an index without
task directories (shard summaries, synthetic results) answered from one listing."""

from __future__ import annotations

import json
import os
from pathlib import Path

from instruction_gate.verdict.trajectories import EventFiles, events_of, trajectory


def _run(task_id: str, repeat: int = 0, variant: str = "base") -> dict:
    return {"task_id": task_id, "repeat": repeat, "variant": variant, "edited_files": ["src/a.py"]}


def _write_events(out, task_id: str, lines: list[str], repeat: int = 0, variant: str = "base"):
    folder = out / task_id / f"repeat-{repeat}" / variant
    folder.mkdir(parents=True)
    (folder / "events.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_events_are_read_from_beside_the_index_skipping_malformed_lines(tmp_path):
    call = {"type": "tool_call", "tool": "shell", "command": "pytest -q"}
    _write_events(tmp_path, "task-a", [json.dumps(call), "not json", "[1, 2]"])
    index = tmp_path / "index.json"
    assert events_of(_run("task-a"), index) == [call]
    assert events_of(_run("task-a", variant="candidate"), index) is None  # that run wrote none
    assert events_of(_run("task-b"), index) is None


def test_a_task_id_with_a_slash_and_a_relative_index_path(tmp_path, monkeypatch):
    _write_events(tmp_path, "group/task", ['{"type": "message", "text": "hi"}'], repeat=2)
    monkeypatch.chdir(tmp_path)
    files = EventFiles()
    assert events_of(_run("group/task", repeat=2), Path("index.json"), files) == \
        [{"type": "message", "text": "hi"}]


def test_one_listing_answers_every_run_of_an_index_without_task_directories(tmp_path, monkeypatch):
    listed, checked = [], []
    monkeypatch.setattr(os, "listdir", lambda path: listed.append(path) or [])
    real_isfile = os.path.isfile
    monkeypatch.setattr(os.path, "isfile", lambda path: checked.append(path) or real_isfile(path))
    files, index = EventFiles(), tmp_path / "index.json"
    found = [trajectory(_run(f"task-{i}", i % 3, variant), index, files)
             for i in range(50) for variant in ("base", "candidate")]
    assert listed == [str(tmp_path)] and checked == []
    assert all(not t.known and t.behaviours == {("edit", "src/a.py")} for t in found)
