"""A required command counts only when it ran to completion: not killed, not timed out, and, for
pytest, not a session that ran no test (exit 2-5). Forbidden commands still see every attempt."""

from __future__ import annotations

import pytest

from instruction_gate.rules.bundle import Command, RunBundle
from instruction_gate.rules.completion import incomplete_reason
from instruction_gate.rules.model import EvidenceType, Outcome, RuleInfo, evaluate
from instruction_gate.rules.trajectory import CommandForbidden, CommandOrder, CommandRequired
from instruction_gate.run import gates
from instruction_gate.run.adapter import AdapterOutcome
from instruction_gate.suite.manifest import Task
from instruction_gate.verdict.gate_evidence import missing_command

INFO = RuleInfo("r", "command_required", "workflow.tool_usage", EvidenceType.TRAJECTORY, exact=True)
COLLECTION = "pytest exit 4: usage or collection error"
#: Through a project runner the exit code may be the runner's own (uv cannot sync offline).
RUNNER_COLLECTION = "exit 4: pytest (usage or collection error), or `{}` failing before pytest started"


def tool(command: str, exit_code: int | None = None) -> dict:
    return {"type": "tool", "command": command, **({} if exit_code is None else {"exit_code": exit_code})}


def judged(rule, events):
    result = evaluate(rule, RunBundle.from_events(events))
    return result.outcome, result.evidence


NOT_COMPLETED = [
    ("pytest -q", 4, "pytest", COLLECTION),
    ("pytest -q", 2, None, "pytest exit 2: interrupted"),
    ("pytest -q", 3, None, "pytest exit 3: internal error"),
    ("pytest -q", 5, None, "pytest exit 5: no tests collected"),
    ("py.test tests", 4, None, COLLECTION),
    ("./.venv/bin/pytest", 4, None, COLLECTION),
    ("python -m pytest tests", 5, "pytest", "pytest exit 5: no tests collected"),
    ("python3.12 -X dev -m pytest", 4, None, COLLECTION),
    ("uv run --with pytest-cov pytest -q", 4, "pytest", RUNNER_COLLECTION.format("uv run")),
    ("poetry run pytest", 4, None, RUNNER_COLLECTION.format("poetry run")),
    ("uv run python -m pytest", 4, None, RUNNER_COLLECTION.format("uv run")),
    ("CI=1 pytest -q", 4, None, COLLECTION),
    ("env -u HOME PYTHONHASHSEED=0 pytest", 4, None, COLLECTION),
    ("cd pkg && pytest -q", 4, "pytest", COLLECTION),
    ("cd pkg && pytest -q", 4, r"cd pkg && pytest", COLLECTION),  # a pattern across the chain
    ("make deps && pytest -q", 4, "pytest", COLLECTION),  # make failed (pytest never ran) or pytest did
    ("cd pkg; pytest -q", 4, "pytest", COLLECTION),
    ("pytest -q 2>&1", 4, "pytest", COLLECTION),  # a redirection is not a background job
    ("pytest -q  # all of them", 4, "pytest", COLLECTION),
    ("(cd pkg && pytest)", 4, "pytest", COLLECTION),
    ("bash -lc 'cd pkg && pytest -q'", 4, "pytest", COLLECTION),
    ('echo "a; b" && pytest', 5, "pytest", "pytest exit 5: no tests collected"),
    ("pytest \\\n  -q", 4, "pytest", COLLECTION),
    ("timeout 60 pytest -q", 124, "pytest", "timed out: `timeout` exit 124"),
    ("timeout -s KILL 5m make test", 124, "make test", "timed out: `timeout` exit 124"),
    ("pytest -q", 137, "pytest", "killed by SIGKILL (exit 137)"),
    ("pytest -q", -15, "pytest", "killed by SIGTERM"),
    ("make build && make test", 143, "make build", "killed by SIGTERM (exit 143)"),  # the whole line stopped
    ("git fetch", 128, "git", "exit 128, in the range a shell reports for a killed command"),
]


@pytest.mark.parametrize("command, exit_code, pattern, reason", NOT_COMPLETED)
def test_commands_that_started_but_did_not_complete(command, exit_code, pattern, reason):
    assert incomplete_reason(command, exit_code, pattern) == reason


COMPLETED = [
    ("pytest -q", None, "pytest"),  # no exit code reported: no evidence to refuse
    ("pytest -q", 0, "pytest"),
    ("pytest -q", 1, "pytest"),  # tests failed: they ran
    ("make test", 2, "make"),  # make's error, not pytest's
    ("npm test", 4, "npm"),
    ("make test", 124, "make"),  # 124 means a timeout only from `timeout`
    ("tox", 4, "tox"),
    ("python -c 'import pytest'", 4, "pytest"),
    ("python scripts/check.py", 4, "check"),
    ("make build && pytest -q", 4, "make build"),  # the earlier step matched, and nothing says it failed
    ("pytest -q; echo done", 4, "pytest"),  # the exit code is echo's
    ("pytest -q | tail -5", 4, "pytest"),  # ... and here tail's
    ("pytest -q || make report", 2, "pytest"),  # pytest failed, then make: the exit code is make's
]


@pytest.mark.parametrize("command, exit_code, pattern", COMPLETED)
def test_commands_that_completed_or_give_no_evidence_otherwise(command, exit_code, pattern):
    assert incomplete_reason(command, exit_code, pattern) is None


def test_a_crashed_command_still_ran():
    crashed = Command("pytest -q", 0, 0, exit_code=4)
    assert crashed.ran and not crashed.completed and crashed.unfinished("pytest") == COLLECTION
    assert not Command("pytest -q", 0, 0, exit_code=127).completed  # never ran at all
    assert Command("pytest -q", 0, 0).completed


def test_a_required_command_that_crashed_in_every_attempt_is_violated_and_says_why():
    outcome, evidence = judged(CommandRequired(INFO, "pytest"), [tool("pytest -q", 4)])
    assert outcome is Outcome.VIOLATED
    assert evidence == (f"run: `pytest -q` matched 'pytest' but did not complete ({COLLECTION})",)
    outcome, evidence = judged(CommandRequired(INFO, "pytest"),
                               [tool("pytest -q", 4), tool("ls", 0), tool("python -m pytest -x", 5)])
    assert evidence == ("run: `python -m pytest -x` matched 'pytest' but did not complete (pytest exit 5: "
                        "no tests collected); nor did 1 earlier matching command(s)",)


def test_one_completed_attempt_satisfies_a_required_command():
    events = [tool("pytest -q", 4), tool("pip install -e .", 0), tool("pytest -q", 1)]
    assert judged(CommandRequired(INFO, "pytest"), events)[0] is Outcome.SATISFIED
    assert judged(CommandRequired(INFO, "pytest"), [tool("pytest -q", 4), tool("pytest -q")])[0] is Outcome.SATISFIED


def test_a_forbidden_command_that_crashed_was_still_run():
    assert judged(CommandForbidden(INFO, r"git\s+push"), [tool("git push --force", 137)])[0] is Outcome.VIOLATED
    assert judged(CommandForbidden(INFO, "pytest"), [tool("pytest -q", 4)])[0] is Outcome.VIOLATED


EDIT = {"type": "file_change", "path": "a.py", "change": "modify"}


def test_command_order_needs_a_completed_run_after_the_edit():
    outcome, evidence = judged(CommandOrder(INFO, "pytest"), [EDIT, tool("pytest -q", 4)])
    assert outcome is Outcome.VIOLATED
    assert evidence == (f"the last edit: `pytest -q` matched 'pytest' but did not complete ({COLLECTION})",)
    # One completed run after the edit is enough; a test failure completed.
    assert judged(CommandOrder(INFO, "pytest"), [EDIT, tool("pytest -q", 4), tool("pytest -q", 1)])[0] \
        is Outcome.SATISFIED
    # A completed run before the edit does not count for after it.
    assert judged(CommandOrder(INFO, "pytest"), [tool("pytest -q", 0), EDIT, tool("pytest -q", 137)])[0] \
        is Outcome.VIOLATED


def test_command_order_require_success_tells_not_completed_from_failed():
    rule = CommandOrder(INFO, "pytest", require_success=True)
    outcome, evidence = judged(rule, [EDIT, tool("pytest -q", 5)])
    assert outcome is Outcome.VIOLATED and "did not complete (pytest exit 5: no tests collected)" in evidence[0]
    outcome, evidence = judged(rule, [EDIT, tool("pytest -q", 1)])
    assert outcome is Outcome.VIOLATED and "ran after it but did not exit 0" in evidence[0]
    assert judged(rule, [EDIT, tool("pytest -q", 4), tool("pytest -q", 0)])[0] is Outcome.SATISFIED
    # No exit code: completed, but whether it succeeded is unknown.
    assert judged(rule, [EDIT, tool("pytest -q")])[0] is Outcome.UNDETERMINED


def _task(required: tuple[str, ...], forbidden: tuple[str, ...] = ()) -> Task:
    return Task(id="t", kind="k", cwd=".", prompt_files=("p.md",), checks=(), fixture_patch=None,
                reference_solution=None, required_command_patterns=required, forbidden_command_patterns=forbidden,
                forbidden_globs=(), required_events=(), required_instruction_sources=(), timeout_seconds=10,
                max_tool_calls=None, max_provider_cost_usd=None, check_timeout_seconds=10)


def _gate_fields(task: Task, events: list[dict]) -> dict:
    outcome = AdapterOutcome(events=events, result={"status": "completed"})
    evidence = gates.evidence_from(outcome, [], True, True)
    return gates.hard_failures(task, gates.Classification(None, None), outcome, evidence)


def test_the_required_command_gate_fails_when_pytest_could_not_collect():
    fields = _gate_fields(_task(("pytest", "make build"), ("pytest",)),
                          [tool("make build && cd pkg && pytest -q", 4)])
    # pytest never ran a test; make build (matched by the earlier step) is not doubted.
    assert fields["missing_commands"] == ["pytest"] and "required_command_missing" in fields["hard_failures"]
    assert fields["forbidden_commands"] == ["pytest"]  # attempted all the same


@pytest.mark.parametrize("exit_code", [None, 0, 1])
def test_the_required_command_gate_passes_when_pytest_ran_its_tests(exit_code):
    fields = _gate_fields(_task(("pytest",)), [tool("pytest -q", exit_code)])
    assert fields["missing_commands"] == [] and "required_command_missing" not in fields["hard_failures"]


def test_the_hard_gate_evidence_says_the_command_did_not_complete():
    run = {"events": [tool("ls", 0), tool("pytest -q", 4)], "rule_sources": {"pytest": "AGENTS.md:3"}}
    assert missing_command("pytest", run, None) == \
        f"pytest: ran but did not complete: `pytest -q` ({COLLECTION}) (rule: AGENTS.md:3)"
    never_ran = {"events": [tool("pytest -q", 127)]}
    assert missing_command("pytest", never_ran, None) == "pytest: not run; closest: `pytest -q`"


def test_a_launchers_exit_is_not_blamed_on_pytest_alone():
    from instruction_gate.rules.completion import incomplete_reason

    reason = incomplete_reason("uv run pytest -q", 2)
    assert reason == "exit 2: pytest (interrupted), or `uv run` failing before pytest started"
    assert incomplete_reason("python -m pytest -q", 4) == "pytest exit 4: usage or collection error"
