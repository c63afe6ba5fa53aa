"""`--check-env-dir` on backtest and blame: refused when it names no environment (exit 2, the flag
named), and the checks those commands run find the environment's bin/ first on PATH."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from instruction_gate import cli
from tests.conftest import REPO_ROOT
from tests.fixtures.runner_cli import evaluate, make_adapter
from tests.runner.suite import build_suite_repo, task

#: A program only the environment's bin/ holds; it prints what the check saw (checks run in a
#: sandbox of their own, so their stdout tail in run.json is how the test learns it).
PROBE = "projtool"
REFERENCE = str(REPO_ROOT / "adapters" / "reference")


def _env_dir(tmp_path):
    env_dir = tmp_path / "project-env"
    (env_dir / "bin").mkdir(parents=True)
    probe = env_dir / "bin" / PROBE
    probe.write_text('#!/bin/sh\nprintf \'%s\\n%s\\n\' "$VIRTUAL_ENV" "$PATH"\n')
    probe.chmod(0o755)
    return env_dir


def _saw_env(check: dict, env_dir) -> bool:
    """The probe ran, with the environment set and its bin/ first on PATH."""
    lines = check["stdout_tail"].splitlines()
    return check["passed"] and lines[:1] == [str(env_dir)] and lines[1].split(os.pathsep)[0] == str(env_dir / "bin")


def _gate(*args: str, cwd=REPO_ROOT) -> subprocess.CompletedProcess:
    # A subprocess: these commands install a SIGTERM handler and start sandboxes.
    return subprocess.run([sys.executable, "-m", "instruction_gate", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600)


@pytest.mark.parametrize("bad, why", [("nope", "no such directory"), ("empty", "has no bin/ directory")])
def test_backtest_refuses_a_check_env_dir_that_is_no_environment(git_repo, tmp_path, capsys, bad, why):
    build_suite_repo(git_repo, [task("t1")])
    (tmp_path / "empty").mkdir()
    code = cli.main(["backtest", "--repo", str(git_repo.path), "--manifest", "evals/manifest.json",
                     "--out", str(tmp_path / "out"), "--adapter", "true", "--check-env-dir", str(tmp_path / bad)])
    assert code == 2
    assert f"--check-env-dir: {tmp_path / bad}: {why}" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_backtest_refuses_env_dir_placeholders_without_the_flag_once_before_any_commit(git_repo, tmp_path, capsys):
    build_suite_repo(git_repo, [task("t1", check_env={"TOOLS": "{env_dir}/tools"})])
    code = cli.main(["backtest", "--repo", str(git_repo.path), "--manifest", "evals/manifest.json",
                     "--out", str(tmp_path / "out"), "--adapter", "true"])
    assert code == 2
    assert ("evals/manifest.json::$.tasks[0].check_env.TOOLS: uses {env_dir} but no --check-env-dir was given"
            in capsys.readouterr().err)
    assert not (tmp_path / "out" / "commits").exists()


def test_backtest_checks_find_the_check_env_dir_first_on_path(git_repo, tmp_path):
    _, candidate = build_suite_repo(git_repo, [task("t1", checks=[[PROBE]])])
    adapter, env_dir = make_adapter(tmp_path), _env_dir(tmp_path)
    common = ["backtest", "--repo", str(git_repo.path), "--manifest", "evals/manifest.json", "--adapter", str(adapter)]

    with_env = _gate(*common, "--out", str(tmp_path / "with"), "--check-env-dir", str(env_dir))
    assert with_env.returncode == 0, with_env.stderr
    (row,) = json.loads((tmp_path / "with" / "backtest.json").read_text())["commits"]
    assert row["commit"] == candidate and row["verdict"] != "error", row
    results = tmp_path / "with" / "commits" / candidate[:12] / "results" / "t1" / "repeat-0"
    for variant in ("base", "candidate"):
        (check,) = json.loads((results / variant / "run.json").read_text())["checks"]
        assert _saw_env(check, env_dir), check

    # Without the flag the program is on no PATH: every commit's evaluation is refused.
    without = _gate(*common, "--out", str(tmp_path / "without"))
    assert without.returncode == 0, without.stderr
    (row,) = json.loads((tmp_path / "without" / "backtest.json").read_text())["commits"]
    assert row["verdict"] == "error" and "cannot start" in row["detail"], row


def test_blame_refuses_a_check_env_dir_that_is_no_environment(tmp_path, capsys):
    manifest = tmp_path / "m" / "manifest.json"
    manifest.parent.mkdir()
    manifest.write_text("{}")
    code = cli.main(["blame", "--repo", str(tmp_path), "--manifest", str(manifest), "--base", "x", "--candidate", "y",
                     "--results", str(tmp_path / "r"), "--out", str(tmp_path / "out"), "--adapter", "/bin/true",
                     "--check-env-dir", str(tmp_path / "nope")])
    assert code == 2
    assert f"--check-env-dir: {tmp_path / 'nope'}: no such directory" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


AGENTS = "# Agents\n\nRun the tests with `make test` before finishing.\n"
#: Two hunks (lines 1 and 3): the second drops the test command the task requires.
CANDIDATE = "# Agents (v2)\n\nKeep functions small.\n"


def test_blame_trials_run_checks_with_the_check_env_dir_first_on_path(git_repo, tmp_path):
    base = git_repo.commit({"AGENTS.md": AGENTS, "Makefile": "test:\n\t@echo tests ok\n", "src/app.py": "VALUE = 1\n",
                            "evals/tasks/t1/prompt.md": "Make the change.\n",
                            "evals/manifest.json": json.dumps({
                                "schema_version": 1, "repeats": 1, "instruction_paths": ["AGENTS.md"],
                                "tasks": [{"id": "t1", "kind": "bug_fix", "prompt_file": "evals/tasks/t1/prompt.md",
                                           "checks": [[PROBE]], "required_command_patterns": ["^make "]}]})},
                           "base with suite")
    candidate = git_repo.commit({"AGENTS.md": CANDIDATE}, "shorter AGENTS.md")
    env_dir, results = _env_dir(tmp_path), tmp_path / "results"
    evaluated = evaluate(git_repo, base, candidate, results, REFERENCE, "--check-env-dir", str(env_dir))
    assert evaluated.returncode == 1 and "required_command_missing" in evaluated.stderr, evaluated.stderr

    blame_out = tmp_path / "blame"
    blamed = _gate("blame", "--repo", str(git_repo.path), "--manifest", str(git_repo.path / "evals/manifest.json"),
                   "--base", base, "--candidate", candidate, "--results", str(results), "--out", str(blame_out),
                   "--adapter", REFERENCE, "--check-env-dir", str(env_dir), cwd=git_repo.path)
    assert blamed.returncode == 0, blamed.stderr
    result = json.loads((blame_out / "blame.json").read_text())
    assert result["status"] == "done" and result["culprit"] == [2], result
    trials = sorted(blame_out.glob("runs/hunks-*/t1/repeat-0/candidate/run.json"))
    assert len(trials) == len(result["steps"]) >= 1
    for trial in trials:
        (check,) = json.loads(trial.read_text())["checks"]
        assert _saw_env(check, env_dir), check
