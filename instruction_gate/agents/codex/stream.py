"""Parse `codex exec --json` output into protocol events.

The stream: `thread.started` (thread_id), `turn.started`, `item.started|updated|completed`
(item types agent_message, reasoning, command_execution, file_change, mcp_tool_call,
collab_tool_call, web_search, todo_list, plan, error), then `turn.completed` (usage) or
`turn.failed` (error), and top-level `error` events; `codex exec` runs one turn per process.
The first releases of this format (autumn 2025) spell the item type `item_type` and call
agent messages `assistant_message`. `turn.completed.usage` holds the thread's running totals
(kept across `codex exec resume`), so each report is turned into a delta against the previous one; its
`output_tokens` already include `reasoning_output_tokens`. An all-zero report means Codex saw
no usage update and is skipped. `codex exec resume` with an unknown id silently starts a new
thread: a resumed turn that reports another thread id lost its session. A command Codex's
sandbox could not start prints no item at all: those come from the session record (`rollout.py`).

Checked against recorded output: the event order, item fields, shell wrappers, running totals
across resumed turns, error and `turn.failed` shapes. From the published event definitions
only (not yet seen recorded): collab_tool_call items, `declined` commands, web searches that
carry an `action` instead of a query.
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path, PurePath
from typing import Any

from instruction_gate.agents.cli_agent import StreamParser, count
from instruction_gate.agents.skills import Skill, skill_files, skill_named
from instruction_gate.agents.codex import rollout
from instruction_gate.agents.failures import Failure, classify_error_text
from instruction_gate.proc import ProcResult

_CHANGE_KIND = {"add": "add", "delete": "delete", "update": "modify"}
_SHELLS = {"bash", "sh", "zsh", "dash"}
_USAGE_FIELDS = ("input_tokens", "output_tokens", "cached_input_tokens")
#: `$name` in a prompt: Codex's explicit skill mention.
_SKILL_MENTION = re.compile(r"(?<![\w$])\$([A-Za-z0-9][A-Za-z0-9_.:-]*[A-Za-z0-9])")
_SKILL_PATH = re.compile(r"[^\s'\"<>|;&]*SKILL\.md")
#: A command Codex refused before running it (its safety check under `exec`'s forced approval
#: policy): no JSONL item, only this stderr line, e.g. `… error=exec_command failed:
#: CreateProcess { message: "Rejected(\"`/bin/bash -lc 'rm -rf x'` rejected: rm -f style …\")" }`.
_REJECTED = re.compile(r'Rejected\(\\?"`(?P<command>.+?)` rejected: (?P<why>[^"\\\n]*)')


def unwrap_shell(command: str) -> str:
    """`bash -lc 'pytest -q'` -> `pytest -q`: gates match what the agent meant to run."""
    try:
        parts = shlex.split(command)
    except ValueError:
        return command
    if len(parts) == 3 and PurePath(parts[0]).name in _SHELLS and parts[1] in ("-c", "-lc"):
        return parts[2]
    return command


def _search_target(item: dict[str, Any]) -> str:
    """The query, or for page actions (newer releases) the page the agent opened."""
    action = item.get("action") if isinstance(item.get("action"), dict) else {}
    for value in (item.get("query"), action.get("query"), action.get("url")):
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""


class CodexStream(StreamParser):
    """State of one Codex run across its `codex exec` and `codex exec resume` processes."""

    def __init__(self, repo_root, cumulative_usage: bool = True,
                 prices_per_mtok: tuple[float, float, float] | None = None, workspace: Any = None,
                 codex_home: Any = None, turn_count: int = 1):
        super().__init__(repo_root)
        #: The cwd: which project skills Codex lists (`agents/skills.py`), and what a command's
        #: relative path is relative to.
        self.workspace = Path(os.path.realpath(workspace)) if workspace is not None else self.repo_root
        self._skills: list[Skill] | None = None
        self.skills_invoked = []  # `$name` in a prompt, or a command that read a listed SKILL.md
        self.cumulative_usage = cumulative_usage
        self.prices_per_mtok = prices_per_mtok
        self._last_totals: tuple[int, int, int] | None = None
        self._thread_changed = False  # a resumed turn started a thread other than the run's
        self._open_commands: dict[str, str] = {}  # item id -> command, started but not completed
        self._done_items: set[str] = set()
        self.codex_home = codex_home  #: where Codex keeps its session record (`rollout.py`)
        self._rollout_read: dict[Path, int] = {}  # session file -> bytes already read
        self.turn_count = turn_count
        self._sandbox_broken: str | None = None  # a command Codex's own sandbox could not start
        self._reset_process()

    def _reset_process(self) -> None:
        # Item ids restart at item_0 in every `codex exec resume` process: dedupe per process.
        self._done_items.clear()
        self._reported: list[str] = []  # shell commands this process's stream reported
        self.events_after_start = 0  # events seen since turn.started (0: the provider never answered)
        self.turn_started = False
        self.turn_completed = False
        self.turn_error: str | None = None  # turn.failed message
        self.last_error: str | None = None  # top-level error event message

    # -- events -----------------------------------------------------------------------
    def handle(self, obj: dict[str, Any]) -> list[dict[str, Any]]:
        kind = obj.get("type")
        if self.turn_started:
            self.events_after_start += 1
        if kind in ("thread.started", "thread.resumed") and isinstance(obj.get("thread_id"), str):
            self._start_thread(obj["thread_id"])
        elif kind == "turn.started":
            self.turn_started = True
        elif kind == "turn.completed":
            self.turn_completed = True
            self._add_usage(obj.get("usage"))
        elif kind == "turn.failed":
            error = obj.get("error")
            self.turn_error = str(error.get("message", "")) if isinstance(error, dict) else str(error or "")
        elif kind == "error":
            self.last_error = str(obj.get("message") or "")
        elif kind in ("item.started", "item.updated", "item.completed") and isinstance(obj.get("item"), dict):
            return self._item(obj["item"], completed=kind == "item.completed")
        return []

    def _start_thread(self, thread_id: str) -> None:
        if self.session_id is not None and thread_id != self.session_id:
            # Another thread has its own counters; on a resumed turn the context is gone too.
            self._last_totals = None
            self._thread_changed = self.turn > 0
        self.session_id = thread_id

    def _add_usage(self, usage: Any) -> None:
        if not isinstance(usage, dict):
            return
        totals = tuple(count(usage.get(f)) for f in _USAGE_FIELDS)
        if not any(totals):
            return  # Codex reports zeros when it saw no usage update: no new baseline
        previous = self._last_totals
        if self.cumulative_usage and previous and all(t >= p for t, p in zip(totals, previous)):
            delta = tuple(t - p for t, p in zip(totals, previous))
        else:  # first report, per-turn reporting, or counters restarted: all of it is new
            delta = totals
        self._last_totals = totals
        self.usage.add(*delta)
        if self.prices_per_mtok is not None:
            self.cost_usd = self.usage.cost_usd(self.prices_per_mtok)

    def _item(self, item: dict[str, Any], completed: bool) -> list[dict[str, Any]]:
        item_id = str(item.get("id", ""))
        item_type = item.get("type") or item.get("item_type")
        if item_type == "command_execution" and isinstance(item.get("command"), str):
            if item.get("status") == "declined":  # refused by the approval policy: never ran
                self._open_commands.pop(item_id, None)
                command = unwrap_shell(item["command"])
                return self._once(item_id, self._command_event(item["command"], None),
                                  {"type": "policy", "name": "permission_denied", "tool": "shell",
                                   "command": command, "turn": self.turn})
            if not completed:
                self._open_commands[item_id] = item["command"]
                return []
            self._open_commands.pop(item_id, None)
            if item.get("exit_code") == 0:
                self._skill_reads(unwrap_shell(item["command"]))
            return self._once(item_id, self._command_event(item["command"], item.get("exit_code")))
        if not completed:
            return []
        if item_type in ("agent_message", "assistant_message") and isinstance(item.get("text"), str):
            self.final_message = item["text"]
            return [{"type": "message", "text": item["text"], "turn": self.turn}]
        if item_type == "file_change":
            return self._once(item_id, *self._file_changes(item))
        if item_type == "mcp_tool_call":
            name = f"{item.get('server', '?')}/{item.get('tool', '?')}"
            failed = item.get("status") == "failed" or bool(item.get("error"))
            return self._once(item_id, {"type": "tool", "tool": "mcp", "command": name,
                                        "exit_code": 1 if failed else 0, "turn": self.turn})
        if item_type == "collab_tool_call":  # sub-agent management (spawn_agent, send_input, ...)
            failed = item.get("status") == "failed"
            return self._once(item_id, {"type": "tool", "tool": "collab", "command": str(item.get("tool", "?")),
                                        "exit_code": 1 if failed else 0, "turn": self.turn})
        if item_type == "web_search":
            return self._once(item_id, {"type": "tool", "tool": "web_search",
                                        "command": f"web_search {_search_target(item)}".strip(),
                                        "turn": self.turn})
        return []  # reasoning, todo_list, plan, non-fatal error items and unknown types

    def _once(self, item_id: str, *events: dict[str, Any]) -> list[dict[str, Any]]:
        """Each item is reported once, even if a CLI repeats its completion."""
        if item_id and item_id in self._done_items:
            return []
        self._done_items.add(item_id)
        self.tool_calls += 1
        self._reported += [e["command"] for e in events if e.get("tool") == "shell"]
        return list(events)

    def _command_event(self, command: str, exit_code: Any) -> dict[str, Any]:
        event = {"type": "tool", "tool": "shell", "command": unwrap_shell(command), "turn": self.turn}
        if isinstance(exit_code, int) and not isinstance(exit_code, bool):
            event["exit_code"] = exit_code
        return event

    def _file_changes(self, item: dict[str, Any]) -> list[dict[str, Any]]:
        if item.get("status") == "failed":
            return []  # the patch did not apply: nothing changed
        events = []
        for change in item.get("changes") or []:
            if isinstance(change, dict) and isinstance(change.get("path"), str):
                path = self.relpath(change["path"])
                self.touch(path)
                event = {"type": "file_change", "path": path, "turn": self.turn}
                if change.get("kind") in _CHANGE_KIND:
                    event["change"] = _CHANGE_KIND[change["kind"]]
                events.append(event)
        return events

    # -- process end ------------------------------------------------------------------
    def end_process(self, result: ProcResult) -> tuple[list[dict[str, Any]], Failure | None]:
        # Commands that started but never completed still ran: command gates must see them.
        events = [self._command_event(cmd, None) for cmd in self._open_commands.values()]
        self.tool_calls += len(events)
        self._open_commands.clear()
        for match in _REJECTED.finditer(result.stderr or ""):
            self.tool_calls += 1
            refused = self._command_event(match.group("command"), None)
            events += [refused,
                       {"type": "policy", "name": "permission_denied", "tool": "shell",
                        "command": refused["command"], "reason": match.group("why").strip(), "turn": self.turn}]
        self._reported += [e["command"] for e in events if e.get("type") == "tool"]
        events += self._unstreamed_commands()
        return events, self._process_failure(result)

    def _unstreamed_commands(self) -> list[dict[str, Any]]:
        """Shell calls of this process's turn that the session record holds and the stream did
        not report (Codex streams no item for a command its sandbox could not start), as events
        of this turn."""
        path = rollout.session_file(self.codex_home, self.session_id)
        if path is None:
            return []
        calls, self._rollout_read[path] = rollout.read_shell_calls(path, self._rollout_read.get(path, 0))
        events = []
        for call in rollout.unstreamed(calls, self._reported, unwrap_shell):
            command = unwrap_shell(call.command)
            # The agent can write to the record: what only the record shows never counts as a
            # command that ran (so it can satisfy no required command).
            if call.not_started:
                why = f"Codex's sandbox could not start it: {call.not_started}"
                self._sandbox_broken = self._sandbox_broken or f"`{command}`: {call.not_started}"
            else:
                why = f"in Codex's session record only (exit code {call.exit_code}), not in its stream"
            events.append({**self._command_event(command, None), "refused": why})
        self.tool_calls += len(events)
        return events

    def begin_turn(self, index: int) -> None:
        super().begin_turn(index)
        self._reset_process()

    # -- skills -----------------------------------------------------------------------
    def listed_skills(self) -> list[Skill]:
        if self._skills is None:
            self._skills = skill_files(self.repo_root, "codex", self.workspace)
        return self._skills

    def sent_prompt(self, prompt: str) -> None:
        """Codex sends a listed skill's whole SKILL.md along with a prompt naming it `$name`;
        no stream event shows it (checked on 0.171.0)."""
        for match in _SKILL_MENTION.finditer(prompt):
            skill = skill_named(self.listed_skills(), match.group(1))
            if skill is not None:
                self.invoked_skill(skill.listed_name)

    def _skill_reads(self, command: str) -> None:
        """A command that succeeded naming a listed skill's SKILL.md (`cat`, `sed -n`, ...):
        Codex's own way to load a skill is the model reading that file."""
        for token in _SKILL_PATH.findall(command):
            target = Path(os.path.normpath(self.workspace / token))
            for skill in self.listed_skills():
                if target == self.repo_root / skill.path or (
                        not token.startswith(("/", ".")) and (self.repo_root / skill.path).as_posix().endswith("/" + token)):
                    self.invoked_skill(skill.listed_name)

    def timeout_failure(self, detail: str) -> Failure:
        """Killed at the deadline. Codex prints nothing while a request waits for response
        headers, so silence after `turn.started` means the provider never answered."""
        if self.turn_started and self.events_after_start == 0:
            return Failure("provider_error", f"no answer from the provider after turn.started; {detail}")
        return Failure("timeout", detail)

    def _process_failure(self, result: ProcResult) -> Failure | None:
        if self._thread_changed:
            self._thread_changed = False
            return Failure("session_lost", f"resumed turn ran in a new thread {self.session_id}")
        if self.turn_error is not None:
            return classify_error_text(self.turn_error)
        if self.turn_completed:
            if result.exit_code not in (0, None) and not result.timed_out:
                return classify_error_text(self.last_error or result.stderr or "non-zero exit")
            if self._sandbox_broken is not None and self.turn >= self.turn_count - 1:
                # Codex itself printed no item for the command, so no agent output can pose as this:
                # whatever the instructions, commands could not run here. Every turn still ran, so
                # each turn's commands are on record. (Inside another sandbox: sandbox=danger-full-access.)
                return Failure("sandbox_error", f"Codex's sandbox could not start {self._sandbox_broken}")
            return None
        # No terminal turn event: a failure whatever the exit code. Before any turn started
        # the model was never reached; after, the agent's own actions may have ended the CLI.
        text = self.last_error or result.stderr or "no turn.completed event"
        return classify_error_text(text, default="agent_error" if self.turn_started else "zero_turns")
