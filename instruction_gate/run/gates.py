"""Classify a run and derive its hard-gate failures from the adapter's evidence."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from instruction_gate.run import failure_detail
from instruction_gate.run.adapter import AdapterOutcome
from instruction_gate.run.limits import limit_reason
from instruction_gate.suite.manifest import Task
from instruction_gate.rules.bundle import RunBundle
from instruction_gate.rules.legacy import evaluate_legacy

#: Every hard-failure category, in report order.
HARD_FAILURES = (
    "agent_not_completed", "tool_call_count_unavailable", "tool_call_cap_exceeded",
    "provider_cost_unavailable", "provider_cost_cap_exceeded", "patch_did_not_apply",
    "required_check_failed", "forbidden_file_edited", "check_files_changed", "required_command_missing",
    "forbidden_command_observed", "required_policy_event_missing", "instruction_source_missing",
)


@dataclass(frozen=True)
class Classification:
    failure_class: str | None  #: None, "agent" or "infrastructure"
    failure_reason: str | None
    failure_detail: str | None = None  #: infrastructure only: the error line (`failure_detail.py`)

    @property
    def valid(self) -> bool:
        return self.failure_class != "infrastructure"


def classify(outcome: AdapterOutcome, timeout: float) -> Classification:
    if outcome.start_error:
        return Classification("infrastructure", f"adapter could not start: {outcome.start_error}")
    if outcome.over_limit:
        # The agent's own output, steered by the instructions: its fault, and counted.
        return Classification("agent", limit_reason(outcome.over_limit))
    if outcome.timed_out:
        return Classification("agent", f"timeout: no result within {timeout:g}s (process group killed)")
    result = outcome.result
    if result is None:
        return Classification("infrastructure", f"adapter exited {outcome.exit_code} without a result event",
                              failure_detail.from_adapter(None, outcome.stderr_tail))
    status = result.get("status")
    declared = result.get("failure_class")
    reason = result.get("failure_reason")
    if status == "completed" and outcome.exit_code == 0 and declared is None:
        return Classification(None, None)
    if declared == "infrastructure":
        return Classification("infrastructure", f"{status}: {reason or 'reported by adapter'}",
                              failure_detail.from_adapter(result, outcome.stderr_tail))
    if status == "completed" and outcome.exit_code != 0:
        return Classification("infrastructure", f"result says completed but adapter exited {outcome.exit_code}")
    return Classification("agent", f"{status}{': ' + str(reason) if reason else ''}")


@dataclass(frozen=True)
class Evidence:
    """What the gates look at, gathered from one run."""

    commands: list[str]
    event_names: set[str]
    instruction_sources: set[str]
    edited_files: list[str]
    patch_applied: bool
    checks_passed: bool
    #: Positions in `commands` of commands that never ran (refused, declined, exit 126/127):
    #: they may be forbidden, but they never satisfy a required command.
    not_run: frozenset[int] = frozenset()
    #: Exit code of each command in `commands` (None: not reported): a required command must also
    #: have completed (rules/completion.py); empty when unknown.
    exit_codes: tuple[int | None, ...] = ()
    #: Files steering the checks that the agent changed and the policy left in place (`check_files: fail`).
    check_files_left: tuple[str, ...] = ()


def evidence_from(outcome: AdapterOutcome, edited: list[str], patch_applied: bool, checks_passed: bool,
                  check_files_left: list[str] | tuple[str, ...] = ()) -> Evidence:
    events = outcome.events
    sources = (outcome.result or {}).get("instruction_sources") or []
    commands = RunBundle.from_events(events).commands
    return Evidence(
        commands=[c.text for c in commands], not_run=frozenset(i for i, c in enumerate(commands) if not c.ran),
        exit_codes=tuple(c.exit_code for c in commands),
        event_names={str(e["name"]) for e in events if e.get("name") is not None},
        instruction_sources={str(s) for s in sources if isinstance(s, str)},
        edited_files=edited, patch_applied=patch_applied, checks_passed=checks_passed,
        check_files_left=tuple(check_files_left),
    )


def reported_number(value: Any) -> float | None:
    """A usage figure an adapter reported, or None when it reported none a count can be: missing,
    not a number, negative, NaN or infinite (a NaN cost would pass every cap)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) and value >= 0 else None


def hard_failures(task: Task, classification: Classification, outcome: AdapterOutcome, ev: Evidence) -> dict[str, Any]:
    """The hard-failure list and the per-gate evidence fields of the run record."""
    result = outcome.result or {}
    failures: list[str] = []
    tool_calls, cost = reported_number(result.get("tool_calls")), reported_number(result.get("provider_cost_usd"))
    # The reference-format checks are rule instances; a gate fails exactly when its rule is violated.
    _, fields = evaluate_legacy(task, ev)
    missing_commands, forbidden_commands = fields["missing_commands"], fields["forbidden_commands"]
    forbidden_files, missing_events = fields["forbidden_files"], fields["missing_events"]
    missing_sources = fields["missing_instruction_sources"]
    checks = {
        "agent_not_completed": classification.failure_class is not None,
        # A cap of null means "no cap", and then the count is not required either.
        "tool_call_count_unavailable": task.max_tool_calls is not None and tool_calls is None,
        "tool_call_cap_exceeded": task.max_tool_calls is not None and tool_calls is not None and tool_calls > task.max_tool_calls,
        "provider_cost_unavailable": task.max_provider_cost_usd is not None and cost is None,
        "provider_cost_cap_exceeded": task.max_provider_cost_usd is not None and cost is not None and cost > task.max_provider_cost_usd,
        "patch_did_not_apply": not ev.patch_applied,
        "required_check_failed": ev.patch_applied and not ev.checks_passed,
        "forbidden_file_edited": bool(forbidden_files),
        "check_files_changed": bool(ev.check_files_left),
        "required_command_missing": bool(missing_commands),
        "forbidden_command_observed": bool(forbidden_commands),
        "required_policy_event_missing": bool(missing_events),
        "instruction_source_missing": bool(missing_sources),
    }
    failures = [name for name in HARD_FAILURES if checks[name]]
    return {
        "hard_failures": failures, "forbidden_files": forbidden_files, "missing_commands": missing_commands,
        "forbidden_commands": forbidden_commands, "missing_events": missing_events,
        "missing_instruction_sources": missing_sources,
    }
