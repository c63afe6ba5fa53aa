"""The composite action's last step: step exit codes + summary.json -> outputs and exit code."""

from __future__ import annotations

import json

import pytest

from instruction_gate.report import action_report

FAILING_SUMMARY = {
    "verdict": "fail", "valid_pairs": 8, "headline": "FAIL: 2 blocking hard-gate findings",
    "failures": ["hard.required_command_missing"],
    "hard_failures": [
        {"task_id": "bug-tax-rounding", "repeat": 0, "variant": "candidate", "category": "required_command_missing",
         "status": "new", "blocking": True, "evidence": "pytest"},
        {"task_id": "bug-cache-key", "repeat": 0, "variant": "both", "category": "required_check_failed",
         "status": "pre-existing", "blocking": False, "evidence": "tests"},
    ],
    "tasks": [{"task_id": "docs-typo", "lost_repeats": [0]}],
}


def _run(tmp_path, env: dict[str, str]):
    output, step_summary = tmp_path / "output.txt", tmp_path / "summary.md"
    code = action_report.main({"GITHUB_OUTPUT": str(output), "GITHUB_STEP_SUMMARY": str(step_summary),
                               "RUNNER_TEMP": str(tmp_path), **env})
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines())
    return code, outputs, step_summary.read_text() if step_summary.exists() else ""


def test_gate_failure_names_blocking_tasks_only(tmp_path):
    (tmp_path / "summary.json").write_text(json.dumps(FAILING_SUMMARY))
    (tmp_path / "summary.md").write_text("# summary")
    code, outputs, _ = _run(tmp_path, {"MODE": "all", "OUTPUT_DIR": str(tmp_path), "VALIDATE_EXIT": "0",
                                       "AGENT_RUNS_EXIT": "1", "COMPARE_EXIT": "1"})
    assert code == 1
    assert outputs["verdict"] == "fail" and outputs["exit-code"] == "1" and outputs["valid-pairs"] == "8"
    # pre-existing failures do not block; lost repeats count only when a metric gate failed
    assert json.loads(outputs["failing-tasks"]) == ["bug-tax-rounding"]
    assert outputs["exit-reason"] == "FAIL: 2 blocking hard-gate findings; failing tasks: bug-tax-rounding"
    assert outputs["summary-json-path"] == str(tmp_path / "summary.json")


def test_metric_failure_names_tasks_that_lost_repeats():
    summary = dict(FAILING_SUMMARY, failures=["max_success_rate_drop"], hard_failures=[])
    assert action_report.failing_tasks(summary) == ("docs-typo",)


def test_refused_static_contract_stops_before_evaluation_and_explains(tmp_path):
    (tmp_path / "instruction-gate-validate.log").write_text("error: candidate changes src/app.py\n")
    code, outputs, step_summary = _run(tmp_path, {"MODE": "all", "OUTPUT_DIR": str(tmp_path), "VALIDATE_EXIT": "2"})
    assert code == 2
    assert outputs["verdict"] == "error"
    assert outputs["exit-reason"] == "static contract exited 2: usage or configuration error"
    assert outputs["summary-path"] == "" and outputs["failing-tasks"] == "[]"
    assert "candidate changes src/app.py" in step_summary


@pytest.mark.parametrize("evaluate_exit, expected", [("0", 0), ("1", 0), ("3", 3), ("2", 2)])
def test_evaluate_mode_leaves_hard_gate_regressions_to_compare(tmp_path, evaluate_exit, expected):
    code, outputs, _ = _run(tmp_path, {"MODE": "evaluate", "OUTPUT_DIR": str(tmp_path), "AGENT_RUNS_EXIT": evaluate_exit})
    assert code == expected
    assert outputs["verdict"] == ("" if expected == 0 else "error")


def test_a_stage_that_never_ran_is_an_error(tmp_path):
    code, outputs, _ = _run(tmp_path, {"MODE": "compare", "OUTPUT_DIR": str(tmp_path)})
    assert code == 3
    assert outputs["verdict"] == "error" and "compare did not run" in outputs["exit-reason"]


def test_changes_mode_reports_success_without_a_verdict(tmp_path):
    code, outputs, step_summary = _run(tmp_path, {"MODE": "changes", "OUTPUT_DIR": str(tmp_path), "CHANGES_EXIT": "0"})
    assert (code, outputs["verdict"], outputs["exit-reason"], step_summary) == (0, "", "change detection finished", "")


def test_failed_change_detection_fails_the_action(tmp_path):
    (tmp_path / "instruction-gate-changes.log").write_text("manifest.json::$.tasks: bad\n")
    code, outputs, step_summary = _run(tmp_path, {"MODE": "changes", "OUTPUT_DIR": str(tmp_path), "CHANGES_EXIT": "2"})
    assert (code, outputs["verdict"]) == (2, "error")
    assert "manifest.json::$.tasks: bad" in step_summary


def test_a_crashing_static_contract_is_not_called_a_gate_failure(tmp_path):
    code, outputs, _ = _run(tmp_path, {"MODE": "validate", "OUTPUT_DIR": str(tmp_path), "VALIDATE_EXIT": "1"})
    assert code == 3
    assert outputs["exit-reason"] == "static contract exited 1: unexpected exit, see the step's log"


@pytest.mark.parametrize("mode", ["validate", "all"])
def test_a_new_blocking_lint_finding_fails_the_gate_and_is_named(tmp_path, mode):
    lint = {"failed": True, "findings": [
        {"rule_id": "IG003", "rule": "stale-command", "path": "AGENTS.md", "line": 4, "new": True, "blocking": True},
        {"rule_id": "IG010", "rule": "hidden-text", "path": "CLAUDE.md", "line": 2, "new": False, "blocking": False}]}
    (tmp_path / "lint.json").write_text(json.dumps(lint))
    (tmp_path / "lint.md").write_text("lint\n")
    code, outputs, _ = _run(tmp_path, {"MODE": mode, "OUTPUT_DIR": str(tmp_path), "VALIDATE_EXIT": "1",
                                       "LINT_EXIT": "1"})
    assert code == 1 and outputs["verdict"] == "fail" and outputs["summary-path"] == str(tmp_path / "lint.md")
    assert outputs["exit-reason"] == ("FAIL: the instruction lint found 1 new blocking finding(s): "
                                      "IG003 stale-command at AGENTS.md:4")


def test_a_lint_that_crashed_is_still_not_a_gate_failure(tmp_path):
    code, outputs, _ = _run(tmp_path, {"MODE": "validate", "OUTPUT_DIR": str(tmp_path), "VALIDATE_EXIT": "2",
                                       "LINT_EXIT": "2"})
    assert code == 2 and outputs["verdict"] == "error"


MUTATION_REPORT = {"kind": "instruction-gate/mutation", "base_sha": "a" * 40,
                   "score": {"killed": 2, "total": 3, "ratio": 2 / 3, "survived": 1, "not_evaluated": 0},
                   "control": {"id": "aa-control", "status": "survived"}, "mutants": []}


@pytest.mark.parametrize("mutate_exit, verdict", [("0", "pass"), ("1", "fail")])
def test_mutate_mode_reports_the_score_and_its_reports(tmp_path, mutate_exit, verdict):
    (tmp_path / "mutation.json").write_text(json.dumps(MUTATION_REPORT))
    (tmp_path / "mutation.md").write_text("## Mutation testing\n")
    code, outputs, step_summary = _run(tmp_path, {"MODE": "mutate", "OUTPUT_DIR": str(tmp_path),
                                                  "AGENT_RUNS_EXIT": mutate_exit})
    assert code == int(mutate_exit) and outputs["verdict"] == verdict
    assert outputs["mutation-score"] == "0.6667"
    assert outputs["exit-reason"] == "mutation score 2/3 killed, 1 survived; A/A control survived"
    assert outputs["summary-path"] == str(tmp_path / "mutation.md")
    assert outputs["summary-json-path"] == str(tmp_path / "mutation.json")
    assert step_summary == ""  # the mutate step appended mutation.md itself


def test_mutate_mode_without_a_report_explains_from_the_log(tmp_path):
    (tmp_path / "instruction-gate-mutate.log").write_text("error: manifest.json::$.tasks[0].id: bad\n")
    code, outputs, step_summary = _run(tmp_path, {"MODE": "mutate", "OUTPUT_DIR": str(tmp_path), "AGENT_RUNS_EXIT": "2"})
    assert (code, outputs["verdict"], outputs["mutation-score"]) == (2, "error", "")
    assert "manifest.json::$.tasks[0].id: bad" in step_summary


def test_baseline_mode_reports_the_runs_it_stored(tmp_path):
    (tmp_path / "index.json").write_text(json.dumps({"baseline_cache": {"stored_runs": 6}}))
    code, outputs, _ = _run(tmp_path, {"MODE": "baseline", "OUTPUT_DIR": str(tmp_path), "AGENT_RUNS_EXIT": "0"})
    assert (code, outputs["verdict"], outputs["reused-base-runs"]) == (0, "", "6")
    assert outputs["exit-reason"] == "baseline cache: stored 6 base runs"


def test_baseline_mode_that_stored_nothing_could_not_evaluate(tmp_path):
    code, outputs, _ = _run(tmp_path, {"MODE": "baseline", "OUTPUT_DIR": str(tmp_path), "AGENT_RUNS_EXIT": "3"})
    assert (code, outputs["verdict"]) == (3, "error")
    assert outputs["exit-reason"] == "baseline recording exited 3: could not evaluate"


def test_reused_base_runs_are_an_output_of_a_compared_evaluation(tmp_path):
    (tmp_path / "summary.json").write_text(json.dumps({"verdict": "pass", "valid_pairs": 4, "headline": "PASS"}))
    (tmp_path / "index.json").write_text(json.dumps({"baseline_cache": {"reused_runs": 4, "refused": []}}))
    code, outputs, _ = _run(tmp_path, {"MODE": "all", "OUTPUT_DIR": str(tmp_path), "VALIDATE_EXIT": "0",
                                       "AGENT_RUNS_EXIT": "0", "COMPARE_EXIT": "0"})
    assert (code, outputs["reused-base-runs"], outputs["exit-reason"]) == (0, "4", "PASS")


def test_refused_inputs_are_a_configuration_error_not_a_missing_stage(tmp_path):
    code, outputs, _ = _run(tmp_path, {"MODE": "baseline", "OUTPUT_DIR": str(tmp_path), "INPUTS_EXIT": "2"})
    assert (code, outputs["verdict"]) == (2, "error")
    assert "inputs were refused" in outputs["exit-reason"]


@pytest.mark.parametrize("tasks_exit, verdict", [("0", "pass"), ("1", "fail"), ("2", "error")])
def test_validate_tasks_mode_names_the_tasks_that_are_not_valid(tmp_path, tasks_exit, verdict):
    rows = [{"task_id": "fix", "status": "valid"}, {"task_id": "typo", "status": "vacuous"},
            {"task_id": "deps", "status": "broken"}]
    (tmp_path / "task-validation.json").write_text(json.dumps({"tasks": rows}))
    code, outputs, _ = _run(tmp_path, {"MODE": "validate-tasks", "OUTPUT_DIR": str(tmp_path), "TASKS_EXIT": tasks_exit})
    assert code == int(tasks_exit) and outputs["verdict"] == verdict
    assert outputs["summary-path"] == str(tmp_path / "task-validation.md")
    if tasks_exit == "1":
        assert json.loads(outputs["failing-tasks"]) == ["deps", "typo"]
        assert outputs["exit-reason"] == "task validation: 2 task(s) not valid: deps, typo"


def test_validate_tasks_mode_that_never_ran_is_an_error(tmp_path):
    code, outputs, _ = _run(tmp_path, {"MODE": "validate-tasks", "OUTPUT_DIR": str(tmp_path)})
    assert code == 3 and outputs["exit-reason"].startswith("task validation did not run")


@pytest.mark.parametrize("mine_exit, verdict", [("0", "pass"), ("1", "fail"), ("3", "error")])
def test_mine_mode_reports_what_was_kept_and_written(tmp_path, mine_exit, verdict):
    (tmp_path / "mining-report.json").write_text(json.dumps({"kept": 2, "validated": 5, "written": ["fix-a"]}))
    code, outputs, _ = _run(tmp_path, {"MODE": "mine", "OUTPUT_DIR": str(tmp_path), "MINE_EXIT": mine_exit})
    assert code == int(mine_exit) and outputs["verdict"] == verdict
    assert outputs["summary-path"] == str(tmp_path / "mining-report.md")
    if mine_exit != "3":
        assert outputs["exit-reason"] == "mining: 2 task(s) kept of 5 validated, 1 written"


def test_mine_mode_that_never_ran_is_an_error(tmp_path):
    code, outputs, _ = _run(tmp_path, {"MODE": "mine", "OUTPUT_DIR": str(tmp_path)})
    assert code == 3 and outputs["exit-reason"].startswith("mining did not run")
