"""What each run did, as compare can read it: the run's events (from the record or from the
events.jsonl the evaluation wrote next to index.json) reduced to behaviours and actions.

A behaviour is a (kind, value) the run showed at least once: a command it ran, a tool it
called, a file it read or edited, a policy event it emitted, an instruction file it loaded.
Actions are the run's tool calls in order, which is where paired runs first diverge.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from instruction_gate.rules.bundle import RunBundle

#: Behaviour kinds in the order the digest reports them.
KINDS = ("command", "tool", "read", "edit", "event", "source")
#: Tools whose calls are behaviours in their own right (shell calls are commands; reads are reads).
_PLAIN_TOOLS = frozenset({"shell", "bash", "exec", "exec_command", "local_shell"})


@dataclass(frozen=True)
class Action:
    """One tool call: what it was, and where (1-based turn and call number for humans)."""

    text: str
    turn: int
    call: int


@dataclass(frozen=True)
class Trajectory:
    behaviours: frozenset[tuple[str, str]]
    actions: tuple[Action, ...]
    known: bool  #: False: the events were not recorded (only the final state is known)


@dataclass
class EventFiles:
    """Finds runs' events.jsonl beside their index (`OUT/<task>/repeat-<n>/<variant>/`, as
    `records.run_dir` lays them out) with one directory listing per index: a bare index (shard
    summaries, synthetic results) has no task directories, and 10,000 runs then cost no stat."""

    _listings: dict[str, frozenset[str]] = field(default_factory=dict)  #: index directory -> its entries
    _directories: dict[Path, str] = field(default_factory=dict)  #: index file -> its directory

    def path(self, run: dict[str, Any], origin: Path) -> str | None:
        top = self._directories.get(origin)
        if top is None:
            top = self._directories[origin] = os.path.dirname(origin) or "."
        task_id = str(run.get("task_id"))
        head = task_id.split("/", 1)[0]
        if head not in ("", ".", "..") and head not in self._entries(top):
            return None
        repeat, variant = f"repeat-{int(run.get('repeat', 0))}", str(run.get("variant"))
        path = os.path.join(top, task_id, repeat, variant, "events.jsonl")
        return path if os.path.isfile(path) else None

    def _entries(self, directory: str) -> frozenset[str]:
        if directory not in self._listings:
            try:
                self._listings[directory] = frozenset(os.listdir(directory))
            except (FileNotFoundError, NotADirectoryError):  # the index's folder is gone: no events
                self._listings[directory] = frozenset()
        return self._listings[directory]


def events_of(run: dict[str, Any], origin: Path | None, files: EventFiles | None = None) -> list[dict[str, Any]] | None:
    """The run's events: in the record (run.json, bare lists) or in events.jsonl beside the index.
    `files`: one finder shared by the runs of a comparison (each index directory listed once)."""
    if isinstance(run.get("events"), list):
        return [e for e in run["events"] if isinstance(e, dict)]
    if origin is None:
        return None
    path = (files or EventFiles()).path(run, origin)
    if path is None:
        return None
    events = []
    with open(path, encoding="utf-8", errors="replace") as handle:
        text = handle.read()
    for line in text.splitlines():
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue  # the runner already counted malformed lines; they carry no behaviour
        if isinstance(event, dict):
            events.append(event)
    return events


def _strings(value: Any) -> list[str]:
    """The strings of a record list field; anything else (a malformed record) says nothing."""
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _action_text(command) -> str:
    if command.text:
        return command.text
    tool = command.tool or "tool"
    return f"{tool} {command.path}" if command.path else tool


def trajectory(run: dict[str, Any], origin: Path | None, files: EventFiles | None = None) -> Trajectory:
    events = events_of(run, origin, files)
    behaviours: set[tuple[str, str]] = {("edit", p) for p in _strings(run.get("edited_files"))}
    behaviours.update(("source", s) for s in _strings(run.get("instruction_sources")))
    if events is None:
        return Trajectory(frozenset(behaviours), (), False)
    bundle = RunBundle.from_events(events)
    for command in bundle.commands:
        if command.text:
            behaviours.add(("command", " ".join(command.text.split())))
        elif command.tool and command.tool.lower() not in _PLAIN_TOOLS and not command.path:
            behaviours.add(("tool", command.tool))
    behaviours |= {("read", path) for path, _ in bundle.reads() if isinstance(path, str)}
    behaviours |= {("event", e.name) for e in bundle.policy_events if isinstance(e.data.get("name"), str)}
    behaviours |= {("edit", f.path) for f in bundle.file_changes}
    actions = tuple(Action(" ".join(_action_text(c).split()), (c.turn or 0) + 1, number)
                    for number, c in enumerate(bundle.commands, 1))
    return Trajectory(frozenset(behaviours), actions, True)


@dataclass(frozen=True)
class Divergence:
    """The first tool call where one pair's runs differ (None: that run had ended)."""

    task_id: str
    repeat: int
    turn: int
    call: int
    base: str | None
    candidate: str | None


def divergence(pair, trajectories: dict[tuple, Trajectory]) -> Divergence | None:
    """Where the runs of `pair` (a pairing.Pair) first differ, or None (equal or unknown)."""
    found = first_divergence(trajectories[(pair.task_id, pair.repeat, "base")],
                             trajectories[(pair.task_id, pair.repeat, "candidate")])
    if found is None:
        return None
    base, candidate = found
    where = base or candidate
    return Divergence(pair.task_id, pair.repeat, where.turn, where.call,
                      base.text if base else None, candidate.text if candidate else None)


def first_divergence(base: Trajectory, candidate: Trajectory) -> tuple[Action | None, Action | None] | None:
    """The first tool call where the two runs differ (None for the side that had stopped), or None
    when the sequences are equal or either is unknown."""
    if not (base.known and candidate.known):
        return None
    for b, c in zip(base.actions, candidate.actions):
        if b.text != c.text:
            return b, c
    if len(base.actions) == len(candidate.actions):
        return None
    shorter = min(len(base.actions), len(candidate.actions))
    b = base.actions[shorter] if len(base.actions) > shorter else None
    c = candidate.actions[shorter] if len(candidate.actions) > shorter else None
    return b, c
