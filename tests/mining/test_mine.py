"""mine: fix commits become validated tasks on today's base; every other commit is accounted for."""

from __future__ import annotations

import json

from instruction_gate.cli import main
from tests.mining import history_repo


def _mine(repo, *extra: str) -> tuple[int, dict]:
    code = main(["mine", "--repo", str(repo.path), *extra])
    return code, json.loads((repo.path / "evals/instructions/mining-report.json").read_text())


def test_a_fix_becomes_a_task_and_every_other_commit_has_its_reason(git_repo, capsys):
    shas = history_repo.build(git_repo)
    code, report = _mine(git_repo)
    assert code == 0, capsys.readouterr().err
    rows = {r["commit"]: r for r in report["rows"]}
    assert rows[shas["fix"]]["status"] == "kept"
    assert rows[shas["docs"]]["status"] == "not-a-candidate"
    assert rows[shas["no_tests"]]["reason"] == "changes no test module"
    assert rows[shas["vacuous"]]["reason"].startswith("the tests pass without the fix")
    assert rows[shas["timing"]]["reason"].startswith("timing-dependent test (tests/test_clock.py::test_now")
    # The fix changed mul's line; a later commit changed it again, so it no longer reverts on today's code.
    assert rows[shas["stale"]]["reason"].startswith("the fix no longer reverts cleanly at the base")
    assert (report["kept"], report["validated"], report["candidates"], report["yield"]) == (1, 2, 4, 0.5)

    manifest = json.loads((git_repo.path / "evals/instructions/manifest.json").read_text())
    (task,) = manifest["tasks"]
    assert task["origin"] == {"commit": shas["fix"], "subject": "Fix add returning the difference (#12)",
                              "prompt_reviewed": False, "flags": []}
    assert task["checks"] == [["python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_calc.py::test_add"]]
    assert task["required_command_patterns"] == [r"\bpytest\b"]
    assert manifest["gate_sources"] == {"required_command_missing": "AGENTS.md:3"}
    assert {"kind": "command_forbidden", "pattern": r"\bpip\ install\b"}.items() <= manifest["rules"][0].items()
    folder = git_repo.path / "evals/instructions/tasks" / task["id"]
    prompt = (folder / "prompt.md").read_text()
    assert "Fix add returning the difference." in prompt and "#12" not in prompt
    assert "return a + b" not in prompt and "pytest -q" not in prompt  # no diff, no way to verify
    hidden = folder / "hidden/tests/test_calc.py.hidden"  # a name the project's pytest never collects
    assert "def test_add" in hidden.read_text()
    assert "-    return a + b\n+    return a - b" in (folder / "fixture.patch").read_text()
    assert "+    return a + b" in (folder / "solution.patch").read_text()
    # The suite's copy is not collected by the project's own test run.
    assert main(["validate-tasks", "--repo", str(git_repo.path), "--manifest",
                 str(git_repo.path / "evals/instructions/manifest.json")]) == 2  # not committed yet: base lacks it


def test_a_dry_run_writes_the_report_and_no_task(git_repo, capsys):
    shas = history_repo.build(git_repo)
    assert main(["new-task", "--repo", str(git_repo.path), "--from-commit", shas["fix"], "--dry-run"]) == 0
    assert (git_repo.path / "evals/instructions/new-task-report.md").exists()
    assert not (git_repo.path / "evals/instructions/manifest.json").exists()
    assert not (git_repo.path / "evals/instructions/tasks").exists()


def test_new_task_from_a_commit_that_is_not_a_fix_is_refused_by_name(git_repo, capsys):
    shas = history_repo.build(git_repo)
    assert main(["new-task", "--repo", str(git_repo.path), "--from-commit", shas["docs"]]) == 2
    assert "--from-commit: " + shas["docs"] in capsys.readouterr().err
    assert main(["new-task", "--repo", str(git_repo.path), "--from-commit", "deadbeef"]) == 2
    assert "--from-commit: 'deadbeef' is not a commit" in capsys.readouterr().err
    assert main(["new-task", "--repo", str(git_repo.path), "--from-commit", shas["fix"]]) == 0
    manifest = json.loads((git_repo.path / "evals/instructions/manifest.json").read_text())
    assert [t["origin"]["commit"] for t in manifest["tasks"]] == [shas["fix"]]
    assert main(["new-task", "--repo", str(git_repo.path), "--from-commit", shas["fix"]]) == 0
    assert "Not written, the manifest already holds their commit" in capsys.readouterr().out


def test_paths_into_git_or_out_of_the_repository_and_bad_budgets_are_refused(git_repo, tmp_path, capsys):
    history_repo.build(git_repo)
    for flags, said in [(["--suite-dir", ".git/x"], "--suite-dir: .git/x: is inside the repository's .git directory"),
                        (["--manifest", str(tmp_path / "m.json")], "--manifest: "),
                        (["--report", ".git/r.md"], "--report: .git/r.md: is inside the repository's .git"),
                        (["--time-budget", "0"], "--time-budget: must be more than 0 minutes"),
                        (["--base", "nope"], "--base: 'nope' is not a commit")]:
        assert main(["mine", "--repo", str(git_repo.path), *flags]) == 2, flags
        assert said in capsys.readouterr().err
    (git_repo.path / "afile").write_text("x")
    assert main(["mine", "--repo", str(git_repo.path), "--suite-dir", "afile"]) == 2
    assert "--suite-dir: afile: exists and is not a directory" in capsys.readouterr().err


def test_a_fix_whose_tests_moved_on_is_posed_with_the_code_reverted_alone_and_flagged(git_repo, capsys):
    shas = history_repo.build(git_repo)
    # The fix's test lines are rewritten later; its code line is not.
    test_now = (git_repo.path / "tests/test_calc.py").read_text()
    git_repo.commit({"tests/test_calc.py": test_now.replace("assert add(2, 3) == 5", "assert add(2, 3) == 5, 'sum'")},
                    "Tidy tests")
    main(["new-task", "--repo", str(git_repo.path), "--from-commit", shas["fix"]])
    report = json.loads((git_repo.path / "evals/instructions/new-task-report.json").read_text())
    (row,) = report["rows"]
    assert row["status"] == "kept"
    prompt = (git_repo.path / "evals/instructions/tasks" / row["task_id"] / "prompt.md").read_text()
    assert "These tests (in your working tree) will check the fix" in prompt
    assert any("the agent sees the tests that check it" in flag for flag in row["flags"])
