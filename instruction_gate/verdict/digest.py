"""The digest: what the instruction change did to the agent, from paired differences of the runs.

For every behaviour (trajectories.py) and every valid pair, the base and the candidate run either
show it or not. A task *changed* a behaviour when its discordant pairs all go one way (the
candidate dropped it in some pairs and gained it in none, or the reverse); tasks changing the
same behaviour the same way are one change, counted over their pairs. Changes that explain a new
hard-gate failure come first; hard-gate regressions no change explains get their own entry.
Each entry names the changed instruction hunks that mention it and where its first pair diverged.
Separately, per kind of file that steers the checks (run.json `check_files_changed`), how many
runs of each arm changed one.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from instruction_gate.hunks import Hunk
from instruction_gate.verdict import attribution
from instruction_gate.verdict.hardgates import NEW, UNPAIRED, HardFinding
from instruction_gate.verdict.pairing import Pair
from instruction_gate.verdict.skipped_tests import SkippedTests, skipped_tests
from instruction_gate.verdict.trajectories import KINDS, Divergence, Trajectory, divergence
from instruction_gate.rules.command_match import command_matches


@dataclass
class Entry:
    """One digest line: a behaviour change, or a hard-gate regression no change explains."""

    kind: str  #: a trajectories.KINDS value, or "gate"
    value: str  #: the command, path, event, source, or the hard-gate category
    direction: str  #: lost | gained (a gate entry: gained)
    tasks: list[str]
    pairs: int  #: valid pairs of those tasks
    base_runs: int  #: runs of those pairs showing it, per arm
    candidate_runs: int
    gates: dict[str, list[str]] = field(default_factory=dict)  #: hard-gate category it explains -> tasks
    rule_sources: list[str] = field(default_factory=list)  #: instruction lines the suite says those gates enforce
    evidence: list[str] = field(default_factory=list)  #: a gate entry's evidence (check, pattern)
    hunks: list[Hunk] = field(default_factory=list)
    divergence: Divergence | None = None
    blocking: bool = False

    @property
    def discordant(self) -> int:
        return abs(self.candidate_runs - self.base_runs)


@dataclass
class Line:
    """Entries with the same tasks and counts: one sentence of the digest."""

    entries: list[Entry]  #: same tasks, pairs and counts; the first sorts first (its divergence is shown)

    @property
    def first(self) -> Entry:
        return self.entries[0]

    @property
    def blocking(self) -> bool:
        return any(e.blocking for e in self.entries)

    @property
    def gates(self) -> dict[str, list[str]]:
        return {k: v for e in self.entries for k, v in e.gates.items()}

    @property
    def hunks(self) -> list[Hunk]:
        return list(dict.fromkeys(h for e in self.entries for h in e.hunks))

    @property
    def rule_sources(self) -> list[str]:
        return list(dict.fromkeys(s for e in self.entries for s in e.rule_sources))


#: run.json `check_files_changed` kinds in the digest's words.
CHECK_FILE_LABELS = {
    "test_config": "test configuration", "interpreter_hook": "interpreter start-up hooks",
    "compiled": "compiled files", "build_file": "build files",
    "shadow_module": "modules shadowing the standard library, the test runner or an installed package",
    "check_target": "the repository tests its checks run",
    "check_package": "the package markers above the tests its checks run",
    "package_metadata": "installed-package metadata (plugins, entry points)",
    "git_attributes": "git attributes (how files are written out for the checks)",
}


@dataclass
class CheckFilesLine:
    """Valid paired runs that changed files steering the checks, of one kind, per arm."""

    label: str  #: CHECK_FILE_LABELS value
    tasks: list[str] = field(default_factory=list)  #: tasks with a run of either arm that did
    pairs: int = 0  #: valid pairs of those tasks (= runs per arm)
    runs: dict[str, int] = field(default_factory=lambda: {"candidate": 0, "base": 0})  #: arm -> runs that did
    paths: dict[str, list[str]] = field(default_factory=lambda: {"candidate": [], "base": []})  #: arm -> paths
    actions: list[str] = field(default_factory=list)  #: restored and/or left

    @property
    def differs(self) -> bool:
        """The arms did it in different numbers of runs: a behaviour change."""
        return self.runs["candidate"] != self.runs["base"]

    def add(self, task_id: str, variant: str, items: list[dict[str, Any]]) -> None:
        self.tasks += [task_id] if task_id not in self.tasks else []
        self.runs[variant] += 1
        for item in items:
            path, action = str(item.get("path")), str(item.get("action"))
            self.paths[variant] += [path] if path not in self.paths[variant] else []
            self.actions += [action] if action not in self.actions else []


@dataclass
class Digest:
    entries: list[Entry]
    unknown_runs: int  #: valid runs whose events were not recorded (their calls and reads are unknown)
    hunks: list[Hunk]
    #: (task, category, status) of each hard-gate row -> the hunks mentioning its evidence, first divergence
    findings: dict[tuple[str, str, str], attribution.Attributed] = field(default_factory=dict)
    #: files steering the checks that runs changed (candidate's first); records without the field count as none
    check_files: list[CheckFilesLine] = field(default_factory=list)
    #: pairs whose pytest checks skipped more tests in one arm (verdict/skipped_tests.py); None: none differ
    skipped: SkippedTests | None = None

    @property
    def lines(self) -> list[Line]:
        """Entries grouped by (tasks, pairs, counts), in the entries' order."""
        grouped: dict[tuple, Line] = {}
        for e in self.entries:
            key = (tuple(e.tasks), e.pairs, e.base_runs, e.candidate_runs, e.kind == "gate" and e.value)
            grouped.setdefault(key, Line([])).entries.append(e)
        return list(grouped.values())


def _changes(pairs: list[Pair], trajectories: dict[tuple, Trajectory]) -> list[Entry]:
    per_task: dict[tuple[str, str, str], list[tuple[bool, bool, Pair]]] = defaultdict(list)
    for pair in pairs:
        base = trajectories[(pair.task_id, pair.repeat, "base")].behaviours
        candidate = trajectories[(pair.task_id, pair.repeat, "candidate")].behaviours
        for kind, value in base | candidate:
            per_task[(kind, value, pair.task_id)].append(((kind, value) in base, (kind, value) in candidate, pair))
    task_pairs: dict[str, int] = defaultdict(int)
    for pair in pairs:
        task_pairs[pair.task_id] += 1
    grouped: dict[tuple[str, str, str], Entry] = {}
    for (kind, value, task_id), seen in sorted(per_task.items()):
        lost = [p for b, c, p in seen if b and not c]
        gained = [p for b, c, p in seen if c and not b]
        if bool(lost) == bool(gained):
            continue  # no discordant pair, or discordant both ways: noise, not a change
        direction = "lost" if lost else "gained"
        entry = grouped.setdefault((kind, value, direction), Entry(kind, value, direction, [], 0, 0, 0))
        if not entry.tasks:
            entry.divergence = divergence((lost or gained)[0], trajectories)
        entry.tasks.append(task_id)
        entry.pairs += task_pairs[task_id]
        entry.base_runs += sum(b for b, _, _ in seen)
        entry.candidate_runs += sum(c for _, c, _ in seen)
    return list(grouped.values())


def _explained(entry: Entry, category: str, evidence: list[str]) -> bool:
    kind, direction, _ = attribution.EXPLAINS[category]
    if entry.kind != kind or entry.direction != direction:
        return False
    if kind != "command":
        return entry.value in evidence
    for pattern in evidence:
        try:
            if command_matches(pattern, entry.value):
                return True
        except re.error:
            continue
    return False


def _gate_entries(findings: list[HardFinding], pairs: list[Pair], changes: list[Entry],
                  trajectories: dict, sources: dict[str, dict[str, str]]) -> list[Entry]:
    regressions: dict[str, list[HardFinding]] = defaultdict(list)
    for f in findings:
        if f.status in (NEW, UNPAIRED):
            regressions[f.category].append(f)
    out = []
    for category, found in sorted(regressions.items()):
        tasks = sorted({f.task_id for f in found})
        own = [p for p in pairs if p.task_id in tasks]
        runs = {(f.task_id, f.repeat): f for f in found}
        evidence = sorted({str(e) for p in own if (p.task_id, p.repeat) in runs
                           for e in p.candidate.get(attribution.EXPLAINS.get(category, ("", "", ""))[2]) or []})
        blocking = any(f.blocking for f in found)
        declared = list(dict.fromkeys(sources[t][category] for t in tasks if category in sources.get(t, {})))
        explainers = [c for c in changes if category in attribution.EXPLAINS and set(c.tasks) & set(tasks)
                      and _explained(c, category, evidence)]
        for change in explainers:
            change.gates[category] = [t for t in tasks if t in change.tasks]
            change.blocking = change.blocking or blocking
            change.rule_sources += [s for s in declared if s not in change.rule_sources]
        if explainers:
            continue
        entry = Entry("gate", category, "gained", tasks, len(own),
                      sum(category in (p.base.get("hard_failures") or []) for p in own),
                      sum(category in (p.candidate.get("hard_failures") or []) for p in own),
                      evidence=evidence or sorted({f.evidence for f in found if f.evidence})[:3], blocking=blocking,
                      rule_sources=declared)
        first = next((p for p in own if (p.task_id, p.repeat) in runs), None)
        entry.divergence = divergence(first, trajectories) if first else None
        out.append(entry)
    return out


def check_file_lines(pairs: list[Pair]) -> list[CheckFilesLine]:
    """Per kind of steering file: how many runs of each arm changed one, and which paths."""
    lines: dict[str, CheckFilesLine] = {}
    for pair in pairs:
        for variant, run in (("candidate", pair.candidate), ("base", pair.base)):
            by_label: dict[str, list[dict[str, Any]]] = defaultdict(list)
            items = run.get("check_files_changed")  # absent in older records: none
            for item in items if isinstance(items, list) else []:
                if isinstance(item, dict):
                    by_label[CHECK_FILE_LABELS.get(str(item.get("kind")), "files that steer the checks")].append(item)
            for label, items in by_label.items():
                lines.setdefault(label, CheckFilesLine(label)).add(pair.task_id, variant, items)
    for line in lines.values():
        line.pairs = sum(p.task_id in line.tasks for p in pairs)
    return sorted(lines.values(), key=lambda line: (-line.runs["candidate"], -line.runs["base"], line.label))


def _attribute(entry: Entry, hunks: list[Hunk]) -> None:
    if entry.kind == "gate":
        entry.hunks = [h for h in hunks if any(attribution.mentions(h, "pattern", e) or attribution.mentions(h, "read", e)
                                               for e in entry.evidence)]
    else:
        entry.hunks = attribution.mentioning(hunks, entry.kind, entry.value)


def build(pairs: list[Pair], trajectories: dict[tuple, Trajectory], findings: list[HardFinding],
          headers: list[dict[str, Any]]) -> Digest:
    """The digest of valid pairs whose runs' trajectories are given (key: task, repeat, variant)."""
    hunks = attribution.recorded_hunks(headers)
    sources = attribution.recorded_gate_sources(headers)
    changes = _changes(pairs, trajectories)
    entries = changes + _gate_entries(findings, pairs, changes, trajectories, sources)
    for entry in entries:
        _attribute(entry, hunks)
    order = {kind: i for i, kind in enumerate(("gate",) + KINDS)}
    entries.sort(key=lambda e: (not e.blocking, not (e.gates or e.kind == "gate"), -e.discordant,
                                order[e.kind], e.direction, e.value))
    unknown = sum(not trajectories[(p.task_id, p.repeat, v)].known for p in pairs for v in ("base", "candidate"))
    digest = Digest(entries, unknown, hunks, attribution.findings(findings, pairs, trajectories, hunks, sources),
                    check_file_lines(pairs), skipped_tests(pairs))
    for (task_id, category, _), row in digest.findings.items():
        if not row.hunks:
            # No changed line names the evidence (an event name, say): the lines of the digest
            # sentence that explains this regression are the next best pointer.
            explaining = [line for line in digest.lines if task_id in line.gates.get(category, ())]
            row.hunks = list(dict.fromkeys(h for line in explaining for h in line.hunks))
            row.mentioned = [(e.kind, e.value) for line in explaining for e in line.entries]
    return digest
