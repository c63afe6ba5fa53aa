"""Gemini CLI's own session record: `$GEMINI_CLI_HOME/.gemini/tmp/<project>/chats/session-*.jsonl`.

The first line names the session (`sessionId`); then one JSON object per message, written
again whenever it changes (the last copy wins): `type` `user` or `gemini`, `tokens` of a
model call (`input` with cached ones included, `output` without thoughts, `cached`,
`total`), and `toolCalls` with each call's `id` and `result` — the function response the
model got, for a shell command `Output: …` ending in `Exit Code: N` when N is not 0.
The adapter reads it for what the stream-json output leaves out.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from instruction_gate.agents.cli_agent import count
from instruction_gate.untrusted import read_instruction_bytes

#: A session record is read whole; a run's record past this is cut (and read as far as it goes).
MAX_RECORD_BYTES = 64 * 1024 * 1024
_TRAILER = re.compile(r"^(?:Process Group PGID|Background PIDs|Signal): .*$")
_EXIT = re.compile(r"^Exit Code: (-?\d+)$")
_SIGNAL = re.compile(r"^Signal: (\d+)$")


def _session_file(home: Path, session_id: str | None) -> Path | None:
    if not session_id:
        return None
    for path in sorted((home / ".gemini" / "tmp").glob(f"*/chats/session-*-{session_id[:8]}*.jsonl")):
        head = (read_instruction_bytes(path, 4096) or b"").split(b"\n", 1)[0]
        try:
            if json.loads(head).get("sessionId") == session_id:
                return path
        except (json.JSONDecodeError, AttributeError):
            continue
    return None


def messages(home: Path, session_id: str | None) -> dict[str, dict[str, Any]]:
    """Message id -> the message's last recorded state."""
    path = _session_file(home, session_id)
    data = read_instruction_bytes(path, MAX_RECORD_BYTES) if path else None
    found: dict[str, dict[str, Any]] = {}
    for line in (data or b"").decode("utf-8", errors="replace").splitlines()[1:]:
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(record, dict) and isinstance(record.get("id"), str) and "type" in record:
            found[record["id"]] = record
    return found


def shell_exit_code(response: str) -> int | None:
    """The exit code in a shell call's function response (`Exit Code: N` after the output;
    none means 0; killed by a signal: 128 + signal), or None when it did not finish."""
    text = response.strip().removeprefix("<untrusted_context>").removesuffix("</untrusted_context>").strip()
    if not text.startswith("Output:"):
        return None  # cancelled, moved to the background, or refused
    lines = text.splitlines()
    signal = None
    while lines and _TRAILER.match(lines[-1]):
        match = _SIGNAL.match(lines.pop())
        signal = int(match.group(1)) if match else signal
    code = _EXIT.match(lines[-1]) if lines else None
    if code:
        return int(code.group(1))
    return 128 + signal if signal is not None else 0


def _response_text(call: dict[str, Any]) -> str:
    for part in call.get("result") or []:
        response = (part.get("functionResponse") or {}).get("response") if isinstance(part, dict) else None
        if isinstance(response, dict) and isinstance(response.get("output"), str):
            return response["output"]
    return ""


def shell_exit_codes(records: dict[str, dict[str, Any]]) -> dict[str, int]:
    """tool_id -> exit code of every finished shell call in a session's `messages`."""
    codes: dict[str, int] = {}
    for message in records.values():
        for call in message.get("toolCalls") or []:
            if isinstance(call, dict) and call.get("name") == "run_shell_command":
                code = shell_exit_code(_response_text(call))
                if code is not None:
                    codes[str(call.get("id"))] = code
    return codes


def model_tokens(message: dict[str, Any]) -> tuple[int, int, int]:
    """(input incl. cached, output incl. thoughts, cached) of one recorded model call."""
    tokens = message.get("tokens") if isinstance(message.get("tokens"), dict) else {}
    total_input = count(tokens.get("input"))
    output = max(count(tokens.get("output")), count(tokens.get("total")) - total_input)
    return total_input, output, count(tokens.get("cached"))
