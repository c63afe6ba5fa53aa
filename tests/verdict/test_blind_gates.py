"""Hard gates a task failed in every valid base run are named: the suite is blind to a change there."""

from __future__ import annotations

from compare_builders import compare, index, policy, run

from instruction_gate.verdict import blind_gates
from instruction_gate.verdict.blind_gates import BlindGate
from instruction_gate.verdict.policy import policy_from_dict
from instruction_gate.verdict.results import ResultSet

MISSING = "required_command_missing"


def _results(runs: list[dict]) -> ResultSet:
    return ResultSet(runs={(r["task_id"], r["repeat"], r["variant"]): r for r in runs})


def _pairs(task: str, base: list[list[str]], candidate: list[list[str]], **fields) -> list[dict]:
    """Runs of `task`, one pair per repeat, failing the listed gates in each arm."""
    return [r for repeat, (b, c) in enumerate(zip(base, candidate))
            for r in (run(task, repeat, "base", hard=b, **fields), run(task, repeat, "candidate", hard=c, **fields))]


def test_a_gate_failed_in_every_base_run_is_blind():
    runs = _pairs("t", [[MISSING, "required_check_failed"], [MISSING], [MISSING]], [[MISSING], [MISSING], []])
    found = blind_gates.find(_results(runs), policy_from_dict(policy()))
    assert found == [BlindGate("t", MISSING, base_runs=3, candidate_runs=3, candidate_runs_failing=2)]


def test_one_passing_base_run_or_none_valid_is_not_blind():
    passing = _pairs("a", [[MISSING], [], [MISSING]], [[MISSING]] * 3)
    lost = [run("b", 0, "base", valid=False, hard=[MISSING]), run("b", 0, "candidate", hard=[MISSING])]
    assert blind_gates.find(_results(passing + lost), policy_from_dict(policy())) == []


def test_invalid_base_runs_are_left_out_of_the_count():
    runs = _pairs("t", [[MISSING], [MISSING]], [[MISSING], [MISSING]])
    runs.append(run("t", 2, "base", valid=False))  # lost: no evidence either way
    found = blind_gates.find(_results(runs), policy_from_dict(policy()))
    assert [(g.task_id, g.base_runs, g.candidate_runs) for g in found] == [("t", 2, 2)]


def test_a_gate_the_policy_does_not_block_on_is_not_reported():
    runs = _pairs("t", [[MISSING]] * 2, [[MISSING]] * 2)
    assert blind_gates.find(_results(runs), policy_from_dict(policy(hard={"categories": {MISSING: False}}))) == []


def test_the_warning_names_each_gate_once_with_what_to_do():
    gates = [BlindGate(t, MISSING, 3, 3, 3) for t in ("a", "b", "c", "d")] + \
        [BlindGate("e", "required_check_failed", 2, 2, 1)]
    (warning,) = blind_gates.warnings(gates)
    assert warning == ("hard gates failed in every base run, so the suite cannot see a change to what they check: "
                       "required_command_missing in 4 tasks (a, b, c, +1 more) — run `validate-tasks`: its base-arm table "
                       "shows what the base instructions make the agent do; they, not the prompt, must lead to what "
                       "the gate checks; required_check_failed in task e (2 of 2 base runs) — run `validate-tasks` "
                       "to see whether the task's checks can pass")
    assert blind_gates.warnings([]) == []


def test_compare_warns_but_keeps_the_verdict_when_the_prompts_never_ask_for_the_command(tmp_path):
    # The real case: no prompt made the agent run pytest, so every run of both arms failed the
    # gate; deleting "run the tests" from the instructions changed nothing the suite could see.
    runs = _pairs("fix-bug", [[MISSING]] * 3, [[MISSING]] * 3, missing_commands=["pytest"])
    runs += _pairs("add-test", [[]] * 3, [[]] * 3)
    code, summary, markdown = compare(tmp_path, index(runs), policy())
    assert code == 0 and summary["verdict"] == "pass" and summary["failures"] == []
    assert summary["blind_gates"] == [{"task_id": "fix-bug", "category": MISSING, "base_runs": 3,
                                       "candidate_runs": 3, "candidate_runs_failing": 3}]
    assert any(w.startswith("hard gate failed in every base run") and "fix-bug" in w for w in summary["warnings"])
    no_change = next(line for line in markdown.splitlines() if line.startswith("No behaviour change"))
    assert "blind to hard gate `required_command_missing` (failed in every base run of 1 task (fix-bug))" in no_change
    hard_gates = markdown.split("### Hard gates", 1)[1]
    assert "task fix-bug: `required_command_missing` failed in every base run (3 of 3; candidate 3 of 3)" in hard_gates


def test_compare_reports_no_blind_gate_when_a_base_run_passes(tmp_path):
    runs = _pairs("fix-bug", [[MISSING], [], [MISSING]], [[MISSING]] * 3, missing_commands=["pytest"])
    code, summary, markdown = compare(tmp_path, index(runs), policy())
    assert summary["blind_gates"] == [] and "blind to" not in markdown and "every base run" not in markdown
