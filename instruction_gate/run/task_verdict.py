"""A task's validation verdict from its two check runs: valid, vacuous, broken or unverified."""

from __future__ import annotations

from dataclasses import dataclass

from instruction_gate.run import check_env
from instruction_gate.run.task_validation import TaskRuns, TreeChecks
from instruction_gate.verdict import check_health

TAIL_LINES = 12


@dataclass(frozen=True)
class Verdict:
    task_id: str
    status: str  #: valid | vacuous | broken | unverified
    reason: str
    tail: str  #: last lines of the failing check's output, when one is to blame


def _failing(result: TreeChecks) -> dict | None:
    return next((c for c in result.checks if not check_env.passed(c)), None)


def _describe(check: dict) -> str:
    outcome = "timed out" if check["timed_out"] else ("could not start" if check["exit_code"] is None
                                                       else f"exit {check['exit_code']}")
    if check["exit_code"] == 0 and check.get("not_passed_because"):
        outcome += f", but {check['not_passed_because']}"
    return f"`{' '.join(check['argv'])}` ({outcome})"


def _tail(check: dict | None) -> str:
    if check is None:
        return ""
    text = f"{check.get('stdout_tail') or ''}\n{check.get('stderr_tail') or ''}".strip()
    return "\n".join(text.splitlines()[-TAIL_LINES:])


def _foreign(result: TreeChecks | None) -> str | None:
    if result is None or not result.foreign_imports:
        return None
    name, where = sorted(result.foreign_imports.items())[0]
    return (f"checks import {name} from {where}, outside the validation workspace (an installed copy: the "
            "checks do not see the agent's tree)")


def judge(runs: TaskRuns, signatures: list[check_health.Signature]) -> Verdict:
    task = runs.task
    if runs.problem:
        return Verdict(task.id, "broken", runs.problem, "")
    assert runs.start is not None
    foreign = _foreign(runs.start) or _foreign(runs.solution)
    if foreign:  # the root cause, whatever the checks said
        return Verdict(task.id, "vacuous", foreign, "")
    if runs.solution is not None and not runs.solution.passed:
        check = _failing(runs.solution)
        env = check_health.environment_failure({"checks": [check]}, signatures)
        why = f" — the check environment looks broken ({env})" if env else ""
        return Verdict(task.id, "broken", f"with the reference solution, {_describe(check)} fails{why}", _tail(check))
    if task.checks_pass_at_start and not runs.start.passed:
        check = _failing(runs.start)
        return Verdict(task.id, "broken", f"declares checks_pass_at_start, but {_describe(check)} fails on the "
                                          "starting tree", _tail(check))
    if not task.checks_pass_at_start and runs.start.passed:
        what = "has no checks" if not task.checks else "its checks pass on the starting tree (base + fixture)"
        return Verdict(task.id, "vacuous", f"{what}: they cannot tell a solved task from an unsolved one "
                                           "(a negative control declares checks_pass_at_start)", "")
    if runs.solution is None and not task.checks_pass_at_start:
        check = _failing(runs.start)
        return Verdict(task.id, "unverified", f"no reference_solution: nothing shows the checks can pass "
                                              f"({_describe(check)} fails on the starting tree)", _tail(check))
    if task.checks_pass_at_start:
        return Verdict(task.id, "valid", "checks pass on the starting tree, as declared"
                       + ("" if runs.solution is None else ", and with the reference solution"), "")
    check = _failing(runs.start)
    return Verdict(task.id, "valid", f"{_describe(check)} fails on the starting tree; every check passes with "
                                     "the reference solution", _tail(check))
