"""Parse `gemini -p … --output-format stream-json` (Gemini CLI 0.61) into protocol events.

The stream: `init` (session_id, model), `message` (role user, or assistant text in `delta`
chunks), `tool_use` (tool_name, tool_id, parameters), `tool_result` (tool_id, status
success/error, output, error), `error` (severity, message: a broken model stream, a warning)
and one closing `result` (status success/error, error {type, message}, stats: input_tokens
with cached ones included, output_tokens without thoughts, cached, total_tokens, per-model
`models`). A resumed process (`--resume ID`) reports only its own tokens.

A shell command's exit code is not in the stream: `tool_result` says success even for exit 3.
The CLI's own session record (`$GEMINI_CLI_HOME/.gemini/tmp/<project>/chats/session-*.jsonl`,
`gemini_session.py`) keeps what the model was told (`Exit Code: N`), so a process's events are
held until it exits and completed from that record.

Failures: API errors end in a `result` with status error whose message embeds the provider's
error JSON (`"code": 429`) and exit with that status modulo 256; a stream cut short leaves an
`error` event ("Model stream ended without a finish reason") and exits 0; retries show only on
stderr (`Attempt N failed with status S`); a lost session on `--resume` exits 42 before any
event ("Error resuming session").
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

from instruction_gate.agents.gemini import session as gemini_session
from instruction_gate.agents.cli_agent import StreamParser, count
from instruction_gate.agents.failures import Failure, classify_error_text, reason_for_http_status
from instruction_gate.proc import ProcResult

_EDIT_TOOLS = {"replace": "modify", "write_file": None}
_PATH_KEYS = ("file_path", "dir_path", "path", "absolute_path")
#: Tools after which Gemini CLI loads context files from the path's directory up ("just in time"):
#: only when the call succeeds (a call the CLI rejects, or a tool error, returns before that).
_JIT_TOOLS = ("read_file", "list_directory", "replace", "write_file")
_HTTP_CODE = re.compile(r'"code"\s*:\s*(\d{3})\b')
_RETRY = re.compile(r"Attempt \d+ failed with status (\d{3})")
#: The CLI's exit code when it cannot authenticate before any request.
FATAL_AUTHENTICATION_ERROR = 41
_SESSION_LOST = re.compile(r"Error resuming session|Invalid session identifier")
#: The provider's answer could not be read: a stream without a finish reason, a body that is
#: not JSON, or an API error without an HTTP status (the connection failed).
_BROKEN = re.compile(r"stream ended without a finish reason|incomplete json|\[API Error: (?![^\]]*\"code\")",
                     re.IGNORECASE)


class GeminiStream(StreamParser):
    """State of one Gemini CLI run across its `-p` and `--resume` processes."""

    def __init__(self, repo_root, config_home: Path, stall_seconds: float | None = None,
                 prices_per_mtok: tuple[float, float, float] | None = None):
        super().__init__(repo_root)
        self.config_home = config_home  #: GEMINI_CLI_HOME: where the session record lives
        self.stall_seconds = stall_seconds
        self.prices_per_mtok = prices_per_mtok
        self._recorded: set[str] = set()  # session messages whose tokens are already counted
        self.skills_invoked = []  # an `activate_skill` call that succeeded sent the skill's body
        self._begin_process()

    def _begin_process(self) -> None:
        self._held: list[dict[str, Any]] = []  # this process's events, completed at exit
        self._open: dict[str, dict[str, Any]] = {}  # tool_id -> tool event awaiting its result
        self._edits: dict[str, dict[str, Any]] = {}
        self._jit: dict[str, str] = {}  # tool_id -> path whose context files a success loads
        self._skills: dict[str, str] = {}  # tool_id of an `activate_skill` call -> the skill's name
        self._text: list[str] = []
        self.result: dict[str, Any] | None = None
        self.model_spoke = False
        self.last_error = ""
        self.retry_status: int | None = None
        self.tools_running = False
        self.last_event_at = time.monotonic()

    def begin_turn(self, index: int) -> None:
        super().begin_turn(index)
        self._begin_process()

    def handle(self, obj: dict[str, Any]) -> list[dict[str, Any]]:
        kind = obj.get("type")
        self.last_event_at = time.monotonic()
        if kind == "init":
            self.session_id = obj["session_id"] if isinstance(obj.get("session_id"), str) else self.session_id
            self.model = obj["model"] if isinstance(obj.get("model"), str) else self.model
        elif kind == "message" and obj.get("role") == "assistant" and isinstance(obj.get("content"), str):
            self.model_spoke = True
            self._text.append(obj["content"])
        elif kind == "tool_use":
            self._flush_text()
            self._tool_use(obj)
        elif kind == "tool_result":
            self._tool_result(obj)
        elif kind == "error" and isinstance(obj.get("message"), str):
            self.last_error = obj["message"]
        elif kind == "result":
            self._flush_text()
            self.result = obj
        return []  # held until the process exits: shell exit codes come from the session record

    def _flush_text(self) -> None:
        text = "".join(self._text)
        self._text = []
        if text.strip():
            self.final_message = text
            self._held.append({"type": "message", "text": text, "turn": self.turn})

    def _tool_use(self, obj: dict[str, Any]) -> None:
        self.model_spoke = True
        tool_id = str(obj.get("tool_id") or f"anonymous-{self.tool_calls}")
        name = str(obj.get("tool_name") or "?")
        args = obj.get("parameters") if isinstance(obj.get("parameters"), dict) else {}
        command, path = self.tool_command(name, args, "run_shell_command", _PATH_KEYS)
        if name == "activate_skill" and isinstance(args.get("name"), str):
            self._skills[tool_id] = args["name"]
            command = f"activate_skill {args['name']}"  # which skill, for the digest
        if path is not None and name in _JIT_TOOLS:
            self._jit[tool_id] = path
        self.tool_calls += 1
        event = {"type": "tool", "tool": name, "command": command, "turn": self.turn, "id": tool_id}
        self._open[tool_id] = event
        self._held.append(event)
        if name in _EDIT_TOOLS and path is not None:
            edit = {"type": "file_change", "path": self.relpath(path), "turn": self.turn}
            if _EDIT_TOOLS[name]:
                edit["change"] = _EDIT_TOOLS[name]
            self._edits[tool_id] = edit

    def _tool_result(self, obj: dict[str, Any]) -> None:
        tool_id = str(obj.get("tool_id"))
        event = self._open.pop(tool_id, None)
        if event is None:
            return
        event["failed"] = obj.get("status") == "error"
        jit = self._jit.pop(tool_id, None)
        if jit is not None and obj.get("status") == "success":
            self.touch(jit)
        skill = self._skills.pop(tool_id, None)
        if skill is not None and obj.get("status") == "success":  # an unknown name fails: nothing sent
            self.invoked_skill(skill)
        edit = self._edits.pop(tool_id, None)
        if edit is not None and not event["failed"]:
            self._held.append(edit)

    def end_process(self, result: ProcResult) -> tuple[list[dict[str, Any]], Failure | None]:
        self._flush_text()
        records = gemini_session.messages(self.config_home, self.session_id)
        codes = gemini_session.shell_exit_codes(records)
        self.tools_running = bool(self._open)
        for event in self._held:
            tool_id = event.pop("id", None)
            failed = event.pop("failed", None)
            if event.get("type") != "tool" or failed is None:
                continue  # still open: it never finished, no exit code
            if event["tool"] == "run_shell_command" and tool_id in codes:
                event["exit_code"] = codes[tool_id]
            elif event["tool"] != "run_shell_command":
                event["exit_code"] = 1 if failed else 0
        retries = _RETRY.findall(result.stderr or "")
        self.retry_status = int(retries[-1]) if retries else None
        self._settle_usage(records)
        events, self._held = self._held, []
        self._open.clear()
        self._edits.clear()
        self._jit.clear()
        return events, self._failure(result)

    def _settle_usage(self, records: dict[str, dict[str, Any]]) -> None:
        """This process's tokens: the result's stats (every model it called, side calls
        included), else — killed or crashed — the model calls its session record gained."""
        new = [m for key, m in records.items() if key not in self._recorded and m.get("type") == "gemini"]
        self._recorded.update(records)
        stats = (self.result or {}).get("stats")
        if isinstance(stats, dict):
            total_input, cached = count(stats.get("input_tokens")), count(stats.get("cached"))
            # Thoughts are billed as output but left out of output_tokens: total - input has them.
            output = max(count(stats.get("output_tokens")), count(stats.get("total_tokens")) - total_input)
        else:
            total_input, output, cached = (sum(column) for column in zip((0, 0, 0), *map(gemini_session.model_tokens, new)))
        if total_input or output:
            self.usage.add(total_input, output, cached)
        if self.prices_per_mtok is not None and self.usage.input_tokens is not None:
            self.cost_usd = self.usage.cost_usd(self.prices_per_mtok)

    def _failure(self, result: ProcResult) -> Failure | None:
        final = self.result
        if final is None:
            text = result.stderr or "no result event"
            if _SESSION_LOST.search(text):
                return Failure("session_lost", text[-300:])
            if result.exit_code == FATAL_AUTHENTICATION_ERROR:  # no key, or an auth type refused
                return Failure("auth_failed", text[-300:])
            if self.retry_status is not None:
                return Failure(reason_for_http_status(self.retry_status) or "provider_error",
                               f"ended while retrying (status {self.retry_status})")
            return classify_error_text(text[-2000:], default="agent_error" if self.model_spoke else "zero_turns")
        if final.get("status") == "success":
            return None if result.exit_code == 0 else classify_error_text(
                result.stderr[-2000:] or f"exit code {result.exit_code}")
        error = final.get("error") if isinstance(final.get("error"), dict) else {}
        if error.get("type") == "FatalTurnLimitedError":
            return Failure("max_turns", str(error.get("message", "")))
        text = str(error.get("message") or self.last_error or "result status error")
        status = _HTTP_CODE.search(text)
        reason = reason_for_http_status(int(status.group(1))) if status else None
        if reason is not None:
            return Failure(reason, text)
        failure = classify_error_text(text, default="agent_error" if self.model_spoke else "zero_turns")
        if failure.reason in ("agent_error", "zero_turns") and _BROKEN.search(text):
            return Failure("provider_error", text)
        return failure

    def timeout_failure(self, detail: str) -> Failure:
        """Killed while the CLI retried an API error, or while waiting on a silent provider for
        longer than `stall_seconds`: the provider's fault. A tool still running is the agent's."""
        if self.retry_status is not None:
            reason = reason_for_http_status(self.retry_status) or "provider_error"
            return Failure(reason, f"retrying (last status {self.retry_status}); {detail}")
        silent = time.monotonic() - self.last_event_at
        if self.stall_seconds is not None and silent >= self.stall_seconds and not self.tools_running:
            return Failure("provider_error", f"no output for {silent:.0f}s while waiting on the model; {detail}")
        return Failure("timeout", detail)
