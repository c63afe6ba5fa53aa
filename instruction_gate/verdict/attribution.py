"""Which changed instruction lines mention a behaviour or a hard-gate's evidence.

Matching is textual and deliberately simple: a hunk mentions a command when its changed lines
contain the whole command or one of its distinctive words (program or subcommand names, not
flags or interpreters), and a path when they contain the path or its file name. It names
candidates for a reviewer to read; `blame` is what establishes cause by re-running.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from typing import Any

from instruction_gate.hunks import Hunk, from_dict
from instruction_gate.verdict.hardgates import HardFinding
from instruction_gate.verdict.pairing import Pair
from instruction_gate.verdict.trajectories import Divergence, divergence

#: Hard-gate category -> (behaviour kind whose change explains it, direction, record evidence field).
EXPLAINS = {
    "required_command_missing": ("command", "lost", "missing_commands"),
    "forbidden_command_observed": ("command", "gained", "forbidden_commands"),
    "required_policy_event_missing": ("event", "lost", "missing_events"),
    "instruction_source_missing": ("source", "lost", "missing_instruction_sources"),
    "forbidden_file_edited": ("edit", "gained", "forbidden_files"),
}

#: Words too common in commands to tie a command to an instruction line on their own.
_GENERIC = frozenset({"python", "python3", "sh", "bash", "env", "run", "exec", "npx", "uv", "poetry", "pipx",
                      "sudo", "the", "and", "tests", "test"})
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:/+-]{2,}")


def recorded_hunks(headers: list[dict[str, Any]]) -> list[Hunk]:
    """The instruction hunks the evaluation recorded (index.json `instruction_hunks`), first input's."""
    for header in headers:
        entries = header.get("instruction_hunks")
        if isinstance(entries, list):
            return [h for h in map(from_dict, entries) if h is not None]
    return []


def recorded_gate_sources(headers: list[dict[str, Any]]) -> dict[str, dict[str, str]]:
    """task -> hard-gate category -> the instruction line the suite says it enforces (index.json
    `gate_sources`, merged over shards)."""
    found: dict[str, dict[str, str]] = {}
    for header in headers:
        entries = header.get("gate_sources")
        if isinstance(entries, dict):
            for task, sources in entries.items():
                if isinstance(sources, dict):
                    found.setdefault(str(task), {}).update({str(k): str(v) for k, v in sources.items()
                                                            if isinstance(v, str)})
    return found


def _words(text: str) -> set[str]:
    try:
        parts = shlex.split(text)
    except ValueError:
        parts = text.split()
    words = {w for part in parts if not part.startswith("-") for w in _WORD.findall(part)}
    return {w for w in words if w.lower() not in _GENERIC}


def pattern_words(pattern: str) -> set[str]:
    """Literal words of a regular expression (`\\bpip3? install\\b` → pip, install)."""
    return _words(re.sub(r"\\[bBdDsSwW]|[\\^$.*+?()\[\]{}|]", " ", pattern))


def mentions(hunk: Hunk, kind: str, value: str) -> bool:
    text = hunk.text()
    if not text.strip():
        return False
    if kind in ("read", "edit", "source"):
        name = value.rsplit("/", 1)[-1]
        return value in text or (len(name) > 3 and name in text)
    if kind == "pattern":
        words = pattern_words(value)
        return bool(words) and all(re.search(rf"(?<![\w-]){re.escape(w)}(?![\w-])", text) for w in words)
    if value in text:
        return True
    if kind == "event":
        return False
    return any(re.search(rf"(?<![\w-]){re.escape(w)}(?![\w-])", text) for w in _words(value))


def mentioning(hunks: list[Hunk], kind: str, value: str) -> list[Hunk]:
    return [h for h in hunks if mentions(h, kind, value)]


def quote(hunk: Hunk, mentioned: list[tuple[str, str]]) -> tuple[str, int, str, bool]:
    """The changed line of `hunk` to show: the first that mentions one of `mentioned` ((kind, value)),
    else its first changed line. Returns (sign, line number, text, numbered in the base)."""
    lines = [("+", hunk.new_start + i, text, False) for i, text in enumerate(hunk.added)]
    lines += [("-", hunk.old_start + i, text, True) for i, text in enumerate(hunk.removed)]
    for sign, number, text, in_base in lines:
        single = Hunk(hunk.path, 0, 0, 0, 0, (), (text,))
        if any(mentions(single, kind, value) for kind, value in mentioned):
            return sign, number, text, in_base
    return lines[0] if lines else ("", hunk.new_start, "", False)


_EVIDENCE_KIND = {"forbidden_file_edited": "read", "instruction_source_missing": "read",
                  "required_policy_event_missing": "event"}


@dataclass
class Attributed:
    """A hard-gate row's attribution: changed hunks, what they were matched on, first divergence."""

    hunks: list[Hunk]
    mentioned: list[tuple[str, str]]  #: (kind, value) pairs the hunks were matched on
    divergence: Divergence | None
    rule_source: str | None = None  #: the instruction line the suite says this gate enforces


def findings(findings: list[HardFinding], pairs: list[Pair], trajectories: dict, hunks: list[Hunk],
             sources: dict[str, dict[str, str]]) -> dict[tuple[str, str, str], "Attributed"]:
    """Per hard-gate row (task, category, status): the hunks mentioning its evidence and where the
    first pair showing it diverged."""
    by_key = {(p.task_id, p.repeat): p for p in pairs}
    out: dict[tuple[str, str, str], Attributed] = {}
    for f in findings:
        key = (f.task_id, f.category, f.status)
        if key in out:
            continue
        pair = by_key.get((f.task_id, f.repeat))
        run = pair.candidate if pair and f.status != "fixed" else pair.base if pair else {}
        field_name = EXPLAINS.get(f.category, ("", "", ""))[2]
        evidence = [str(e) for e in run.get(field_name) or []] or [f.evidence]
        kind = _EVIDENCE_KIND.get(f.category, "pattern")
        named = [(kind, e) for e in evidence if e]
        out[key] = Attributed([h for h in hunks if any(mentions(h, k, e) for k, e in named)], named,
                              divergence(pair, trajectories) if pair else None,
                              sources.get(f.task_id, {}).get(f.category))
    return out
