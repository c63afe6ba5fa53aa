"""Command patterns against what an agent really ran: required commands must have started, and
forbidden ones are found on any line of a multi-line command."""

from __future__ import annotations

import pytest

from instruction_gate.rules.bundle import RunBundle
from instruction_gate.rules.model import Outcome, RuleInfo, EvidenceType, evaluate
from instruction_gate.rules.trajectory import CommandForbidden, CommandOrder, CommandRequired
from instruction_gate.run import gates
from instruction_gate.run.adapter import AdapterOutcome
from instruction_gate.suite.manifest import Task
from instruction_gate.verdict.gate_evidence import forbidden_command

INFO = RuleInfo("r", "command_required", "workflow.tool_usage", EvidenceType.TRAJECTORY, exact=True)


def _outcome(rule, events) -> Outcome:
    return evaluate(rule, RunBundle.from_events(events)).outcome


NOT_RUN = {
    "not found": [{"type": "tool", "command": "pytest -q", "exit_code": 127}],
    "not executable": [{"type": "tool", "command": "pytest -q", "exit_code": 126}],
    "refused by the command policy": [{"type": "tool", "command": "pytest -q", "exit_code": 126,
                                       "refused": "not on the allowlist"}],
    "refused without an exit code": [{"type": "tool", "command": "pytest -q", "refused": "policy"}],
    "declined by the agent's approval policy": [
        {"type": "tool", "command": "pytest -q"},
        {"type": "policy", "name": "permission_denied", "tool": "shell", "command": "pytest -q"}],
}


@pytest.mark.parametrize("case", sorted(NOT_RUN))
def test_a_command_that_never_ran_does_not_satisfy_a_required_command(case):
    assert _outcome(CommandRequired(INFO, "pytest"), NOT_RUN[case]) is Outcome.VIOLATED
    assert _outcome(CommandOrder(INFO, "pytest", after_command="^git add"),
                    [{"type": "tool", "command": "git add -u", "exit_code": 0}, *NOT_RUN[case]]) is Outcome.VIOLATED


@pytest.mark.parametrize("command, exit_code", [("pytest -q", 0), ("pytest -q", 1), ("pytest -q", None),
                                                ("make test", 2), ("make test", 124), ("npm test", 4)])
def test_a_command_that_ran_to_completion_satisfies_it_whatever_its_exit_code(command, exit_code):
    # A test failure (pytest 1, make 2) is a finished run; tests/rules/test_completion.py has the rest.
    event = {"type": "tool", "command": command, **({} if exit_code is None else {"exit_code": exit_code})}
    assert _outcome(CommandRequired(INFO, command.split()[0]), [event]) is Outcome.SATISFIED


def test_a_denial_of_another_command_leaves_this_one_run():
    events = [{"type": "tool", "command": "pytest -q"},
              {"type": "policy", "name": "permission_denied", "command": "rm -rf build"}]
    assert _outcome(CommandRequired(INFO, "pytest"), events) is Outcome.SATISFIED


def test_the_required_command_gate_fails_when_the_command_only_was_refused():
    task = Task(id="t", kind="k", cwd=".", prompt_files=("p.md",), checks=(), fixture_patch=None,
                reference_solution=None, required_command_patterns=("pytest",), forbidden_command_patterns=("pytest",),
                forbidden_globs=(), required_events=(), required_instruction_sources=(), timeout_seconds=10,
                max_tool_calls=None, max_provider_cost_usd=None, check_timeout_seconds=10)
    outcome = AdapterOutcome(events=NOT_RUN["refused by the command policy"], result={"status": "completed"})
    evidence = gates.evidence_from(outcome, [], True, True)
    fields = gates.hard_failures(task, gates.Classification(None, None), outcome, evidence)
    # Asked for and refused: not run (required fails), but still attempted (forbidden is observed).
    assert fields["missing_commands"] == ["pytest"] and fields["forbidden_commands"] == ["pytest"]
    assert {"required_command_missing", "forbidden_command_observed"} <= set(fields["hard_failures"])


MULTI_LINE = {
    "heredoc": ("bash <<'EOF'\necho hi\nterraform apply -auto-approve\nEOF", r"^terraform apply"),
    "continuation": ("terraform \\\n  apply -auto-approve", r"terraform apply"),
    "continuation with an anchor": ("echo ok && \\\nterraform apply", r"^echo ok && terraform apply"),
    "star across lines": ("git commit -m x\ngit push --force", r"git commit.*push"),
    "sh -c with a newline": ("sh -c 'true\nrm -rf /'", r"^rm -rf /"),
}


@pytest.mark.parametrize("case", sorted(MULTI_LINE))
def test_forbidden_patterns_find_a_command_on_a_later_line(case):
    command, pattern = MULTI_LINE[case]
    events = [{"type": "tool", "command": command, "exit_code": 0}]
    assert _outcome(CommandForbidden(INFO, pattern), events) is Outcome.VIOLATED


def test_single_line_commands_match_as_before():
    events = [{"type": "tool", "command": "terraform plan", "exit_code": 0}]
    assert _outcome(CommandForbidden(INFO, r"^terraform apply"), events) is Outcome.SATISFIED
    assert _outcome(CommandForbidden(INFO, r"terraform.*apply"), events) is Outcome.SATISFIED


def test_the_gate_evidence_names_the_multi_line_command_that_matched():
    run = {"events": [{"type": "tool", "command": "bash <<'EOF'\nterraform apply\nEOF", "exit_code": 0}]}
    assert "ran " in forbidden_command(r"^terraform apply", run, None)
