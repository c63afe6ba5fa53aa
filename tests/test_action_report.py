"""The composite action's last step: step exit codes + summary.json -> outputs and exit code."""

from __future__ import annotations

import json

import pytest

from instruction_gate import action_report

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
                                       "EVALUATE_EXIT": "1", "COMPARE_EXIT": "1"})
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
    code, outputs, _ = _run(tmp_path, {"MODE": "evaluate", "OUTPUT_DIR": str(tmp_path), "EVALUATE_EXIT": evaluate_exit})
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
