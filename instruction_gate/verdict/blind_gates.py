"""Hard gates a task fails in every base run: the suite cannot see a change to what they check.

When no base run of a task passes a gate (its prompts never make the agent run the required
command, say), the candidate's failures of it are pre-existing, never new, and an edit that
deletes the instruction behind the gate passes with "no behaviour change". Such gates are named
as a warning, never a gate failure: the verdict stands, but it says nothing about them until the
task asks for what the gate checks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from instruction_gate.verdict.policy import Policy
from instruction_gate.verdict.results import ResultSet

#: Gates a base run fails when the task never asks for what they check.
_ASKED_FOR = frozenset({"required_command_missing", "required_policy_event_missing", "instruction_source_missing"})


@dataclass(frozen=True)
class BlindGate:
    """One (task, hard gate) that every valid base run of the task failed."""

    task_id: str
    category: str  #: the hard-gate category (`required_command_missing`, …)
    base_runs: int  #: valid base runs of the task: every one failed the gate
    candidate_runs: int  #: valid candidate runs of the task
    candidate_runs_failing: int  #: ... of which failed the gate too

    def as_dict(self) -> dict[str, Any]:
        return {"task_id": self.task_id, "category": self.category, "base_runs": self.base_runs,
                "candidate_runs": self.candidate_runs, "candidate_runs_failing": self.candidate_runs_failing}


def _failures(run: dict[str, Any]) -> list[str]:
    return list(dict.fromkeys(map(str, run.get("hard_failures") or [])))


def find(results: ResultSet, policy: Policy) -> list[BlindGate]:
    """Per task with at least one valid base run, the blocking hard-gate categories all of its
    valid base runs failed; runs refiled as infrastructure (check_health) are not valid."""
    by_task: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for (task_id, _, variant), run in sorted(results.runs.items()):
        if run.get("valid", True) is True:
            by_task.setdefault(task_id, {"base": [], "candidate": []})[variant].append(run)
    found = []
    for task_id, arms in sorted(by_task.items()):
        base = [_failures(run) for run in arms["base"]]
        if not base:
            continue
        candidate = [_failures(run) for run in arms["candidate"]]
        for category in base[0]:
            if all(category in failed for failed in base) and policy.blocks_category(category):
                found.append(BlindGate(task_id, category, len(base), len(candidate),
                                       sum(category in failed for failed in candidate)))
    return found


def remedy(category: str) -> str:
    """What the suite's author can do so that a base run can pass the gate."""
    if category in _ASKED_FOR:
        # Not the prompt: a prompt that asks for it hides an edit that stops the instructions asking.
        return ("run `validate-tasks`: its base-arm table shows what the base instructions make the agent do; "
                "they, not the prompt, must lead to what the gate checks")
    if category == "required_check_failed":
        return "run `validate-tasks` to see whether the task's checks can pass"
    return "change the task so that a base run can pass the gate"


def warnings(gates: list[BlindGate]) -> list[str]:
    """The decision's warning: one line for all of them, by gate (an annotation each would crowd
    out the others); summary.json `blind_gates` and the hard-gate section list each task."""
    if not gates:
        return []
    by_category: dict[str, list[BlindGate]] = {}
    for gate in gates:
        by_category.setdefault(gate.category, []).append(gate)
    parts = []
    for category, found in by_category.items():
        if len(found) == 1:
            where = f"task {found[0].task_id} ({found[0].base_runs} of {found[0].base_runs} base runs)"
        else:
            more = f", +{len(found) - 3} more" if len(found) > 3 else ""
            where = f"{len(found)} tasks ({', '.join(g.task_id for g in found[:3])}{more})"
        parts.append(f"{category} in {where} — {remedy(category)}")
    lead = ("hard gate failed in every base run, so the suite cannot see a change to what it checks"
            if len(by_category) == 1 else
            "hard gates failed in every base run, so the suite cannot see a change to what they check")
    return [f"{lead}: {'; '.join(parts)}"]
