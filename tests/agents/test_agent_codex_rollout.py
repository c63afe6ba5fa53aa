"""Codex's session record fills in the commands its `--json` stream leaves out, turn by turn."""

from __future__ import annotations

import json
import os
from pathlib import Path

from agent_helpers import exited

from instruction_gate.agents.codex import rollout
from instruction_gate.agents.codex.stream import CodexStream

THREAD = "01a252ce-703c-7a60-afb9-995bfec37dbc"
SANDBOX_FAILED = ("Chunk ID: d030e9\nWall time: 0.0000 seconds\nProcess exited with code 1\nOriginal token count: 16\n"
                  "Output:\nbwrap: execvp codex-linux-sandbox: No such file or directory\n")


def _exited_with(code: int, output: str = "") -> str:
    return f"Chunk ID: 1\nWall time: 0.0 seconds\nProcess exited with code {code}\nOriginal token count: 1\nOutput:\n{output}"


def _call(call_id: str, name: str, arguments: dict) -> dict:
    return {"type": "response_item", "payload": {"type": "function_call", "name": name, "call_id": call_id,
                                                 "arguments": json.dumps(arguments)}}


def _output(call_id: str, text: str) -> dict:
    return {"type": "response_item", "payload": {"type": "function_call_output", "call_id": call_id, "output": text}}


def _append(home: Path, *records: dict, partial: str = "") -> Path:
    path = home / "sessions" / "2026" / "12" / "07" / f"rollout-2026-12-07T23-19-50-{THREAD}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as handle:
        handle.write("".join(json.dumps(r) + "\n" for r in records) + partial)
    return path


def _process(parser: CodexStream, turn: int, *stream: dict, reason: str | None = None) -> list[dict]:
    parser.begin_turn(turn)
    lines = [{"type": "thread.started", "thread_id": THREAD}, {"type": "turn.started"}, *stream,
             {"type": "turn.completed", "usage": {"input_tokens": 1, "output_tokens": 1}}]
    events = [e for obj in lines for e in parser.feed(json.dumps(obj).encode())]
    tail, failure = parser.end_process(exited(0))
    assert (failure and failure.reason) == reason, failure
    return events + tail


def _streamed(item_id: str, command: str) -> dict:
    return {"type": "item.completed", "item": {"id": item_id, "type": "command_execution",
                                               "command": f"/bin/bash -lc '{command}'", "exit_code": 0,
                                               "status": "completed"}}


def test_every_shell_tool_shape_and_how_it_ended(tmp_path):
    path = _append(tmp_path, {"type": "session_meta", "payload": {"id": THREAD}},
                   _call("a", "exec_command", {"cmd": "ls -a"}), _output("a", _exited_with(0, ".\n..\n")),
                   _call("b", "shell", {"command": ["bash", "-lc", "pytest -q"]}),
                   _output("b", json.dumps({"output": "1 failed", "metadata": {"exit_code": 1}})),
                   _call("c", "shell_command", {"command": "git status --short"}),
                   _output("c", "Exit code: 0\nWall time: 0.1 seconds\nOutput:\n"),
                   {"type": "response_item", "payload": {"type": "local_shell_call", "call_id": "d", "status": "completed",
                                                         "action": {"type": "exec", "command": ["make", "lint"]}}},
                   _call("e", "exec_command", {"cmd": "apply_patch <<'EOF'\n*** Begin Patch\n*** End Patch\nEOF"}),
                   _call("f", "exec_command", {"cmd": "pytest"}), _output("f", SANDBOX_FAILED),
                   _call("g", "view_image", {"path": "x.png"}),
                   partial='{"type": "response_item", "payload": {"type": "function_call", "name": "exec_')
    calls, offset = rollout.read_shell_calls(path, 0)
    assert calls == [rollout.ShellCall("ls -a", 0), rollout.ShellCall("bash -lc 'pytest -q'", 1),
                     rollout.ShellCall("git status --short", 0), rollout.ShellCall("make lint", None),
                     rollout.ShellCall("pytest", 1, "bwrap: execvp codex-linux-sandbox: No such file or directory")]
    # The unfinished last line is left for the next read.
    assert offset == path.stat().st_size - len('{"type": "response_item", "payload": {"type": "function_call", "name": "exec_')
    assert rollout.session_file(tmp_path, THREAD) == path
    assert rollout.session_file(tmp_path, "another-thread") is None and rollout.session_file(None, THREAD) is None


def test_a_command_output_naming_bwrap_after_other_lines_ran(tmp_path):
    path = _append(tmp_path, _call("a", "exec_command", {"cmd": "./build.sh"}),
                   _output("a", _exited_with(1, "compiling\nbwrap: not found\n")))
    assert rollout.read_shell_calls(path, 0)[0] == [rollout.ShellCall("./build.sh", 1)]


def test_unstreamed_commands_are_reported_in_their_own_turn(tmp_path, repo):
    parser = CodexStream(repo, codex_home=tmp_path)
    # Turn 0: the record holds `ls -a`, the stream shows no item for it.
    _append(tmp_path, _call("a", "exec_command", {"cmd": "ls -a"}), _output("a", _exited_with(0, ".\n")))
    first = _process(parser, 0, {"type": "item.completed", "item": {"id": "item_1", "type": "agent_message",
                                                                    "text": "first"}})
    # Turn 1 (a resumed process, item ids from item_0 again): streamed and recorded alike.
    _append(tmp_path, _call("b", "exec_command", {"cmd": "git status --short"}), _output("b", _exited_with(0)))
    second = _process(parser, 1, _streamed("item_0", "git status --short"))
    tools = [e for e in first + second if e["type"] == "tool"]
    assert [(e["command"], e["turn"], e.get("exit_code")) for e in tools] == [("ls -a", 0, None), ("git status --short", 1, 0)]
    # Only the record shows `ls -a`, and the agent can write there: it never counts as having run.
    assert tools[0]["refused"] == "in Codex's session record only (exit code 0), not in its stream"
    assert parser.tool_calls == 2


def test_a_command_codex_sandbox_could_not_start_is_refused_and_infrastructure(tmp_path, repo):
    parser = CodexStream(repo, codex_home=tmp_path)
    _append(tmp_path, _call("a", "exec_command", {"cmd": "ls -a"}), _output("a", SANDBOX_FAILED))
    events = _process(parser, 0, reason="sandbox_error")
    assert events == [{"type": "tool", "tool": "shell", "command": "ls -a", "turn": 0,
                       "refused": "Codex's sandbox could not start it: "
                                  "bwrap: execvp codex-linux-sandbox: No such file or directory"}]
    # In a two-turn run the second turn still runs, so each turn's commands are on record.
    parser = CodexStream(repo, codex_home=tmp_path / "two", turn_count=2)
    _append(tmp_path / "two", _call("a", "exec_command", {"cmd": "ls -a"}), _output("a", SANDBOX_FAILED))
    first = _process(parser, 0)
    _append(tmp_path / "two", _call("b", "exec_command", {"cmd": "git status --short"}), _output("b", SANDBOX_FAILED))
    second = _process(parser, 1, reason="sandbox_error")
    assert [(e["command"], e["turn"], "refused" in e) for e in first + second] == [
        ("ls -a", 0, True), ("git status --short", 1, True)]
    # The same words printed by a command Codex did start are its output, nothing more.
    parser = CodexStream(repo, codex_home=tmp_path / "other")
    _append(tmp_path / "other", _call("a", "exec_command", {"cmd": "ls -a"}), _output("a", SANDBOX_FAILED))
    events = _process(parser, 0, _streamed("item_0", "ls -a"))
    assert [(e["command"], e.get("refused")) for e in events if e["type"] == "tool"] == [("ls -a", None)]


def test_a_command_streamed_under_another_spelling_is_not_counted_twice(tmp_path, repo):
    parser = CodexStream(repo, codex_home=tmp_path)
    _append(tmp_path, _call("a", "exec_command", {"cmd": "echo  'a'"}), _output("a", _exited_with(0)),
            _call("b", "exec_command", {"cmd": "ls -a"}), _output("b", _exited_with(0)))
    events = _process(parser, 0, _streamed("item_0", "echo a"), _streamed("item_1", "ls -a"))
    assert [e["command"] for e in events if e["type"] == "tool"] == ["echo a", "ls -a"]
    assert parser.tool_calls == 2


def test_no_session_record_changes_nothing(tmp_path, repo):
    parser = CodexStream(repo, codex_home=tmp_path / "ephemeral")
    events = _process(parser, 0, _streamed("item_0", "ls -a"))
    assert [e["command"] for e in events if e["type"] == "tool"] == ["ls -a"]


def test_a_record_the_agent_turned_into_a_fifo_is_not_read(tmp_path):
    path = _append(tmp_path, _call("a", "exec_command", {"cmd": "ls -a"}))
    path.unlink()
    os.mkfifo(path)
    assert rollout.read_shell_calls(path, 0) == ([], 0)  # returns at once, blocks on nothing
