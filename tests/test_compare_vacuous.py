"""Evidence the gate did not collect never passes: broken check environments, suites nothing resolves."""

from __future__ import annotations

from compare_builders import compare, index, outcome_runs, policy, run

MISSING_DEP = ("ImportError while loading conftest '/tmp/x/tests/conftest.py'.\n"
               "tests/conftest.py:3: in <module>\n    import httpx\n"
               "E   ModuleNotFoundError: No module named 'httpx'\n")


def _check(exit_code, stdout="", stderr=""):
    return {"argv": ["python", "-m", "pytest", "-q"], "exit_code": exit_code, "timed_out": False,
            "duration_seconds": 0.2, "stdout_tail": stdout, "stderr_tail": stderr}


def _crashed(task_id, repeat, variant, output=MISSING_DEP):
    return run(task_id, repeat, variant, False, hard=["required_check_failed"], checks=[_check(4, output)])


def test_checks_crashing_in_both_arms_cannot_evaluate_with_the_reason(tmp_path):
    runs = [_crashed(f"t{i}", r, v) for i in range(3) for r in range(2) for v in ("base", "candidate")]
    code, summary, markdown = compare(tmp_path, index(runs), policy())
    assert code == 3 and summary["verdict"] == "error"
    assert "checks could not run in 12 run(s)" in summary["headline"]
    assert "module-not-found: E   ModuleNotFoundError: No module named 'httpx'" in summary["headline"]
    assert summary["hard_failures"] == []  # never filed as pre-existing failures
    assert all("checks could not run (environment)" in r["reason"] for r in summary["lost_runs"])
    assert "COULD NOT EVALUATE" in markdown


def test_a_command_that_never_started_is_an_environment_failure(tmp_path):
    never = {"argv": ["pytest"], "exit_code": None, "timed_out": False, "duration_seconds": 0.0,
             "stdout_tail": "", "stderr_tail": "No such file or directory: 'pytest'"}
    shell = _check(127, stderr="sh: 1: pytest: not found\n")
    runs = []
    for i in range(2):
        runs += [run(f"t{i}", 0, "base", False, checks=[never]), run(f"t{i}", 0, "candidate", False, checks=[shell])]
    code, summary, _ = compare(tmp_path, index(runs), policy())
    assert code == 3 and "command-not-found" in summary["headline"]


def test_environment_failure_in_one_arm_stays_that_arms_failure(tmp_path):
    # The agent's commands share the check environment: a candidate that broke it is not excused.
    runs = outcome_runs({f"t{i}": [(True, True)] * 2 for i in range(4)})
    broken = _crashed("t0", 1, "candidate")
    runs = [broken if (r["task_id"], r["repeat"], r["variant"]) == ("t0", 1, "candidate") else r for r in runs]
    code, summary, _ = compare(tmp_path, index(runs), policy())
    assert code == 1
    assert [(f["task_id"], f["category"], f["status"]) for f in summary["hard_failures"]] == [
        ("t0", "required_check_failed", "new")]


def test_a_dotted_missing_module_is_the_codes_fault_not_the_environments(tmp_path):
    # `pkg.newmod` missing means `pkg` imported: the task (or the agent) has not created it yet.
    output = "E   ModuleNotFoundError: No module named 'pkg.newmod'\n"
    runs = outcome_runs({f"t{i}": [(True, True)] * 2 for i in range(3)})
    runs += [_crashed("t3", r, v, output) for r in range(2) for v in ("base", "candidate")]
    code, summary, _ = compare(tmp_path, index(runs), policy())
    assert code == 0
    assert {f["status"] for f in summary["hard_failures"]} == {"pre-existing"}
    assert any("resolved in no run of either arm: t3" in w for w in summary["warnings"])


def test_few_lost_pairs_to_a_broken_environment_warn_without_blocking(tmp_path):
    runs = outcome_runs({f"t{i}": [(True, True)] * 2 for i in range(5)})
    runs = [r for r in runs if (r["task_id"], r["repeat"]) != ("t4", 1)]
    runs += [_crashed("t4", 1, "base"), _crashed("t4", 1, "candidate")]
    code, summary, _ = compare(tmp_path, index(runs), policy())
    assert code == 0 and summary["valid_pairs"] == 9
    assert summary["warnings"][0].startswith("checks could not run in 2 run(s) of task(s) t4")


def test_policy_signatures_extend_and_ignore_the_builtins(tmp_path):
    own = _check(1, stdout="FATAL: database fixture unavailable\n")
    runs = [run("t0", r, v, False, hard=["required_check_failed"], checks=[own])
            for r in range(2) for v in ("base", "candidate")]
    extra = {**policy(), "evidence": {"environment_signatures": [{"name": "db-down", "pattern": r"^FATAL: database"}]}}
    code, summary, _ = compare(tmp_path, index(runs), extra)
    assert code == 3 and "db-down: FATAL: database fixture unavailable" in summary["headline"]

    runs = [_crashed("t0", r, v) for r in range(2) for v in ("base", "candidate")]
    ignoring = {**policy(), "evidence": {"ignore_environment_signatures": ["module-not-found"], "min_resolved_tasks": 0}}
    code, summary, _ = compare(tmp_path / "ignored", index(runs), ignoring)
    assert code == 0 and summary["valid_pairs"] == 2


def test_a_suite_no_task_resolves_in_any_base_run_cannot_pass(tmp_path):
    # Checks that fail without any signature (wrong assertion, wrong path): nothing resolved anywhere.
    runs = outcome_runs({f"t{i}": [(False, False)] * 2 for i in range(3)})
    code, summary, _ = compare(tmp_path, index(runs), policy())
    assert code == 3 and summary["verdict"] == "error"
    assert "only 0 of 3 task(s) resolved in any base run" in summary["headline"]
    assert any("resolved in no run of either arm: t0, t1, t2" in w for w in summary["warnings"])


def test_resolution_share_is_set_by_policy_and_warns_under_half(tmp_path):
    runs = outcome_runs({"t0": [(True, True)], "t1": [(False, False)], "t2": [(False, False)]})
    code, summary, _ = compare(tmp_path, index(runs), policy())
    assert code == 0
    assert any("only 1 of 3 task(s) resolved in any base run (below evidence.warn_resolved_share 0.5)" in w
               for w in summary["warnings"])
    strict = {**policy(), "evidence": {"min_resolved_share": 0.5}}
    code, summary, _ = compare(tmp_path / "strict", index(runs), strict)
    assert code == 3 and "min_resolved_share 0.5" in summary["headline"]


def test_a_blocking_hard_gate_still_fails_a_vacuous_suite(tmp_path):
    runs = outcome_runs({"t0": [(False, False)]})
    runs[1].update(hard_failures=["forbidden_file_edited"], forbidden_files=["infra/prod/db.tf"])
    code, summary, _ = compare(tmp_path, index(runs), policy())
    assert code == 1 and summary["verdict"] == "fail"


def test_a_bad_signature_pattern_names_the_field(tmp_path, capsys):
    bad = {**policy(), "evidence": {"environment_signatures": [{"name": "x", "pattern": "("}]}}
    code, _, _ = compare(tmp_path, index(outcome_runs({"t0": [(True, True)]})), bad)
    assert code == 2
    assert "policy.json::$.evidence.environment_signatures[0].pattern: not a valid regular expression" in \
        capsys.readouterr().err


def test_negative_controls_do_not_make_a_suite_look_healthy(tmp_path):
    controls = outcome_runs({"c0": [(True, True)], "c1": [(True, True)]}, checks_pass_at_start=True)
    code, summary, _ = compare(tmp_path, index(controls + outcome_runs({"t0": [(False, False)]})), policy())
    assert code == 3 and "only 0 of 1 task(s) resolved in any base run" in summary["headline"]


def test_a_task_of_kind_negative_control_never_counts_as_resolved_evidence(tmp_path):
    """A negative control passes by construction even when it does not declare checks_pass_at_start:
    with the only measuring task broken, the suite measured nothing."""
    from compare_builders import compare, index, outcome_runs, policy
    runs = outcome_runs({"fix": [(False, False)], "typo": [(True, True)]})
    for record in runs:
        if record["task_id"] == "typo":
            record["kind"] = "negative_control"
    code, summary, _ = compare(tmp_path, index(runs), policy())
    assert code == 3 and summary["verdict"] == "error", summary["headline"]
