"""Parse `claude -p --output-format stream-json --verbose` output into protocol events.

The stream: `system` (subtype `init`: session_id, model, tools, claude_code_version),
`assistant` messages whose content blocks are text, thinking or `tool_use`, `user` messages
carrying `tool_result` blocks, and one closing `result` (subtype success / error_max_turns /
error_max_budget_usd / error_during_execution / ..., is_error, num_turns, result, errors,
total_cost_usd, usage, modelUsage, permission_denials, api_error_status). Other types
(`rate_limit_event`, `stream_event`, further `system` subtypes) are ignored.

One API message arrives as several `assistant` events that repeat its id and usage, so usage
is counted once per message id; those sums equal the result's `usage`, which covers the main
model only. `modelUsage` adds every model the process called (auxiliary and sub-agent calls
that never appear as messages) and matches `total_cost_usd`, so when present it is the
process's token count. Each `claude -p` process reports its own cost, resumed or not, so costs
add up over the turns. API failures arrive as a synthetic assistant message with a top-level
`error` (authentication_failed, billing_error, rate_limit, invalid_request, server_error,
unknown) and a result with `is_error: true`, often under subtype `success`.

Checked against recorded output: the event order, repeated message usage, result fields with
`modelUsage`, permission denials and API-error messages. From the published SDK types only (not
yet seen recorded): `error_max_budget_usd` results and the `billing_error` kind.
"""

from __future__ import annotations

import re
import time
from typing import Any

from instruction_gate.agents.cli_agent import StreamParser, count
from instruction_gate.agents.failures import Failure, classify_error_text, reason_for_http_status
from instruction_gate.proc import ProcResult

#: Tools whose input names a file the agent edits, and the change they make.
_EDIT_TOOLS = {"Edit": "modify", "MultiEdit": "modify", "NotebookEdit": "modify", "Write": None}
_PATH_KEYS = ("file_path", "notebook_path", "path")
_RESULT_SUBTYPES = {"error_max_turns": "max_turns", "error_max_budget_usd": "budget_exceeded"}
_EXIT_CODE = re.compile(r"^Exit code (\d+)")
#: The `error` of a synthetic assistant message -> failure reason. invalid_request and unknown
#: are left to the text: an oversized prompt (the candidate's doing) is an invalid request.
_API_ERRORS = {"authentication_failed": "auth_failed", "rate_limit": "rate_limited",
               "billing_error": "rate_limited", "server_error": "provider_error"}


def _usage_triple(usage: dict[str, Any]) -> tuple[int, int, int]:
    """(input incl. cache reads and writes, output, cache reads), matching Codex's meaning."""
    cached = count(usage.get("cache_read_input_tokens"))
    total_input = count(usage.get("input_tokens")) + count(usage.get("cache_creation_input_tokens")) + cached
    return total_input, count(usage.get("output_tokens")), cached


def _model_usage_triple(model_usage: Any) -> tuple[int, int, int] | None:
    """The same triple summed over the result's per-model `modelUsage`, or None if absent."""
    if not isinstance(model_usage, dict) or not model_usage:
        return None
    rows = [row for row in model_usage.values() if isinstance(row, dict)]
    cached = sum(count(row.get("cacheReadInputTokens")) for row in rows)
    total_input = cached + sum(count(row.get("inputTokens")) + count(row.get("cacheCreationInputTokens"))
                               for row in rows)
    return total_input, sum(count(row.get("outputTokens")) for row in rows), cached


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return ""


class ClaudeStream(StreamParser):
    """State of one Claude Code run across its `claude -p` and `--resume` processes."""

    def __init__(self, repo_root, stall_seconds: float | None = None, cumulative_resume: bool = True):
        super().__init__(repo_root)
        #: Silence longer than this (the CLI's request timeout) before a kill means a hung provider.
        self.stall_seconds = stall_seconds
        #: A resumed process reports the session's running totals (2.1.3xx), not its own.
        self.cumulative_resume = cumulative_resume
        self._session_totals: tuple[tuple[int, int, int], float] | None = None  # previous process's report
        self.harness_version: str | None = None
        self._pending: dict[str, dict[str, Any]] = {}  # tool_use id -> tool event awaiting its result
        self._edits: dict[str, dict[str, Any]] = {}  # tool_use id -> file_change event
        self._seen_tools: set[str] = set()
        self._skills: dict[str, str] = {}  # tool_use id of a `Skill` call -> the skill's name
        self.skills_invoked = []  # a `Skill` call the CLI answered sends the skill's body
        self._reset_process()

    def _reset_process(self) -> None:
        self.retry_status: Any = None  # error_status of the last api_retry not followed by a message
        self.retries = 0
        self.last_event_at = time.monotonic()
        self._tools_running = False
        self.result: dict[str, Any] | None = None
        self.assistant_seen = False
        self.api_error: str | None = None  # `error` of a synthetic assistant message
        self._message_usage: dict[str, tuple[int, int, int]] = {}

    def handle(self, obj: dict[str, Any]) -> list[dict[str, Any]]:
        kind = obj.get("type")
        self.last_event_at = time.monotonic()
        if kind == "system" and obj.get("subtype") == "api_retry":
            # The CLI is retrying a failed API call (its own budget: CLAUDE_CODE_MAX_RETRIES).
            self.retries += 1
            self.retry_status = obj.get("error_status") or "unknown"
        elif kind == "system" and obj.get("subtype") == "init":
            self.session_id = obj.get("session_id") if isinstance(obj.get("session_id"), str) else self.session_id
            self.model = obj.get("model") if isinstance(obj.get("model"), str) else self.model
            version = obj.get("claude_code_version")
            self.harness_version = version if isinstance(version, str) else self.harness_version
        elif kind == "assistant" and isinstance(obj.get("message"), dict):
            if isinstance(obj.get("error"), str):
                # Claude Code's own report of a failed API call, not a model turn.
                self.api_error = obj["error"]
                return []
            return self._assistant(obj["message"])
        elif kind == "user" and isinstance(obj.get("message"), dict):
            return self._tool_results(obj["message"].get("content"))
        elif kind == "result":
            return self._result(obj)
        return []

    def _assistant(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        self.assistant_seen = True
        self.retry_status = None
        usage = message.get("usage")
        if isinstance(usage, dict):
            key = str(message.get("id") or f"anonymous-{len(self._message_usage)}")
            old = self._message_usage.get(key, (0, 0, 0))
            self._message_usage[key] = tuple(max(a, b) for a, b in zip(old, _usage_triple(usage)))  # type: ignore[assignment]
        events: list[dict[str, Any]] = []
        for block in message.get("content") or []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text" and isinstance(block.get("text"), str) and block["text"].strip():
                self.final_message = block["text"]
                events.append({"type": "message", "text": block["text"], "turn": self.turn})
            elif block.get("type") == "tool_use":
                self._tool_use(block)
        return events

    def _tool_use(self, block: dict[str, Any]) -> None:
        tool_id = str(block.get("id") or f"anonymous-{len(self._seen_tools)}")
        if tool_id in self._seen_tools:
            return
        self._seen_tools.add(tool_id)
        self.tool_calls += 1
        name = str(block.get("name") or "?")
        args = block.get("input") if isinstance(block.get("input"), dict) else {}
        command, path = self.tool_command(name, args, "Bash", _PATH_KEYS)
        if path is not None:
            self.touch(path)
        self._pending[tool_id] = {"type": "tool", "tool": name, "command": command, "turn": self.turn}
        if name == "Skill" and isinstance(args.get("skill"), str):
            self._skills[tool_id] = args["skill"]
            self._pending[tool_id]["command"] = f"Skill {args['skill']}"  # which skill, for the digest
        if name in _EDIT_TOOLS and path is not None:
            edit = {"type": "file_change", "path": self.relpath(path), "turn": self.turn}
            if _EDIT_TOOLS[name]:
                edit["change"] = _EDIT_TOOLS[name]
            self._edits[tool_id] = edit

    def _tool_results(self, content: Any) -> list[dict[str, Any]]:
        events: list[dict[str, Any]] = []
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict) or block.get("type") != "tool_result":
                continue
            tool_id = str(block.get("tool_use_id"))
            event = self._pending.pop(tool_id, None)
            if event is None:
                continue
            failed = bool(block.get("is_error"))
            skill = self._skills.pop(tool_id, None)
            if skill is not None and not failed:  # an unknown name is an error result: nothing sent
                self.invoked_skill(skill)
            if event["tool"] == "Bash":
                code = _EXIT_CODE.match(_result_text(block.get("content")).strip())
                event["exit_code"] = int(code.group(1)) if code else (1 if failed else 0)
            else:
                event["exit_code"] = 1 if failed else 0
            events.append(event)
            edit = self._edits.pop(tool_id, None)
            if edit is not None and not failed:
                events.append(edit)
        return events

    def _result(self, obj: dict[str, Any]) -> list[dict[str, Any]]:
        self.result = obj
        if isinstance(obj.get("session_id"), str):
            self.session_id = obj["session_id"]
        if isinstance(obj.get("result"), str) and obj["result"].strip() and not obj.get("is_error"):
            self.final_message = obj["result"]
        events = []
        for denial in obj.get("permission_denials") or []:
            if isinstance(denial, dict):
                args = denial.get("tool_input") if isinstance(denial.get("tool_input"), dict) else {}
                event = {"type": "policy", "name": "permission_denied", "tool": str(denial.get("tool_name", "?")),
                         "turn": self.turn}
                if isinstance(args.get("command"), str):
                    event["command"] = args["command"]
                events.append(event)
        return events

    def end_process(self, result: ProcResult) -> tuple[list[dict[str, Any]], Failure | None]:
        self._tools_running = bool(self._pending)
        if self.result is not None:
            # A closing result with tool_use blocks still open (a max-turns or budget stop):
            # the CLI never ran them.
            self.tool_calls -= len(self._pending)
            events = []
        else:  # the CLI died or was killed while they ran: they still happened
            events = list(self._pending.values())
        self._pending.clear()
        self._edits.clear()
        self._settle_usage()
        return events, self._process_failure(result)

    def begin_turn(self, index: int) -> None:
        super().begin_turn(index)
        self._reset_process()

    def timeout_failure(self, detail: str) -> Failure:
        """Killed at the deadline while retrying an API error, or after the provider went
        silent for longer than the CLI's request timeout: the provider's fault."""
        if self.retry_status is not None:
            reason = reason_for_http_status(self.retry_status) or "provider_error"
            return Failure(reason, f"{self.retries} API retries (last status {self.retry_status}); {detail}")
        silent = time.monotonic() - self.last_event_at
        # A tool still running (a slow test, `sleep 999`) is the agent's time, however quiet.
        if self.stall_seconds is not None and silent >= self.stall_seconds and not self._tools_running:
            return Failure("provider_error", f"no output for {silent:.0f}s, over the request timeout; {detail}")
        return Failure("timeout", detail)

    def _settle_usage(self) -> None:
        """This process's tokens and cost. Tokens: `modelUsage` (every model called), else the
        result's `usage`, else the per-message sums (the assistant events carry only
        `message_start`'s usage: a floor). A resumed process reports the session's running
        totals, so only its increase over the previous report is new."""
        final = self.result or {}
        triple = _model_usage_triple(final.get("modelUsage"))
        if triple is None and isinstance(final.get("usage"), dict):
            triple = _usage_triple(final["usage"])
        if triple is None and self._message_usage:
            triple = tuple(sum(column) for column in zip(*self._message_usage.values()))  # type: ignore[assignment]
        cost = final.get("total_cost_usd")
        cost = float(cost) if isinstance(cost, (int, float)) and not isinstance(cost, bool) else None
        if triple is None or not any(triple):
            triple = (0, 0, 0)
        previous = self._session_totals if self.turn > 0 and self.cumulative_resume else None
        new_triple, new_cost = triple, cost
        if previous is not None and all(t >= p for t, p in zip(triple, previous[0])):
            new_triple = tuple(t - p for t, p in zip(triple, previous[0]))  # type: ignore[assignment]
            if cost is not None and cost >= previous[1]:
                new_cost = cost - previous[1]
        if self.result is not None:
            self._session_totals = (triple, cost or 0.0)
        if any(new_triple):
            self.usage.add(*new_triple)
        if new_cost is not None:
            self.cost_usd = (self.cost_usd or 0.0) + new_cost

    def _process_failure(self, result: ProcResult) -> Failure | None:
        final = self.result
        if final is None and self.retry_status is not None:
            return Failure(reason_for_http_status(self.retry_status) or "provider_error",
                           f"ended while retrying an API error (status {self.retry_status})")
        if final is None:
            text = result.stderr or "no result event"
            return self._api_failure(text) or classify_error_text(
                text, default="agent_error" if self.assistant_seen else "zero_turns")
        subtype = str(final.get("subtype") or "")
        if subtype in _RESULT_SUBTYPES:
            return Failure(_RESULT_SUBTYPES[subtype], subtype)
        if subtype == "success" and not final.get("is_error"):
            return None
        # is_error counts even under subtype "success": the CLI reports API errors that way.
        errors = final.get("errors") if isinstance(final.get("errors"), list) else []
        text = " ".join(str(x) for x in (final.get("result"), *errors, subtype) if x)
        status_reason = reason_for_http_status(final.get("api_error_status"))
        if status_reason is not None:
            return Failure(status_reason, text)
        no_turns = final.get("num_turns") == 0 or not self.assistant_seen
        return self._api_failure(text) or classify_error_text(text, default="zero_turns" if no_turns else "agent_error")

    def _api_failure(self, text: str) -> Failure | None:
        reason = _API_ERRORS.get(self.api_error or "")
        return Failure(reason, text) if reason else None
