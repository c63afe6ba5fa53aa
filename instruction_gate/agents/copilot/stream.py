"""Parse `copilot -p … --output-format json` (GitHub Copilot CLI 1.0.102) into protocol events.

Every line is `{type, data, id, timestamp, ephemeral?}`. What the adapter reads:
`tool.execution_start` / `tool.execution_complete` (`toolCallId`, `toolName`, `arguments`;
`success`, `shellExecution.exitCode` for `bash`, `fileEdits` [{path, kind create|edit}],
`error.code` `denied` for a call a permission rule refused),
`assistant.message` (`content`, `model`), `system.notification` of kind
`instruction_discovered` (`sourcePath`, `triggerFile`: an instruction file sent after a tool
opened a file), `model.call_start` / `model.call_finished` / `model.call_failure`
(`statusCode`, `failureKind` api|transport; the CLI then retries, 5 times, backing off) and
`assistant.turn_retry`, `session.error` (`errorType` authentication|query…, `message`,
`statusCode`: the run failed, exit 1) and the closing `result` (`sessionId`, `exitCode`).
A skill the model invokes is a `skill` tool call (`arguments.skill`); its body follows as a
user message. Tokens are not in the stream: they come from the session record (`home.py`).
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any, Callable, Iterable

from instruction_gate.agents.cli_agent import StreamParser, count
from instruction_gate.agents.failures import Failure, classify_error_text, reason_for_http_status
from instruction_gate.proc import ProcResult

SHELL_TOOL = "bash"
SKILL_TOOL = "skill"
_PATH_KEYS = ("path",)
_EDIT_KINDS = {"create": "add", "edit": "modify"}
#: What the CLI prints on stderr when `--resume` names a session it does not have.
_LOST_SESSION = re.compile(r"No session, task, or name matched", re.IGNORECASE)


class CopilotStream(StreamParser):
    """State of one Copilot run across its processes."""

    def __init__(self, repo_root, *, stall_seconds: float | None = None,
                 usage_source: Callable[[str], Iterable[dict[str, Any]]] | None = None,
                 prices_per_mtok: tuple[float, float, float] | None = None):
        super().__init__(repo_root)
        self.stall_seconds = stall_seconds
        self.prices_per_mtok = prices_per_mtok
        self.usage_source = usage_source  #: session id -> its usage records (the session record)
        self.discovered: list[str] = []  #: `sourcePath`s of instruction files sent after start
        self.skills_invoked = []  #: names of skills the `skill` tool loaded
        self.called_model = False  #: any model call started: the start-up instructions were sent
        self._counted_calls: set[str] = set()
        self._begin_process()

    def _begin_process(self) -> None:
        self.open_calls: dict[str, dict[str, Any]] = {}  #: toolCallId -> execution_start data
        self.error: dict[str, Any] | None = None
        self.finished = False
        self.model_spoke = False
        self.call_open_since: float | None = None  #: monotonic time the open model call started
        self.last_failure: dict[str, Any] | None = None  #: a failed model call the CLI may be retrying
        self.tool_running = False  #: a tool call was still open when the process ended

    def begin_turn(self, index: int) -> None:
        super().begin_turn(index)
        self._begin_process()

    def handle(self, obj: dict[str, Any]) -> list[dict[str, Any]]:
        kind = obj.get("type")
        data = obj.get("data") if isinstance(obj.get("data"), dict) else {}
        if kind == "model.call_start":
            self.call_open_since, self.called_model = time.monotonic(), True
        elif kind == "model.call_finished" and data.get("outcome") != "cancelled":
            # A call cancelled by the kill was still waiting on the model; a failed one stays the
            # reason of its retries until a call succeeds.
            self.call_open_since = None
            if data.get("outcome") == "success":
                self.last_failure = None
        elif kind == "model.call_failure":
            self.call_open_since, self.last_failure = None, data
        elif kind == "tool.execution_start" and isinstance(data.get("toolCallId"), str):
            self.open_calls[data["toolCallId"]] = data
        elif kind == "tool.execution_complete":
            return self._tool_done(data)
        elif kind == "assistant.message":
            return self._message(data)
        elif kind == "system.notification":
            self._notification(data)
        elif kind == "session.error":
            self.error = data
        elif kind == "result":
            self.finished = True
            if isinstance(obj.get("sessionId"), str):
                self.session_id = obj["sessionId"]
        return []

    def _message(self, data: dict[str, Any]) -> list[dict[str, Any]]:
        self.model_spoke = True
        if isinstance(data.get("model"), str):
            self.model = data["model"]
        text = data.get("content")
        if not isinstance(text, str) or not text.strip():
            return []
        self.final_message = text
        return [{"type": "message", "text": text, "turn": self.turn}]

    def _notification(self, data: dict[str, Any]) -> None:
        kind = data.get("kind") if isinstance(data.get("kind"), dict) else {}
        source = kind.get("sourcePath")
        if kind.get("type") == "instruction_discovered" and isinstance(source, str) and source not in self.discovered:
            self.discovered.append(source)

    def _tool_done(self, data: dict[str, Any]) -> list[dict[str, Any]]:
        started = self.open_calls.pop(str(data.get("toolCallId")), {})
        name = str(started.get("toolName") or data.get("toolName") or "tool")
        args = started.get("arguments") if isinstance(started.get("arguments"), dict) else {}
        command, path = self._command(name, args)
        self.tool_calls += 1
        success = data.get("success") is True
        shell = data.get("shellExecution") if isinstance(data.get("shellExecution"), dict) else {}
        if name == SHELL_TOOL and isinstance(shell.get("exitCode"), int):
            exit_code = shell["exitCode"]
        else:
            exit_code = 0 if success else 1
        error = data.get("error") if isinstance(data.get("error"), dict) else {}
        if error.get("code") == "denied":  # a permission rule (`--deny-tool`, a path) refused it: it never ran
            reason = str(error.get("message") or "denied")
            return [{"type": "tool", "command": command, "tool": name, "turn": self.turn, "refused": reason},
                    {"type": "policy", "name": "permission_denied", "tool": name, "command": command,
                     "reason": reason, "turn": self.turn}]
        events: list[dict[str, Any]] = [{"type": "tool", "command": command, "tool": name,
                                         "exit_code": exit_code, "turn": self.turn}]
        if path is not None:
            self.touch(path)
        if name == SKILL_TOOL and success:  # an unknown name is an error result: nothing was sent
            self.invoked_skill(args.get("skill"))
        for edit in data.get("fileEdits") or [] if success else []:
            if isinstance(edit, dict) and isinstance(edit.get("path"), str):
                change = _EDIT_KINDS.get(str(edit.get("kind")))
                events.append({"type": "file_change", "path": self.relpath(edit["path"]), "turn": self.turn,
                               **({"change": change} if change else {})})
        return events

    def _command(self, name: str, args: dict[str, Any]) -> tuple[str, Any]:
        if name == SKILL_TOOL and isinstance(args.get("skill"), str):
            return f"skill {args['skill']}", None
        return self.tool_command(name, args, SHELL_TOOL, _PATH_KEYS)

    def end_process(self, result: ProcResult) -> tuple[list[dict[str, Any]], Failure | None]:
        events = []
        # Calls the CLI started but never finished (it was killed): they ran, without a known exit.
        for call in self.open_calls.values():
            args = call.get("arguments") if isinstance(call.get("arguments"), dict) else {}
            command, _ = self._command(str(call.get("toolName") or "tool"), args)
            self.tool_calls += 1
            events.append({"type": "tool", "command": command, "tool": call.get("toolName"), "turn": self.turn})
        self._count_usage()
        self.tool_running = bool(self.open_calls)
        self.open_calls = {}
        return events, self._failure(result)

    def _count_usage(self) -> None:
        if self.usage_source is None or not self.session_id:
            return
        for usage in self.usage_source(self.session_id):
            call = str(usage.get("apiCallId") or (usage.get("accounting") or {}).get("usageId") or "")
            if not call or call in self._counted_calls:
                continue  # a resumed process's record repeats the earlier calls
            self._counted_calls.add(call)
            # `inputTokens` already holds the cached ones (`cacheReadTokens`), as the provider reported.
            self.usage.add(input_tokens=count(usage.get("inputTokens")), output_tokens=count(usage.get("outputTokens")),
                           cached_input_tokens=count(usage.get("cacheReadTokens")))
        if self.prices_per_mtok is not None and self.usage.input_tokens is not None:
            self.cost_usd = self.usage.cost_usd(self.prices_per_mtok)

    def _failure(self, result: ProcResult) -> Failure | None:
        default = "agent_error" if self.model_spoke else "zero_turns"
        if self.error is not None:
            return self._error_failure(self.error, default)
        if result.timed_out:
            return None  # timeout_failure decides
        if self.finished and result.exit_code == 0:
            return None
        text = (result.stderr or "").strip() or f"exit code {result.exit_code}"
        if _LOST_SESSION.search(text):
            return Failure("session_lost", text[-300:])
        if result.exit_code == 0:
            return Failure(default, "the CLI exited without a result event")
        return classify_error_text(text[-2000:], default=default)

    @staticmethod
    def _error_failure(error: dict[str, Any], default: str) -> Failure:
        message = str(error.get("message") or "")
        text = f"{error.get('errorType') or 'error'}: {message}"
        if error.get("errorType") == "authentication":
            return Failure("auth_failed", text)
        reason = reason_for_http_status(error.get("statusCode"))
        if reason is not None:
            return Failure(reason, text)
        # The CLI gave up after retrying a call it could not read (garbage, a cut stream, a refused
        # connection): the provider's. A 400 (an oversized prompt) carries its status: the agent's.
        if error.get("statusCode") is None and message.startswith("Failed to get response from the AI model"):
            return Failure("provider_error", text)
        return classify_error_text(text, default=default)

    def timeout_failure(self, detail: str) -> Failure:
        """Killed while waiting on the model is the provider's fault: a failed call the CLI is
        retrying (classified by its status) or a call open for `stall_seconds`. A tool still
        running is the agent's."""
        if self.tool_running:
            return Failure("timeout", detail)
        if self.last_failure is not None:
            reason = reason_for_http_status(self.last_failure.get("statusCode")) or "provider_error"
            return Failure(reason, f"retrying after: {self.last_failure.get('errorMessage') or 'a failed call'}; {detail}")
        if self.call_open_since is not None and self.stall_seconds is not None:
            waited = time.monotonic() - self.call_open_since
            if waited >= self.stall_seconds:
                return Failure("provider_error", f"model call open for {waited:.0f}s; {detail}")
        return Failure("timeout", detail)
