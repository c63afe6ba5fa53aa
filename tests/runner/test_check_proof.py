"""The agent's code runs inside the checks: what it can still do there, and what the gate sees.

A pytest check passes only with a report showing tests that ran (run/pytest_report.py), and every
check after the first starts from the captured tree again, so one check cannot rewrite what the
next runs."""

from __future__ import annotations

import pytest

from tests.fixtures.runner_cli import evaluate, make_adapter, record
from tests.runner.suite import build_suite_repo, task

PYTEST = ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider"]
BUGGY = "def add(a, b):\n    return a - b\n"
FIXED = "def add(a, b):\n    return a + b\n"
PROJECT = {"calc.py": BUGGY, "tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"}

#: case -> (calc.py the agent leaves, why the report does not back the exit status 0)
EXITS = {
    "exit-at-import": ("import os\nos._exit(0)\n", "without the test report"),
    "exit-at-exit": (BUGGY + "import atexit, os\natexit.register(lambda: os._exit(0))\n", "1 failure(s)"),
}


def _evaluate(git_repo, tmp_path, checks, body, extra=None):
    base, candidate = build_suite_repo(git_repo, [task("t1", checks=checks)], extra={**PROJECT, **(extra or {})})
    out = tmp_path / "out"
    evaluate(git_repo, base, candidate, out, make_adapter(tmp_path, body))
    return record(out, "t1", 0, "candidate")


@pytest.mark.parametrize("case", ["exit-at-import", "exit-at-exit"])
def test_agent_code_forcing_exit_status_0_fails_a_pytest_check(git_repo, tmp_path, case):
    left, why = EXITS[case]
    run = _evaluate(git_repo, tmp_path, [PYTEST + ["tests"]], f"open('calc.py', 'w').write({left!r})")
    check = run["checks"][0]
    assert check["exit_code"] == 0  # judged by its exit status alone, the idle run would pass
    assert check["passed"] is False and why in check["not_passed_because"]
    assert run["resolved"] is False and run["hard_failures"] == ["required_check_failed"]


def test_an_honest_pytest_check_passes_with_its_counts(git_repo, tmp_path):
    run = _evaluate(git_repo, tmp_path, [PYTEST + ["tests"]], f"open('calc.py', 'w').write({FIXED!r})")
    check = run["checks"][0]
    assert run["resolved"] is True and check["passed"] is True
    assert check["tests"] == {"tests": 1, "failures": 0, "errors": 0, "skipped": 0}


def test_a_pytest_check_that_runs_no_test_does_not_pass(git_repo, tmp_path):
    run = _evaluate(git_repo, tmp_path, [PYTEST + ["tests", "-k", "nothing_matches", "-o", "addopts="]],
                    f"open('calc.py', 'w').write({FIXED!r})")
    check = run["checks"][0]
    # pytest exits 5 when it deselects everything; either way no test ran, so nothing is proven.
    assert check["passed"] is False and run["resolved"] is False


def test_the_limit_a_check_that_is_not_pytest_is_judged_by_its_exit_status(git_repo, tmp_path):
    """The control, and the documented limit: code under test that exits 0 passes a plain script check."""
    run = _evaluate(git_repo, tmp_path, [["python", "-c", "import calc; raise SystemExit(0 if calc.add(2, 3) == 5 else 1)"]],
                    f"open('calc.py', 'w').write({EXITS['exit-at-import'][0]!r})")
    assert run["checks"][0]["exit_code"] == 0 and "tests" not in run["checks"][0]
    assert run["resolved"] is True


def test_an_earlier_check_cannot_rewrite_what_a_later_check_runs(git_repo, tmp_path):
    notes_check = "import pathlib, sys\nsys.exit(0 if pathlib.Path('NOTES.md').exists() else 1)\n"
    tamper = ("import os\nopen('evals/tasks/t1/notes_check.py', 'w').write('pass\\n')\n"
              "print('TAMPERED', flush=True)\n" + FIXED)
    checks = [["python", "-c", "import calc; raise SystemExit(0 if calc.add(2, 3) == 5 else 1)"],
              ["python", "evals/tasks/t1/notes_check.py"]]
    # The agent fixes the code but skips the notes the second check requires; its module, imported by
    # the first check, replaces the second check's script.
    run = _evaluate(git_repo, tmp_path, checks, f"open('calc.py', 'w').write({tamper!r})",
                    extra={"evals/tasks/t1/notes_check.py": notes_check})
    first, second = run["checks"]
    assert "TAMPERED" in first["stdout_tail"] and first["exit_code"] == 0  # the write went through
    assert second["exit_code"] == 1 and run["resolved"] is False  # the second check ran the suite's script


def test_checks_of_one_run_share_no_home_and_a_planted_report_path_stops_nothing(git_repo, tmp_path):
    # The agent's module, imported by the first check: a file in the home for the second check, and a
    # directory where the second check's report will go (it reads the report path from its argv).
    plant = ("import os, sys\n"
             "open(os.path.expanduser('~/planted'), 'w').write('x')\n"
             "report = next((a.split('=', 1)[1] for a in sys.argv if a.startswith('--junitxml=')), None)\n"
             "if report and report.endswith('check-0.xml'):\n"
             "    os.makedirs(report.replace('check-0.xml', 'check-2.xml'), exist_ok=True)\n" + FIXED)
    home_check = ["python", "-c", "import os, sys; sys.exit(1 if os.path.exists(os.path.expanduser('~/planted')) else 0)"]
    run = _evaluate(git_repo, tmp_path, [PYTEST + ["tests"], home_check, PYTEST + ["tests"]],
                    f"open('calc.py', 'w').write({plant!r})")
    assert [c["exit_code"] for c in run["checks"]] == [0, 0, 0]
    assert run["resolved"] is True and all(c["passed"] for c in run["checks"])


def test_the_digest_names_pairs_whose_checks_skipped_more_tests_in_one_arm(tmp_path):
    """The skip limit above, made visible: code under test that skips the path it breaks."""
    from compare_builders import compare, index, policy, run

    def checks(skipped):
        return [{"argv": ["pytest"], "exit_code": 0, "timed_out": False, "duration_seconds": 1.0, "stdout_tail": "",
                 "stderr_tail": "", "passed": True, "tests": {"tests": 5, "failures": 0, "errors": 0, "skipped": skipped}}]

    runs = [run("t", 0, "base", checks=checks(0)), run("t", 0, "candidate", checks=checks(2)),
            run("t", 1, "base", checks=checks(1)), run("t", 1, "candidate", checks=checks(1)),
            run("u", 0, "base"), run("u", 0, "candidate")]  # no report counts: not compared
    _, summary, markdown = compare(tmp_path, index(runs), policy())
    assert ("- candidate's pytest checks skipped more tests than the paired base run in 1 of 2 pairs (2 tests in "
            "all) — 1 task (t): code under test can skip the path it breaks; read its patch.") in markdown
    assert "No behaviour change" not in markdown
    found = summary["digest"]["skipped_tests"]
    assert found["more_pairs"] == {"candidate": 1, "base": 0} and found["tasks"] == ["t"]


def test_equal_skips_in_both_arms_are_no_change(tmp_path):
    from compare_builders import compare, index, policy, run
    counts = {"tests": 5, "failures": 0, "errors": 0, "skipped": 1}
    check = {"argv": ["pytest"], "exit_code": 0, "timed_out": False, "duration_seconds": 1.0, "stdout_tail": "",
             "stderr_tail": "", "passed": True, "tests": counts}
    _, summary, markdown = compare(tmp_path, index([run("t", 0, "base", checks=[check]),
                                                    run("t", 0, "candidate", checks=[check])]), policy())
    assert summary["digest"]["skipped_tests"] is None and "skipped more tests" not in markdown
