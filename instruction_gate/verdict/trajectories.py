"""What each run did, as compare can read it: the run's events (from the record or from the
events.jsonl the evaluation wrote next to index.json) reduced to behaviours and actions.

A behaviour is a (kind, value) the run showed at least once: a command it ran, a tool it
called, a file it read or edited, a policy event it emitted, an instruction file it loaded.
Actions are the run's tool calls in order, which is where paired runs first diverge.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from instruction_gate.records import run_dir
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


def events_of(run: dict[str, Any], origin: Path | None) -> list[dict[str, Any]] | None:
    """The run's events: in the record (run.json, bare lists) or in events.jsonl beside the index."""
    if isinstance(run.get("events"), list):
        return [e for e in run["events"] if isinstance(e, dict)]
    if origin is None:
        return None
    path = run_dir(origin.parent, str(run.get("task_id")), int(run.get("repeat", 0)), str(run.get("variant"))) / "events.jsonl"
    if not path.is_file():
        return None
    events = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
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


def trajectory(run: dict[str, Any], origin: Path | None) -> Trajectory:
    events = events_of(run, origin)
    behaviours: set[tuple[str, str]] = set()
    behaviours |= {("edit", p) for p in _strings(run.get("edited_files"))}
    behaviours |= {("source", s) for s in _strings(run.get("instruction_sources"))}
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
