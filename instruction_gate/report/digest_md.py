"""The digest as sentences: Markdown for summary.md, plain text for summary.json.

One sentence per digest line (verdict/digest.py): which tasks, how many runs of each arm showed
the behaviour, what changed, which hard gates it explains, which changed instruction lines
mention it, and where the first pair diverged. Every record string is escaped (textfmt.py).
"""

from __future__ import annotations

from typing import Any, Callable

from instruction_gate.hunks import Hunk
from instruction_gate.report import textfmt as fmt
from instruction_gate.verdict import attribution
from instruction_gate.verdict.blind_gates import BlindGate
from instruction_gate.verdict.digest import CheckFilesLine, Digest, Entry, Line
from instruction_gate.verdict.skipped_tests import SkippedTests
from instruction_gate.verdict.trajectories import Divergence

#: Digest sentences shown; the rest are counted (summary.json keeps them all).
MAX_LINES = 8
TASK_NAMES = 3
_VERBS = {
    ("command", "lost"): "no longer ran {}", ("command", "gained"): "newly ran {}",
    ("tool", "lost"): "no longer called tool {}", ("tool", "gained"): "newly called tool {}",
    ("read", "lost"): "stopped reading {}", ("read", "gained"): "newly read {}",
    ("edit", "lost"): "no longer edited {}", ("edit", "gained"): "newly edited {}",
    ("event", "lost"): "no longer emitted policy event {}", ("event", "gained"): "newly emitted policy event {}",
    ("source", "lost"): "no longer loaded instructions from {}", ("source", "gained"): "newly loaded instructions from {}",
    ("gate", "gained"): "failed hard gate {}",
}


def _plain_code(text: object, limit: int = 120) -> str:
    return f"`{fmt.clip(str(text), limit)}`"


def _plain_text(text: object, limit: int = 200) -> str:
    return fmt.clip(str(text), limit)


class Style:
    """How record strings are written: Markdown in a list or a table cell, or plain (summary.json)."""

    def __init__(self, markdown: bool, in_table: bool = False):
        self.code: Callable[..., str] = _plain_code
        if markdown:
            self.code = lambda text, limit=120: fmt.code(text, limit, in_table=in_table)
        self.text: Callable[..., str] = fmt.md if markdown else _plain_text


def _tasks(tasks: list[str], s: Style) -> str:
    names = ", ".join(s.text(t, 60) for t in tasks[:TASK_NAMES])
    more = f", +{len(tasks) - TASK_NAMES} more" if len(tasks) > TASK_NAMES else ""
    return f"{len(tasks)} task{'s' if len(tasks) != 1 else ''} ({names}{more})"


def hunk_text(hunk: Hunk, s: Style, mentioned: list[tuple[str, str]] = ()) -> str:
    """The changed line that mentions the behaviour: `AGENTS.md:14 + `Never run pytest…`` or, for a
    removed line, `AGENTS.md:27 (base) − `…``."""
    sign, number, text, in_base = attribution.quote(hunk, list(mentioned))
    where = s.text(f"{hunk.path}:{number}{' (base)' if in_base else ''}", 120)
    return f"{where} {'−' if sign == '-' else '+'} {s.code(text.strip(), 80)}" if text.strip() else where


def divergence_text(d: Divergence | None, s: Style, with_task: bool = True) -> str:
    if d is None:
        return ""
    side = lambda text: f"ran {s.code(text, 80)}" if text else "had ended"  # noqa: E731
    where = f"first divergence in {s.text(d.task_id, 60)} repeat {d.repeat}" if with_task else f"repeat {d.repeat}"
    return f"{where}, turn {d.turn}, call {d.call}: base {side(d.base)}, candidate {side(d.candidate)}"


def _behaviour(e: Entry, s: Style) -> str:
    text = _VERBS[(e.kind, e.direction)].format(s.code(e.value))
    if e.kind == "gate" and e.evidence:
        text += f" ({', '.join(s.code(x, 80) for x in e.evidence[:2])})"
    return text


def sentence(line: Line, s: Style) -> str:
    first = line.first
    counts = (f"candidate {first.candidate_runs} of {first.pairs} runs, base {first.base_runs} of {first.pairs}")
    text = f"{_tasks(first.tasks, s)}, {counts}: " + "; ".join(_behaviour(e, s) for e in line.entries)
    gates = line.gates
    if gates:
        text += " → hard gate " + ", ".join(f"{s.code(g)} in {len(t)} task{'s' if len(t) != 1 else ''}"
                                            for g, t in gates.items())
    if line.rule_sources:
        text += f", enforcing {'; '.join(s.text(r, 120) for r in line.rule_sources[:3])} (suite's rule source, base)"
    hunks = line.hunks
    mentioned = [(e.kind, v) for e in line.entries for v in ([e.value] if e.kind != "gate" else e.evidence)]
    text += ". Instruction: " + ("; ".join(hunk_text(h, s, mentioned) for h in hunks[:2]) if hunks
                                 else "no changed instruction line mentions it")
    where = divergence_text(first.divergence, s)
    return text + (f"; {where}." if where else ".")


def check_files_sentence(line: CheckFilesLine, s: Style) -> str:
    """"candidate changed test configuration: `conftest.py`, in 2 of 2 runs; base in 1 of 2 — 1 task
    (t1); restored before the checks.": the candidate's paths when its runs did it (else the
    base's), the other arm's count when it did it too ("both arms changed ..., in 2 of 2 runs each"
    when the counts are equal); runs are the valid pairs of those tasks."""
    first, other = ("candidate", "base") if line.runs["candidate"] else ("base", "candidate")
    paths = line.paths[first]
    shown = ", ".join(s.code(p, 80) for p in paths[:3]) + (f", +{len(paths) - 3} more" if len(paths) > 3 else "")
    if not line.differs:  # the same in both arms: no change of the candidate's, but the reviewer should know
        text = f"both arms changed {line.label}: {shown}, in {line.runs[first]} of {line.pairs} runs each"
    else:
        text = f"{first} changed {line.label}: {shown}, in {line.runs[first]} of {line.pairs} runs"
        if line.runs[other]:
            text += f"; {other} in {line.runs[other]} of {line.pairs}"
    done = {"restored": "restored before the checks", "left": f"left for the checks: hard gate {s.code('check_files_changed')}"}
    return f"{text} — {_tasks(line.tasks, s)}; {'; '.join(done.get(a) or s.text(a, 40) for a in line.actions)}."


def skipped_sentence(found: SkippedTests, s: Style) -> str:
    """E.g. "candidate's pytest checks skipped more tests than the paired base run in 2 of 3 pairs
    (4 tests in all) — 1 task (t): code under test can skip the path it breaks; read its patch." """
    parts = [f"{arm}'s pytest checks skipped more tests than the paired {other} run in {found.more[arm]} of "
             f"{found.pairs} pairs ({found.extra[arm]} test{'s' if found.extra[arm] != 1 else ''} in all)"
             for arm, other in (("candidate", "base"), ("base", "candidate")) if found.more[arm]]
    return f"{'; '.join(parts)} — {_tasks(found.tasks, s)}: code under test can skip the path it breaks; read its patch."


def blind_clause(gates: list[BlindGate], s: Style) -> str:
    """" — but the suite is blind to hard gate `required_command_missing` (failed in every base run
    of 1 task (t)): a change to what it checks could not show": "no behaviour change" is no
    evidence about a gate no base run passed (verdict/blind_gates.py)."""
    tasks: dict[str, list[str]] = {}
    for gate in gates:
        tasks.setdefault(gate.category, []).append(gate.task_id)
    named = "; ".join(f"{s.code(category)} (failed in every base run of {_tasks(found, s)})"
                      for category, found in tasks.items())
    return (f" — but the suite is blind to hard gate{'s' if len(tasks) > 1 else ''} {named}: a change to what "
            f"{'they check' if len(tasks) > 1 else 'it checks'} could not show")


def markdown(digest: Digest | None, blind: list[BlindGate] = ()) -> list[str]:
    """The digest section of summary.md (empty when compare had no pairs to read); `blind`: the
    hard gates no base run of their task passed, named wherever no change is reported."""
    if digest is None:
        return []
    lines = ["### What changed in the agent's behaviour", ""]
    shown = digest.lines[:MAX_LINES]
    style = Style(markdown=True)
    # A steering change one arm made more often leads (it can fake a verdict); one both arms
    # made alike closes the list: no change of the candidate's, but worth a reviewer's glance.
    lines += [f"- {check_files_sentence(line, style)}" for line in digest.check_files if line.differs]
    if digest.skipped is not None:
        lines.append(f"- {skipped_sentence(digest.skipped, style)}")
    if not shown and not any(line.differs for line in digest.check_files) and digest.skipped is None:
        lines.append("No behaviour change: every valid pair ran the same commands and tool calls, read and "
                     "edited the same files, emitted the same policy events and loaded the same instructions"
                     + (blind_clause(list(blind), style) if blind else "") + ".")
    lines += [f"- {'**blocking** · ' if line.blocking else ''}{sentence(line, style)}" for line in shown]
    hidden = len(digest.lines) - len(shown)
    if hidden:
        lines.append(f"- … and {hidden} smaller change{'s' if hidden != 1 else ''} in summary.json (`digest`).")
    lines += [f"- {check_files_sentence(line, style)}" for line in digest.check_files if not line.differs]
    if digest.unknown_runs:
        lines.append(f"\n{digest.unknown_runs} valid runs have no recorded events: only their edits and "
                     "instruction sources are compared.")
    return lines + [""]


def _divergence_json(d: Divergence | None) -> dict[str, Any] | None:
    return None if d is None else {"task_id": d.task_id, "repeat": d.repeat, "turn": d.turn, "call": d.call,
                                   "base": d.base, "candidate": d.candidate}


def as_json(digest: Digest | None) -> dict[str, Any] | None:
    """summary.json `digest`: every line with its sentence, counts, behaviours and attribution."""
    if digest is None:
        return None
    style = Style(markdown=False)
    return {
        "no_behaviour_change": (not digest.entries and not any(line.differs for line in digest.check_files)
                                and digest.skipped is None),
        "skipped_tests": None if digest.skipped is None else {
            "sentence": skipped_sentence(digest.skipped, style), "pairs": digest.skipped.pairs, "tasks": digest.skipped.tasks,
            "more_pairs": digest.skipped.more, "more_tests": digest.skipped.extra},
        "unknown_runs": digest.unknown_runs,
        "instruction_hunks": [h.as_dict() | {"label": h.label} for h in digest.hunks],
        "lines": [{"sentence": sentence(line, style), "blocking": line.blocking, "tasks": line.first.tasks,
                   "pairs": line.first.pairs, "base_runs": line.first.base_runs,
                   "candidate_runs": line.first.candidate_runs,
                   "changes": [{"kind": e.kind, "value": e.value, "direction": e.direction, "evidence": e.evidence}
                               for e in line.entries],
                   "hard_gates": line.gates, "rule_sources": line.rule_sources,
                   "instruction_hunks": [h.label for h in line.hunks],
                   "first_divergence": _divergence_json(line.first.divergence)}
                  for line in digest.lines],
        "check_files": [{"sentence": check_files_sentence(line, style), "label": line.label, "tasks": line.tasks,
                         "pairs": line.pairs,
                         "candidate_runs": line.runs["candidate"], "base_runs": line.runs["base"],
                         "candidate_paths": line.paths["candidate"], "base_paths": line.paths["base"],
                         "actions": line.actions}
                        for line in digest.check_files],
    }
