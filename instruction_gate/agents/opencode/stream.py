"""Parse `opencode run --format json` (OpenCode 1.18) into protocol events.

Every line is `{type, timestamp, sessionID, part | error}`: `step_start` (a model call
begins), `text` (an assistant text part, whole), `tool_use` (a finished tool part: `tool`,
`callID`, `state` with `status` completed/error, `input`, `metadata` — `exit` for `bash`,
`loaded` for the instruction files `read` attached), `step_finish` (`tokens` {input without
cached, output, reasoning, cache {read, write}}, `cost` in USD from the model's price table)
and `error` (`error.name`: APIError with `data.statusCode`/`isRetryable`, ContextOverflowError,
ProviderAuthError, UnknownError …; the process then exits 1). A process continued with
`--session ID` reports only its own steps. A missing session prints "Session not found" on
stderr and exits 1 before any event. Retries (5, backing off from 2 s) leave no event.

What the process was doing when the deadline killed it is not in the stream (a tool's part
arrives only when it finishes), so the adapter runs the CLI with `--print-logs`: its stderr
log has `message=stream` when a model call starts, `message="stream error"` when one fails
(before a retry) and `message=evaluated permission=…` when a tool is about to run. A stream cut short or unreadable ends its step with reason `unknown` and
no tokens, and OpenCode calls the model again at once, for ever.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from instruction_gate.agents.cli_agent import StreamParser, count
from instruction_gate.agents.failures import Failure, classify_error_text, reason_for_http_status
from instruction_gate.proc import ProcResult

SHELL_TOOL = "bash"
_PATH_KEYS = ("filePath", "path")
_EDIT_TOOLS = {"edit": "modify", "write": None, "multiedit": "modify"}
_PATCH_FILE = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+)$", re.MULTILINE)
_PATCH_CHANGE = {"Add": "add", "Update": "modify", "Delete": "delete"}
_ERROR_REASON = {"ContextOverflowError": "agent_error", "ProviderAuthError": "auth_failed"}
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_LOG = re.compile(r'^timestamp=(\S+) .*?message=(stream|evaluated|"stream error") (.*)$', re.MULTILINE)
_LOGGED_ERROR = re.compile(r'error\.error="((?:[^"\\]|\\.)*)"')


@dataclass
class LoggedState:
    """What the CLI's log says it was doing last."""

    call_started: datetime | None = None  #: when the last model call started
    tool_running: bool = False  #: a tool started after it
    call_error: str | None = None  #: a model call failed since the last tool (OpenCode retries it)


def logged_state(log: str) -> LoggedState:
    state = LoggedState()
    for match in _LOG.finditer(log):
        kind = match.group(2)
        if kind == "stream":
            try:
                state.call_started = datetime.fromisoformat(match.group(1).replace("Z", "+00:00"))
            except ValueError:
                continue
            state.tool_running = False
        elif kind == "evaluated":
            state.tool_running, state.call_error = True, None
        else:
            error = _LOGGED_ERROR.search(match.group(3))
            state.call_error = error.group(1) if error else "stream error"
    return state


class OpenCodeStream(StreamParser):
    """State of one OpenCode run across its processes."""

    def __init__(self, repo_root, stall_seconds: float | None = None):
        super().__init__(repo_root)
        self.stall_seconds = stall_seconds
        self.loaded: list[str] = []  #: absolute paths of instruction files `read` attached
        self.skills_invoked = []  # a completed `skill` call sent the skill's body
        self._begin_process()

    def _begin_process(self) -> None:
        self.error: dict[str, Any] | None = None
        self.model_spoke = False
        self.broken_steps = 0  #: model answers that ended without a finish reason
        self.log = ""
        self.cost_usd = self.cost_usd  # OpenCode's cost accumulates across processes

    def begin_turn(self, index: int) -> None:
        super().begin_turn(index)
        self._begin_process()

    def handle(self, obj: dict[str, Any]) -> list[dict[str, Any]]:
        kind = obj.get("type")
        part = obj.get("part") if isinstance(obj.get("part"), dict) else {}
        if isinstance(obj.get("sessionID"), str):
            self.session_id = obj["sessionID"]
        if kind == "step_finish":
            self.broken_steps += part.get("reason") == "unknown"
            self._step_finish(part)
        elif kind == "text" and isinstance(part.get("text"), str) and not part.get("synthetic"):
            self.model_spoke = True
            if part["text"].strip():
                self.final_message = part["text"]
                return [{"type": "message", "text": part["text"], "turn": self.turn}]
        elif kind == "tool_use":
            self.model_spoke = True
            return self._tool(part)
        elif kind == "error" and isinstance(obj.get("error"), dict):
            self.error = obj["error"]
        return []

    def _step_finish(self, part: dict[str, Any]) -> None:
        tokens = part.get("tokens") if isinstance(part.get("tokens"), dict) else {}
        cache = tokens.get("cache") if isinstance(tokens.get("cache"), dict) else {}
        cached = count(cache.get("read"))
        # `input` leaves out cache reads and writes; both were sent to the model.
        total_input = count(tokens.get("input")) + cached + count(cache.get("write"))
        self.usage.add(total_input, count(tokens.get("output")) + count(tokens.get("reasoning")), cached)
        cost = part.get("cost")
        if isinstance(cost, (int, float)) and not isinstance(cost, bool) and cost > 0:
            self.cost_usd = (self.cost_usd or 0.0) + float(cost)

    def _tool(self, part: dict[str, Any]) -> list[dict[str, Any]]:
        name = str(part.get("tool") or "?")
        state = part.get("state") if isinstance(part.get("state"), dict) else {}
        args = state.get("input") if isinstance(state.get("input"), dict) else {}
        metadata = state.get("metadata") if isinstance(state.get("metadata"), dict) else {}
        command, path = self.tool_command(name, args, SHELL_TOOL, _PATH_KEYS)
        if name == "skill" and isinstance(args.get("name"), str):
            command = f"skill {args['name']}"  # which skill, for the digest
        failed = state.get("status") != "completed"
        self.tool_calls += 1
        event: dict[str, Any] = {"type": "tool", "tool": name, "command": command, "turn": self.turn}
        if name == SHELL_TOOL:
            exit_code = metadata.get("exit")
            if isinstance(exit_code, int) and not isinstance(exit_code, bool):
                event["exit_code"] = exit_code
        else:
            event["exit_code"] = 1 if failed else 0
        events = [event]
        if path is not None and name == "read":
            self.touch(path)
        if name == "skill" and not failed:
            self.invoked_skill(args.get("name"))
        for loaded in metadata.get("loaded") or [] if name == "read" else []:
            if isinstance(loaded, str) and loaded not in self.loaded:
                self.loaded.append(loaded)
        if not failed:
            events += self._file_changes(name, args, path, metadata)
        return events

    def _file_changes(self, name: str, args: dict[str, Any], path: Any, metadata: dict[str, Any]) -> list[dict[str, Any]]:
        changes: list[tuple[str, str | None]] = []
        if name in _EDIT_TOOLS and path is not None:
            change = _EDIT_TOOLS[name] or ("modify" if metadata.get("exists") else "add")
            changes.append((self.relpath(path), change))
        elif name in ("apply_patch", "patch") and isinstance(args.get("patchText"), str):
            changes += [(self.relpath(m.group(2).strip()), _PATCH_CHANGE[m.group(1)])
                        for m in _PATCH_FILE.finditer(args["patchText"])]
        return [{"type": "file_change", "path": p, "turn": self.turn, **({"change": c} if c else {})}
                for p, c in changes]

    def end_process(self, result: ProcResult) -> tuple[list[dict[str, Any]], Failure | None]:
        self.log = result.stderr or ""
        return [], self._failure(result)

    def _failure(self, result: ProcResult) -> Failure | None:
        if self.error is not None:
            return self._error_failure(self.error)
        if result.exit_code == 0 and not result.timed_out:
            return None
        printed = [line for line in (result.stderr or "").splitlines() if not line.startswith("timestamp=")]
        text = _ANSI.sub("", "\n".join(printed)).strip() or f"exit code {result.exit_code}"
        if "Session not found" in text:
            return Failure("session_lost", text[-300:])
        return classify_error_text(text[-2000:], default="agent_error" if self.model_spoke else "zero_turns")

    def _error_failure(self, error: dict[str, Any]) -> Failure:
        data = error.get("data") if isinstance(error.get("data"), dict) else {}
        name = str(error.get("name") or "")
        text = f"{name}: {data.get('message') or ''}"
        if name in _ERROR_REASON:
            return Failure(_ERROR_REASON[name], text)
        reason = reason_for_http_status(data.get("statusCode"))
        if reason is not None:
            return Failure(reason, text)
        failure = classify_error_text(f"{text} {data.get('responseBody') or ''}",
                                      default="agent_error" if self.model_spoke else "zero_turns")
        # An API error OpenCode retried (a broken stream, a refused connection) is the provider's.
        if failure.reason in ("agent_error", "zero_turns") and data.get("isRetryable") is True:
            return Failure("provider_error", text)
        return failure

    def timeout_failure(self, detail: str) -> Failure:
        """Killed while waiting on the model is the provider's fault: a model call failed and
        is being retried (classified by its error), answers kept ending without a finish
        reason, or a call stayed open for `stall_seconds`. A tool started since the last
        model call is the agent's."""
        state = logged_state(self.log)
        if state.tool_running:
            return Failure("timeout", detail)
        if state.call_error is not None:
            failure = classify_error_text(state.call_error)
            reason = failure.reason if failure.failure_class == "infrastructure" else "provider_error"
            return Failure(reason, f"retrying after: {state.call_error}; {detail}")
        if self.broken_steps >= 2:
            return Failure("provider_error", f"{self.broken_steps} model answers ended unfinished; {detail}")
        if state.call_started is not None and self.stall_seconds is not None:
            waited = (datetime.now(timezone.utc) - state.call_started).total_seconds()
            if waited >= self.stall_seconds:
                return Failure("provider_error", f"model call open for {waited:.0f}s; {detail}")
        return Failure("timeout", detail)
