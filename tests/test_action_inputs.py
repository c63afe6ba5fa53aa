"""The composite action's "Check inputs" step, run as GitHub runs it: bash with the step's env.

It is where the action refuses what it must never do, such as writing the baseline cache from
a pull request's job, so its script is tested directly (the act tests cover the happy paths).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parent.parent
BASE, HEAD = "a" * 40, "b" * 40


def _inputs_step() -> dict:
    steps = yaml.safe_load((REPO_ROOT / "action.yml").read_text())["runs"]["steps"]
    return next(step for step in steps if step.get("id") == "inputs")


def run_inputs_step(tmp_path: Path, **env: str) -> tuple[int, str, dict[str, str]]:
    """Exit code, the step's stdout (workflow commands) and what it wrote to $GITHUB_OUTPUT."""
    values = {"MODE": "all", "SETUP_PYTHON": "true", "SANDBOX": "bwrap", "REPOSITORY": ".", "OUTPUT_DIR": "out", "JOBS": "1",
              "REPEATS": "", "SHARD": "", "BASE_SHA": BASE, "HEAD_SHA": HEAD, "REUSE_BASE_RUNS": "false",
              "CACHE_BACKEND": "actions-cache", "CACHE_DIR": "", "MAX_MUTANTS": "", "MIN_SCORE": "",
              "EVENT_NAME": "pull_request", "EVENT_SHA": "c" * 40, "CHECK_ENV_DIR": "", "BLAME": "policy"}
    values.update(env)
    output = tmp_path / "github-output"
    output.touch()
    (tmp_path / "runner-temp").mkdir(exist_ok=True)
    done = subprocess.run(["bash", "-e", "-c", _inputs_step()["run"]], cwd=tmp_path, capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "GITHUB_OUTPUT": str(output),
                               "RUNNER_TEMP": str(tmp_path / "runner-temp"), **values})
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines())
    return done.returncode, done.stdout, outputs


#: Set by the runner for every step, or by bash.
RUNNER_VARIABLES = {"GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_WORKSPACE", "RUNNER_TEMP", "PATH", "HOME"}


@pytest.mark.parametrize("step", [s for s in yaml.safe_load((REPO_ROOT / "action.yml").read_text())["runs"]["steps"]
                                  if "run" in s], ids=lambda step: step["name"])
def test_every_upper_case_variable_a_step_reads_is_set_by_it(step):
    """A misspelt or forgotten `env:` entry is an empty string in bash, not an error."""
    script = step["run"]
    read = set(re.findall(r"\$\{?([A-Z][A-Z0-9_]*)", script))
    assigned = set(re.findall(r"(?:^|[\s;(])([A-Z][A-Z0-9_]*)=", script))
    missing = read - set(step.get("env") or {}) - assigned - RUNNER_VARIABLES
    assert not missing, f"step {step['name']!r} reads {sorted(missing)} without setting them"


@pytest.mark.parametrize("event", ["pull_request", "pull_request_target", "workflow_run", "merge_group", "issue_comment"])
def test_baseline_mode_is_refused_where_a_pull_request_could_shape_the_cache(tmp_path, event):
    code, stdout, outputs = run_inputs_step(tmp_path, MODE="baseline", EVENT_NAME=event, BASE_SHA="")
    assert code == 2 and outputs["exit-code"] == "2"
    assert f"::error title=instruction-gate inputs::mode: 'baseline' writes the baseline cache and runs only on " \
           f"push, schedule or workflow_dispatch events, not '{event}'" in stdout


@pytest.mark.parametrize("event", ["push", "schedule", "workflow_dispatch"])
def test_baseline_mode_records_the_commit_the_workflow_runs_on(tmp_path, event):
    code, stdout, outputs = run_inputs_step(tmp_path, MODE="baseline", EVENT_NAME=event, BASE_SHA="", HEAD_SHA="")
    assert code == 0, stdout
    assert outputs["base-sha"] == outputs["head-sha"] == "c" * 40
    assert outputs["baseline-cache-key"] == f"instruction-gate-baseline-v1-{'c' * 40}-all"
    assert outputs["baseline-cache-prefix"] == f"instruction-gate-baseline-v1-{'c' * 40}-"
    assert outputs["baseline-cache-dir"] == str((tmp_path / "runner-temp" / "instruction-gate-baseline").resolve())


def test_a_shard_has_its_own_cache_key_under_the_base_commits_prefix(tmp_path):
    code, _, outputs = run_inputs_step(tmp_path, SHARD="2/3", REUSE_BASE_RUNS="true")
    assert code == 0
    assert outputs["baseline-cache-key"] == f"instruction-gate-baseline-v1-{BASE}-shard-2-of-3"
    assert outputs["baseline-cache-key"].startswith(outputs["baseline-cache-prefix"])


def test_mutate_mode_needs_no_candidate(tmp_path):
    code, stdout, outputs = run_inputs_step(tmp_path, MODE="mutate", HEAD_SHA="", EVENT_NAME="schedule")
    assert code == 0, stdout
    assert outputs["base-sha"] == outputs["head-sha"] == BASE


@pytest.mark.parametrize("env, message", [
    ({"MODE": "bisect"}, "mode: expected changes, validate, evaluate, compare, all, mutate, blame, baseline, validate-tasks or mine, got 'bisect'"),
    ({"MODE": "blame", "BLAME": "yes"}, "blame: expected 'true', 'false' or 'policy', got 'yes'"),
    ({"REUSE_BASE_RUNS": "yes"}, "reuse-base-runs: expected 'true' or 'false', got 'yes'"),
    ({"CACHE_BACKEND": "s3"}, "baseline-cache-backend: expected actions-cache or directory, got 's3'"),
    ({"SANDBOX": "docker"}, "sandbox: expected bwrap or none, got 'docker'"),
    ({"REUSE_BASE_RUNS": "true", "CACHE_BACKEND": "directory"}, "baseline-cache-dir: required with baseline-cache-backend 'directory'"),
    # workflow-command data escapes % as %25 (GitHub shows 80%)
    ({"MODE": "mutate", "MIN_SCORE": "80%"}, "mutation-min-score: expected a fraction between 0 and 1 or empty, got '80%25'"),
    ({"MODE": "mutate", "MIN_SCORE": "1.5"}, "mutation-min-score: expected a fraction between 0 and 1 or empty, got '1.5'"),
    ({"MODE": "mutate", "MAX_MUTANTS": "0"}, "mutation-max-mutants: expected a positive integer or empty, got '0'"),
    ({"HEAD_SHA": ""}, "head-sha: expected a full commit SHA"),
    ({"MODE": "mutate", "SHARD": "1/2"}, "shard: mode mutate shares one base arm across all mutants and does not shard"),
])
def test_bad_inputs_name_the_input(tmp_path, env, message):
    code, stdout, outputs = run_inputs_step(tmp_path, **env)
    assert code == 2 and outputs == {"exit-code": "2"}
    assert message in stdout


@pytest.mark.parametrize("score", ["0", "0.8", "1", "1.0"])
def test_fractions_are_accepted_as_minimum_scores(tmp_path, score):
    assert run_inputs_step(tmp_path, MODE="mutate", MIN_SCORE=score)[0] == 0


def test_check_env_dir_must_be_an_environment_with_bin(tmp_path):
    code, stdout, outputs = run_inputs_step(tmp_path, CHECK_ENV_DIR="missing-venv")
    assert code == 2 and "check-env-dir: 'missing-venv' is not a directory with a bin/ inside" in stdout
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    code, _, outputs = run_inputs_step(tmp_path, CHECK_ENV_DIR=".venv")
    assert code == 0 and outputs["check-env-dir"] == str((tmp_path / ".venv").resolve())


def test_validate_tasks_mode_uses_the_base_commit_only(tmp_path):
    code, _, outputs = run_inputs_step(tmp_path, MODE="validate-tasks", HEAD_SHA="", EVENT_NAME="push")
    assert code == 0 and outputs["head-sha"] == BASE


FAKE_PYTHON = """#!/bin/bash
# A stand-in interpreter: `-m venv DIR` copies itself to DIR/bin/python; pip keeps its state in $STATE.
if [[ "$1 $2" == "-m venv" ]]; then mkdir -p "$3/bin"; cp "$0" "$3/bin/python"; exit 0; fi
if [[ "$3" == freeze ]]; then cat "$STATE"; exit 0; fi
for arg in "$@"; do
  case "$arg" in
    */requirements-action.txt) printf 'pytest==9.2.0\\nnumpy==2.3.0\\n' > "$STATE";;
    */extra.txt) while read -r line; do  # pip replaces a package's version, or adds the package
        { grep -v "^${line%%==*}==" "$STATE" || true; echo "$line"; } > "$STATE.new"; mv "$STATE.new" "$STATE"
      done < "$arg";;
  esac
done
"""


def _install_step() -> dict:
    steps = yaml.safe_load((REPO_ROOT / "action.yml").read_text())["runs"]["steps"]
    return next(step for step in steps if step.get("name") == "Install the action's pinned dependencies")


@pytest.mark.parametrize("extra, code", [("httpx==0.28.1\n", 0), ("pytest==8.4.2\n", 2)])
def test_extra_requirements_may_add_packages_but_never_replace_a_pinned_one(tmp_path, extra, code):
    fake = tmp_path / "python"
    fake.write_text(FAKE_PYTHON)
    fake.chmod(0o755)
    (tmp_path / "extra.txt").write_text(extra)
    state = tmp_path / "state"
    done = subprocess.run(["bash", "-e", "-c", _install_step()["run"]], cwd=tmp_path, capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "RUNNER_TEMP": str(tmp_path), "ACTION_PATH": str(REPO_ROOT),
                               "BASE_PYTHON": str(fake), "EXTRA_REQUIREMENTS": "extra.txt",
                               "REPOSITORY": str(tmp_path), "STATE": str(state)})
    assert done.returncode == code, done.stderr
    if code:
        assert "extra-requirements: replaced the action's pinned packages (pytest==9.2.0)" in done.stdout
