"""Hard gates: candidate regressions vs pre-existing failures, and the policy flags."""

from __future__ import annotations

import pytest

from compare_builders import compare, index, outcome_runs, policy
from instruction_gate.verdict.hardgates import classify
from instruction_gate.verdict.policy import CATEGORY_FLAGS, policy_from_dict
from instruction_gate.verdict.results import ResultSet


def runs_with(failures: dict[tuple[str, int, str], list[str]], **extra):
    runs = outcome_runs({f"t{i}": [(True, True), (True, True)] for i in range(3)})
    for record in runs:
        key = (record["task_id"], record["repeat"], record["variant"])
        if key in failures:
            record["hard_failures"] = failures[key]
            record.update(extra)
    return runs


PREEXISTING = {("t0", 0, "base"): ["forbidden_file_edited"], ("t0", 0, "candidate"): ["forbidden_file_edited"]}
NEW = {("t1", 1, "candidate"): ["forbidden_command_observed"]}


def test_preexisting_failures_do_not_block_by_default(tmp_path):
    code, summary, markdown = compare(tmp_path, index(runs_with(PREEXISTING, forbidden_files=["infra/prod/a.tf"])),
                                      policy())
    assert code == 0 and summary["verdict"] == "pass"
    assert summary["hard_failures"] == [{"task_id": "t0", "repeat": 0, "variant": "both",
                                         "category": "forbidden_file_edited", "status": "pre-existing",
                                         "blocking": False, "evidence": "infra/prod/a.tf"}]
    assert "| t0 | `forbidden_file_edited` | pre-existing | 1 of 2 (0) | no | infra/prod/a.tf |" in markdown


def test_preexisting_failures_block_when_policy_says_so(tmp_path):
    code, summary, _ = compare(tmp_path, index(runs_with(PREEXISTING)), policy(hard={"fail_on_preexisting": True}))
    assert code == 1 and summary["failures"] == ["hard.forbidden_file_edited"]


def test_new_candidate_failure_blocks_even_in_warn_mode(tmp_path):
    code, summary, _ = compare(tmp_path, index(runs_with(NEW, forbidden_commands=["git push --force"])),
                               policy({"mode": "warn"}))
    assert code == 1 and summary["verdict"] == "fail"
    assert summary["errors"] == ["hard gate forbidden_command_observed (new) in t1 repeat 1: git push --force"]


@pytest.mark.parametrize("hard", [{"fail_on_policy_violation": False},
                                  {"categories": {"forbidden_command_observed": False}}])
def test_policy_flags_can_switch_a_category_off(tmp_path, hard):
    code, summary, _ = compare(tmp_path, index(runs_with(NEW)), policy(hard=hard))
    assert code == 0 and summary["hard_failures"][0]["blocking"] is False
    assert "not blocking by policy" in summary["warnings"][0]


def test_category_override_beats_group_flag():
    chosen = policy_from_dict(policy(hard={"fail_on_policy_violation": False,
                                           "categories": {"required_command_missing": True}}))
    assert chosen.blocks_category("required_command_missing")
    assert not chosen.blocks_category("forbidden_command_observed")
    assert chosen.blocks_category("some_future_category")  # fail_on_unknown_category defaults to true


def test_every_reference_category_has_a_documented_flag():
    properties = policy_from_dict({}).hard
    from instruction_gate.run.gates import HARD_FAILURES
    assert set(CATEGORY_FLAGS) == set(HARD_FAILURES) and all(flag in properties for flag in CATEGORY_FLAGS.values())


def test_fixed_unpaired_and_invalid_runs():
    runs = runs_with({("t0", 0, "base"): ["required_check_failed"], ("t2", 1, "candidate"): ["tool_call_cap_exceeded"],
                      ("t1", 0, "candidate"): ["agent_not_completed"]}, tool_calls=99)
    for record in runs:
        if (record["task_id"], record["repeat"], record["variant"]) == ("t2", 1, "base"):
            record["valid"] = False
        if (record["task_id"], record["repeat"]) == ("t1", 0):
            record["valid"] = False  # an infrastructure failure carries no evidence
    result = ResultSet(runs={(r["task_id"], r["repeat"], r["variant"]): r for r in runs})
    findings = {(f.task_id, f.category): f for f in classify(result, policy_from_dict({}))}
    assert findings[("t0", "required_check_failed")].status == "fixed"
    assert not findings[("t0", "required_check_failed")].blocking
    assert findings[("t2", "tool_call_cap_exceeded")].status == "unpaired"
    assert findings[("t2", "tool_call_cap_exceeded")].blocking
    assert findings[("t2", "tool_call_cap_exceeded")].evidence == "99 tool calls"
    assert ("t1", "agent_not_completed") not in findings


def test_hard_regressions_fail_even_when_statistics_cannot_be_evaluated(tmp_path):
    runs = runs_with(NEW)
    for record in runs:
        if record["task_id"] != "t1":
            record["valid"] = False
    code, summary, _ = compare(tmp_path, index(runs), policy())
    assert code == 1 and summary["verdict"] == "fail" and summary["not_evaluated"]


def test_shipped_policy_validates_and_gates_in_warn_mode():
    from pathlib import Path

    from instruction_gate.verdict.policy import load_policy

    shipped = load_policy(Path(__file__).resolve().parent.parent / "policy.json")
    assert shipped.soft["mode"] == "warn" and shipped.soft["max_success_rate_drop"] == 0.1
    assert shipped.blocks_category("forbidden_file_edited") and not shipped.hard["fail_on_preexisting"]


# t1 misses the required command in one repeat of two; t2 in both.
SLIP = {("t1", 1, "candidate"): ["required_command_missing"]}
REPRODUCED = {("t2", 0, "candidate"): ["required_command_missing"], ("t2", 1, "candidate"): ["required_command_missing"]}


def test_a_one_off_regression_does_not_block_when_the_policy_needs_two(tmp_path):
    code, summary, markdown = compare(tmp_path, index(runs_with(SLIP, missing_commands=["pytest"])),
                                      policy(hard={"min_reproductions": 2}))
    assert code == 0 and summary["verdict"] == "pass"
    assert summary["hard_failures"][0] == {"task_id": "t1", "repeat": 1, "variant": "candidate",
                                               "category": "required_command_missing", "status": "new",
                                               "blocking": False, "evidence": "pytest: no command ran", "occurrences": 1,
                                               "needed": 2}
    assert "seen in 1 repeat(s) of the task, policy needs 2" in summary["warnings"][0]
    assert "| t1 | `required_command_missing` | new | 1 of 2 (1) | no (1 of 2) | pytest: no command ran |" in markdown and "`hard.min_reproductions`" in markdown


def test_a_regression_seen_in_enough_repeats_blocks(tmp_path):
    code, summary, _ = compare(tmp_path, index(runs_with(REPRODUCED, missing_commands=["pytest"])),
                               policy(hard={"min_reproductions": 2}))
    assert code == 1 and summary["failures"] == ["hard.required_command_missing"]
    assert [(f["repeat"], f["blocking"], f["occurrences"]) for f in summary["hard_failures"]] == [(0, True, 2), (1, True, 2)]


def test_reproductions_are_counted_per_task_not_across_tasks(tmp_path):
    spread = {("t0", 0, "candidate"): ["required_command_missing"], ("t1", 1, "candidate"): ["required_command_missing"]}
    code, summary, _ = compare(tmp_path, index(runs_with(spread)), policy(hard={"min_reproductions": 2}))
    assert code == 0 and not any(f["blocking"] for f in summary["hard_failures"])


def test_a_category_can_still_block_on_its_first_occurrence(tmp_path):
    hard = {"min_reproductions": 2, "min_reproductions_by_category": {"forbidden_command_observed": 1}}
    both = {("t1", 1, "candidate"): ["forbidden_command_observed", "required_command_missing"]}
    code, summary, _ = compare(tmp_path, index(runs_with(both)), policy(hard=hard))
    assert code == 1 and summary["failures"] == ["hard.forbidden_command_observed"]
    needed = {f["category"]: f.get("needed", 1) for f in summary["hard_failures"]}
    assert needed == {"forbidden_command_observed": 1, "required_command_missing": 2}


@pytest.mark.parametrize("hard", [{"min_reproductions": 0}, {"min_reproductions_by_category": {"nonsense": 2}},
                                  {"min_reproductions_by_category": {"forbidden_file_edited": 0}}])
def test_bad_reproduction_settings_are_refused(hard):
    from instruction_gate.errors import ConfigError
    with pytest.raises(ConfigError):
        policy_from_dict(policy(hard=hard))


def _tool(command):
    return {"type": "tool", "command": command, "exit_code": 0}


def test_evidence_names_closest_commands_the_instruction_line_and_the_check_output(tmp_path):
    runs = outcome_runs({"t0": [(True, True)], "t1": [(True, False)], "t2": [(True, True)]})
    by_key = {(r["task_id"], r["variant"]): r for r in runs}
    by_key[("t0", "base")].update(rule_sources={"pytest": "AGENTS.md:3"})
    by_key[("t0", "candidate")].update(
        hard_failures=["required_command_missing"], missing_commands=["pytest"], rule_sources={},
        events=[_tool("ls src"), _tool("python -m unittest -q"), _tool("cat AGENTS.md")])
    by_key[("t1", "candidate")].update(hard_failures=["required_check_failed"], checks=[
        {"argv": ["python", "-m", "pytest", "-q"], "exit_code": 1, "timed_out": False, "duration_seconds": 1,
         "stdout_tail": "F.\n>       assert total == 12\nE       assert 11 == 12\n1 failed, 1 passed in 0.1s\n",
         "stderr_tail": ""}])
    by_key[("t2", "candidate")].update(hard_failures=["forbidden_command_observed"], forbidden_commands=["git push"],
                                       rule_sources={"git push": "services/AGENTS.override.md:7"},
                                       events=[_tool("git status"), _tool("git push --force origin main")])
    code, summary, markdown = compare(tmp_path, index(runs), policy())
    found = {f["category"]: f["evidence"] for f in summary["hard_failures"]}
    assert found["required_command_missing"] == (
        "pytest: not run; closest: `python -m unittest -q`, `ls src` "
        "(rule: AGENTS.md:3 in the base instructions; no line of this run's states it)")
    assert found["required_check_failed"] == (
        "python -m pytest -q (exit 1): >       assert total == 12 ⏎ E       assert 11 == 12 ⏎ 1 failed, 1 passed in 0.1s")
    assert found["forbidden_command_observed"] == (
        "git push: ran `git push --force origin main` (rule: services/AGENTS.override.md:7)")
    assert code == 1 and "| **yes** | pytest: not run; closest:" in markdown


def test_command_gate_evidence_reads_the_events_the_runner_wrote_beside_the_index(tmp_path):
    """Runner records keep their events in events.jsonl, not in index.json: the evidence must still
    name the commands that ran instead of saying none did."""
    runs = runs_with(SLIP, missing_commands=["pytest"])
    events = tmp_path / "out" / "t1" / "repeat-1" / "candidate" / "events.jsonl"
    events.parent.mkdir(parents=True)
    events.write_text('{"type": "tool", "tool": "shell", "command": "make test", "exit_code": 0}\n')
    _, summary, _ = compare(tmp_path, index(runs), policy(hard={"min_reproductions": 2}))
    assert summary["hard_failures"][0]["evidence"] == "pytest: not run; closest: `make test`"
