"""Everything a rule may look at in one run, built from the run's events and its captured change.

Fields that an adapter or the capture may be unable to supply are None, and the accessors
raise MissingEvidence for them, so a rule that needs them ends undetermined instead of
guessing. Every item of the trajectory keeps its position in the event stream, which is how
ordering rules ("tests after the last edit") compare items of different kinds.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field, replace
from typing import Any, Iterable

from instruction_gate.rules.completion import incomplete_reason


class MissingEvidence(Exception):
    """Raised by a precondition or post-condition when the run lacks what it needs."""


#: Tool names (lower case) whose events read the file named in `path` or after the tool name.
READ_TOOLS = frozenset({"read", "read_file", "view", "open", "open_file", "notebookread"})
#: Exit codes a shell gives a command that never started: not executable, not found.
NOT_RUN_EXIT_CODES = frozenset({126, 127})
#: Shell programs that read the files given as arguments.
READ_PROGRAMS = frozenset({"cat", "head", "tail", "less", "more", "sed", "grep", "rg", "nl", "bat", "awk", "view"})


@dataclass(frozen=True)
class Command:
    """A `tool` event. `text` is what command-pattern rules match ('' when the event has none)."""

    text: str
    position: int
    turn: int | None
    exit_code: int | None = None
    tool: str | None = None
    path: str | None = None
    refused: bool = False  #: the adapter or the agent's own policy declined to start it

    @property
    def ran(self) -> bool:
        """Whether the command actually started: not refused, and not the shell's 126 (not
        executable) or 127 (not found), which say the program never ran."""
        return not self.refused and self.exit_code not in NOT_RUN_EXIT_CODES

    def unfinished(self, pattern: str | None = None) -> str | None:
        """Why a command that ran (as the match for `pattern`) did not run to completion — killed
        by a signal or a timeout, or a test runner that ran no test (completion.py) — or None.
        A forbidden command that crashed still ran; a required one asked for a finished run."""
        return incomplete_reason(self.text, self.exit_code, pattern) if self.ran else None

    @property
    def completed(self) -> bool:
        """Ran, and nothing says it stopped before its end (no exit code is no such evidence)."""
        return self.ran and self.unfinished() is None


@dataclass(frozen=True)
class PolicyEvent:
    name: str
    position: int
    turn: int | None
    data: dict[str, Any] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class FileChange:
    path: str
    position: int
    turn: int | None
    change: str | None = None  #: add, modify, delete or None when the adapter does not say


@dataclass(frozen=True)
class Commit:
    sha: str
    message: str

    @property
    def subject(self) -> str:
        return self.message.split("\n", 1)[0]


@dataclass(frozen=True)
class RunBundle:
    """One run (or one turn of it) as rules see it."""

    commands: tuple[Command, ...] = ()
    policy_events: tuple[PolicyEvent, ...] = ()
    file_changes: tuple[FileChange, ...] = ()
    messages: tuple[tuple[str, int | None], ...] = ()  #: (text, turn)
    final_message: str | None = None
    edited_files: tuple[str, ...] | None = ()
    created: dict[str, bytes | None] | None = field(default_factory=dict)  #: created path -> bytes (None: unreadable)
    additions: int | None = 0
    deletions: int | None = 0
    commits: tuple[Commit, ...] | None = None
    instruction_sources: frozenset[str] | None = frozenset()
    turn_count: int = 1  #: prompts the task gives (first turn plus `turns`)
    turns_known: bool = True  #: every event can be placed in a turn
    turns_reached: int = 1
    turn: int | None = None  #: set on a per-turn view

    # -- accessors that refuse to guess ----------------------------------------------
    def edited(self) -> tuple[str, ...]:
        if self.edited_files is None:
            raise MissingEvidence("edited files are unknown")
        return self.edited_files

    def created_files(self) -> dict[str, bytes | None]:
        if self.created is None:
            raise MissingEvidence("created files were not captured")
        return self.created

    def commit_list(self) -> tuple[Commit, ...]:
        if self.commits is None:
            raise MissingEvidence("commits could not be read")
        return self.commits

    def sources(self) -> frozenset[str]:
        if self.instruction_sources is None:
            raise MissingEvidence("the adapter reported no instruction sources")
        return self.instruction_sources

    def response(self) -> str:
        if self.final_message is None:
            raise MissingEvidence("no final message")
        return self.final_message

    def reads(self) -> list[tuple[str, int]]:
        """(path, position) of every file-reading tool call (shell readers counted approximately)."""
        found = []
        for c in self.commands:
            if c.path and (c.tool or "").lower() in READ_TOOLS:
                found.append((c.path, c.position))
                continue
            try:
                argv = shlex.split(c.text)
            except ValueError:
                continue
            if argv and argv[0] in READ_PROGRAMS:
                found += [(arg.removeprefix("./"), c.position) for arg in argv[1:] if not arg.startswith("-")]
        return found

    # -- per-turn views --------------------------------------------------------------
    def for_turn(self, turn: int) -> "RunBundle":
        """The part of the run that happened in `turn`; final-state fields are narrowed to the
        paths the agent touched in that turn (commits cannot be placed in a turn)."""
        if self.turn_count == 1 and turn == 0:
            return replace(self, turn=0)
        if not self.turns_known:
            raise MissingEvidence("the adapter reported no turn markers")
        if turn >= self.turns_reached:
            raise MissingEvidence(f"turn {turn + 1} was never reached")
        touched = {f.path for f in self.file_changes if f.turn == turn}
        edited = None if self.edited_files is None or (self.edited_files and not self.file_changes) else \
            tuple(p for p in self.edited_files if p in touched)
        created = None if self.created is None or edited is None else \
            {p: data for p, data in self.created.items() if p in touched}
        messages = tuple(m for m in self.messages if m[1] == turn)
        last = turn == self.turn_count - 1
        return replace(
            self, turn=turn, commands=tuple(c for c in self.commands if c.turn == turn),
            policy_events=tuple(e for e in self.policy_events if e.turn == turn),
            file_changes=tuple(f for f in self.file_changes if f.turn == turn), messages=messages,
            final_message=self.final_message if last else (messages[-1][0] if messages else None),
            edited_files=edited, created=created, commits=None, additions=None, deletions=None,
        )

    # -- building --------------------------------------------------------------------
    @classmethod
    def from_events(cls, events: Iterable[dict[str, Any]], turn_count: int = 1, **final_state: Any) -> "RunBundle":
        """Place adapter events (protocol in adapters/README.md) in turns; add the final state."""
        commands, policy, changes, messages = [], [], [], []
        current, marked, reached = 0, False, 1
        result: dict[str, Any] = {}
        for position, event in enumerate(events):
            kind = event.get("type")
            if kind == "turn" and isinstance(event.get("index"), int):
                current, marked = event["index"], True
            own = event.get("turn")
            turn = own if isinstance(own, int) and not isinstance(own, bool) else current
            marked = marked or isinstance(own, int)
            reached = max(reached, turn + 1)
            if kind == "result":
                result = event
            elif kind == "tool":
                exit_code = event.get("exit_code")
                path = event.get("path") or event.get("file_path")
                if path is None and (event.get("tool") or "").lower() in READ_TOOLS:
                    parts = str(event.get("command", "")).split(maxsplit=1)
                    path = parts[1] if len(parts) == 2 else None
                commands.append(Command(str(event.get("command", "")), position, turn,
                                        exit_code if isinstance(exit_code, int) and not isinstance(exit_code, bool) else None,
                                        event.get("tool"), str(path).removeprefix("./") if path else None,
                                        refused=bool(event.get("refused"))))
            elif kind == "file_change" and isinstance(event.get("path"), str):
                changes.append(FileChange(event["path"].removeprefix("./"), position, turn, event.get("change")))
            elif kind == "message" and isinstance(event.get("text"), str):
                messages.append((event["text"], turn))
            if event.get("name") is not None:
                policy.append(PolicyEvent(str(event["name"]), position, turn, dict(event)))
        commands = _mark_denied(commands, policy)
        sources = result.get("instruction_sources")
        final_message = result.get("final_message")
        state = {
            "instruction_sources": frozenset(s for s in sources if isinstance(s, str)) if isinstance(sources, list) else frozenset(),
            "final_message": final_message if isinstance(final_message, str) else (messages[-1][0] if messages else None),
            **final_state,
        }
        return cls(commands=tuple(commands), policy_events=tuple(policy), file_changes=tuple(changes),
                   messages=tuple(messages), turn_count=turn_count, turns_known=turn_count == 1 or marked,
                   turns_reached=reached, **state)

    @classmethod
    def from_case(cls, case: dict[str, Any]) -> "RunBundle":
        """A bundle from an authored test case: `events` plus optional final state.

        Keys: events, turns, edited_files, created ({path: text}), additions, deletions,
        commits ([message, ...]), instruction_sources, final_message.
        """
        state: dict[str, Any] = {}
        if "edited_files" in case or "created" in case:
            created = {p: (t.encode() if isinstance(t, str) else t) for p, t in (case.get("created") or {}).items()}
            state["created"] = created
            state["edited_files"] = tuple(case.get("edited_files", [])) + tuple(p for p in created if p not in case.get("edited_files", []))
        else:
            paths = tuple(dict.fromkeys(e["path"] for e in case.get("events", []) if e.get("type") == "file_change"))
            state["edited_files"] = paths
        for key in ("additions", "deletions", "final_message"):
            if key in case:
                state[key] = case[key]
        if "commits" in case:
            state["commits"] = tuple(Commit(f"c{i}", m) for i, m in enumerate(case["commits"]))
        if "instruction_sources" in case:
            state["instruction_sources"] = frozenset(case["instruction_sources"])
        events = list(case.get("events", []))
        bundle = cls.from_events(events, int(case.get("turns", 1)), **{k: v for k, v in state.items()
                                                                       if k not in ("final_message", "instruction_sources")})
        overrides = {k: state[k] for k in ("final_message", "instruction_sources") if k in state}
        return replace(bundle, **overrides) if overrides else bundle


def _mark_denied(commands: list[Command], policy: list[PolicyEvent]) -> list[Command]:
    """Commands without an exit code that a `permission_denied` event names were declined by the
    agent's approval policy (Codex, Claude Code): reported, never started."""
    denied = {str(e.data.get("command")) for e in policy if e.name == "permission_denied" and e.data.get("command")}
    return [replace(c, refused=True) if c.exit_code is None and c.text in denied else c for c in commands]
