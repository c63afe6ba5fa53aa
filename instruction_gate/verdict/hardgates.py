"""Hard gates: each hard-failure category of a valid candidate run, judged against its paired base run.

- new: the candidate run fails, its paired base run does not -> a candidate regression.
- pre-existing: both runs of the pair fail the same way; blocks only with hard.fail_on_preexisting.
- unpaired: the base run of the pair was lost; treated like a regression (no evidence otherwise).
- fixed: the base run fails, the candidate run does not (reported, never blocking).
Runs that are invalid (infrastructure) carry no evidence and are listed with the lost runs instead.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from typing import Any

from instruction_gate.verdict import gate_evidence
from instruction_gate.verdict.policy import Policy
from instruction_gate.verdict.results import ResultSet
from instruction_gate.verdict.trajectories import events_of

NEW, PREEXISTING, UNPAIRED, FIXED = "new", "pre-existing", "unpaired", "fixed"

#: Category -> run-record evidence list that explains it.
_EVIDENCE_FIELDS = {
    "forbidden_file_edited": "forbidden_files",
    "required_command_missing": "missing_commands",
    "forbidden_command_observed": "forbidden_commands",
    "required_policy_event_missing": "missing_events",
    "instruction_source_missing": "missing_instruction_sources",
    "check_files_changed": "check_files_changed",  #: objects: their paths are shown
}


@dataclass(frozen=True)
class HardFinding:
    task_id: str
    repeat: int
    category: str
    status: str  #: new | pre-existing | unpaired | fixed
    evidence: str
    blocking: bool
    occurrences: int = 1  #: repeats of this task with this candidate regression (new or unpaired)
    needed: int = 1  #: repeats the policy asks for before such a regression blocks (min_reproductions)

    @property
    def below_reproductions(self) -> bool:
        """A candidate regression that does not block only because it did not show often enough."""
        return self.status in (NEW, UNPAIRED) and self.occurrences < self.needed

    @property
    def variant(self) -> str:
        """Which arm(s) of the pair show the failure."""
        return {PREEXISTING: "both", FIXED: "base"}.get(self.status, "candidate")


def evidence(run: dict[str, Any], category: str, partner: dict[str, Any] | None = None) -> str:
    """A short, human-readable reason taken from the run record (and its paired run's, for
    where the instructions state a command rule)."""
    commands = gate_evidence.command_gate(category, run, partner)
    if commands:
        return commands
    field_name = _EVIDENCE_FIELDS.get(category)
    if field_name and run.get(field_name):
        return ", ".join(str(item.get("path") if isinstance(item, dict) else item) for item in run[field_name])
    if category == "required_check_failed" and (check := gate_evidence.failed_check(run)):
        return check
    if category == "tool_call_cap_exceeded" and run.get("tool_calls") is not None:
        return f"{run['tool_calls']} tool calls"
    if category == "provider_cost_cap_exceeded" and run.get("provider_cost_usd") is not None:
        return f"{run['provider_cost_usd']} USD"
    return str(run.get("failure_reason") or "")


def _categories(run: dict[str, Any] | None) -> list[str] | None:
    if run is None or run.get("valid", True) is not True:
        return None
    return list(dict.fromkeys(map(str, run.get("hard_failures") or [])))


def _with_events(results: ResultSet, key: tuple[str, int, str]) -> dict[str, Any] | None:
    """The run, with its events from events.jsonl beside the index when the record has none: the
    command gates' evidence names the commands that ran."""
    run = results.runs.get(key)
    if run is None or isinstance(run.get("events"), list) or not set(run.get("hard_failures") or ()) & COMMAND_GATES:
        return run
    return {**run, "events": events_of(run, results.origin.get(key)) or []}


#: Gates whose evidence lists the commands a run made.
COMMAND_GATES = {"required_command_missing", "forbidden_command_observed"}


def classify(results: ResultSet, policy: Policy) -> list[HardFinding]:
    findings = []
    pair_keys = sorted({(t, r) for (t, r, _) in results.runs})
    for task_id, repeat in pair_keys:
        base_run = _with_events(results, (task_id, repeat, "base"))
        candidate_run = _with_events(results, (task_id, repeat, "candidate"))
        base, candidate = _categories(base_run), _categories(candidate_run)
        for category in candidate or []:
            if base is None:
                status = UNPAIRED
            else:
                status = PREEXISTING if category in base else NEW
            regression = status != PREEXISTING or bool(policy.hard["fail_on_preexisting"])
            findings.append(HardFinding(task_id, repeat, category, status, evidence(candidate_run, category, base_run),
                                        regression and policy.blocks_category(category)))
        if candidate is not None:
            for category in base or []:
                if category not in candidate:
                    findings.append(HardFinding(task_id, repeat, category, FIXED,
                                                evidence(base_run, category, candidate_run), False))
    return _apply_reproductions(findings, policy)


def _apply_reproductions(findings: list[HardFinding], policy: Policy) -> list[HardFinding]:
    """Count each (task, category)'s candidate regressions; fewer than the policy needs do not block."""
    regressions = Counter((f.task_id, f.category) for f in findings if f.status in (NEW, UNPAIRED))
    out = []
    for f in findings:
        if f.status not in (NEW, UNPAIRED):
            out.append(f)
            continue
        occurrences, needed = regressions[(f.task_id, f.category)], policy.reproductions_needed(f.category)
        out.append(replace(f, occurrences=occurrences, needed=needed, blocking=f.blocking and occurrences >= needed))
    return out
