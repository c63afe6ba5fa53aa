"""Codex's own session record: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl`.

One JSON object per line, appended as the thread goes on (`codex exec resume` appends to the
file of the thread it continues). Lines of `type` `response_item` carry what went to and came
from the model: each shell call the model made (`function_call` named `exec_command` with
`cmd`, `shell_command` with `command`, `shell` with an argv list, or a `local_shell_call`
with `action.command`) and its `function_call_output`, whose text says how the command
ended ("Process exited with code N", "Exit code: N", or a JSON object with
`metadata.exit_code`, depending on the tool).

The adapter reads it for the commands the `--json` stream leaves out: Codex prints no
`command_execution` item for a command its sandbox could not start (`bwrap: …` is all the
model sees), though the model asked for it and was told it failed. Sessions exist only for
runs that are not `--ephemeral`, which every multi-turn run is.
"""

from __future__ import annotations

import json
import re
import shlex
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from instruction_gate.untrusted import read_instruction_bytes

#: A run's session record past this is read as far as it goes.
MAX_READ_BYTES = 64 * 1024 * 1024
_SHELL_TOOLS = {"exec_command": "cmd", "shell_command": "command", "shell": "command"}
_EXIT = re.compile(r"^(?:Process exited with code|Exit code:) (-?\d+)$", re.M)
_OUTPUT = re.compile(r"^Output:\n(.*)", re.M | re.S)
#: Codex's sandbox launcher failing before the command starts (no user namespaces, helper
#: binary refused): the command never ran.
_SANDBOX_START = re.compile(r"^bwrap: .*$|^.*codex-linux-sandbox.*$")


@dataclass(frozen=True)
class ShellCall:
    """One shell command the model asked for, as the session recorded it."""

    command: str  #: the command line (argv lists joined with shell quoting)
    exit_code: int | None  #: as the tool output reported it; None while running or unknown
    not_started: str | None = None  #: why the command never ran (its sandbox could not start)


def session_file(codex_home: str | Path | None, thread_id: str | None) -> Path | None:
    """The thread's session record, or None (ephemeral run, unknown thread, no home)."""
    if not codex_home or not thread_id or "/" in thread_id:
        return None
    matches = sorted(Path(codex_home, "sessions").glob(f"*/*/*/rollout-*-{thread_id}.jsonl"))
    return matches[-1] if matches and matches[-1].is_file() else None


def read_shell_calls(path: Path, offset: int) -> tuple[list[ShellCall], int]:
    """Shell calls recorded after byte `offset` (whole lines only), and the offset after them."""
    # The agent can write there: a regular file only (never a FIFO to block on), capped.
    whole = read_instruction_bytes(path, offset + MAX_READ_BYTES)
    if whole is None or len(whole) < offset:
        return [], offset  # gone or rewritten: the earlier turns are no longer where they were
    data = whole[offset:]
    complete = data[:data.rfind(b"\n") + 1]
    calls: dict[str, str] = {}  # call_id -> command, in call order
    outputs: dict[str, str] = {}
    for line in complete.splitlines():
        payload = _payload(line)
        if payload is None:
            continue
        call_id = str(payload.get("call_id") or payload.get("id") or "")
        if payload.get("type") == "function_call_output":
            outputs[call_id] = _output_text(payload.get("output"))
        elif (command := _command(payload)) is not None:
            calls[call_id or f"#{len(calls)}"] = command
    return [_call(command, outputs.get(call_id)) for call_id, command in calls.items()], offset + len(complete)


def unstreamed(calls: list[ShellCall], streamed: list[str], normal: Callable[[str], str]) -> list[ShellCall]:
    """The calls no streamed command accounts for, matched by command text (`normal` puts
    both in one form), and never more than the calls beyond the streamed count: a command the
    two print differently is not reported twice."""
    unmatched = Counter(streamed)
    missing = []
    for call in calls:
        if unmatched[normal(call.command)] > 0:
            unmatched[normal(call.command)] -= 1
        else:
            missing.append(call)
    return missing[:max(0, len(calls) - len(streamed))]


def _payload(line: bytes) -> dict[str, Any] | None:
    try:
        obj = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        return None
    if not isinstance(obj, dict) or obj.get("type") != "response_item" or not isinstance(obj.get("payload"), dict):
        return None
    return obj["payload"]


def _command(payload: dict[str, Any]) -> str | None:
    """The command line of a shell call; None for anything else. `apply_patch` sent through
    the shell is not one: Codex applies it itself and streams it as a file change."""
    if payload.get("type") == "local_shell_call":
        action = payload.get("action") if isinstance(payload.get("action"), dict) else {}
        value = action.get("command")
    elif payload.get("type") == "function_call" and payload.get("name") in _SHELL_TOOLS:
        try:
            arguments = json.loads(payload.get("arguments") or "{}")
        except (json.JSONDecodeError, TypeError):
            return None
        value = arguments.get(_SHELL_TOOLS[payload["name"]]) if isinstance(arguments, dict) else None
    else:
        return None
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        value = shlex.join(value)
    if not isinstance(value, str) or not value.strip() or value.lstrip().startswith("apply_patch"):
        return None
    return value


def _output_text(output: Any) -> str:
    if isinstance(output, dict):  # some releases record {"content": ..., "success": ...}
        output = output.get("content")
    if isinstance(output, list):
        output = "".join(part.get("text", "") for part in output if isinstance(part, dict))
    return output if isinstance(output, str) else ""


def _call(command: str, output: str | None) -> ShellCall:
    if output is None:
        return ShellCall(command, None)
    exit_code = None
    if (match := _EXIT.search(output)) is not None:
        exit_code = int(match.group(1))
    else:
        try:  # the `shell` tool answers with JSON: {"output": ..., "metadata": {"exit_code": N}}
            metadata = json.loads(output).get("metadata")
            exit_code = metadata["exit_code"] if isinstance(metadata.get("exit_code"), int) else None
        except (json.JSONDecodeError, AttributeError, TypeError):
            pass
    body = _OUTPUT.search(output)
    lines = (body.group(1) if body else output).strip().splitlines()
    not_started = lines[0] if exit_code not in (0, None) and len(lines) == 1 and _SANDBOX_START.match(lines[0]) \
        else None
    return ShellCall(command, exit_code, not_started)
