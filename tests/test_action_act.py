"""End to end: the real composite action under nektos/act in host mode, no network.

The workspace act runs in is this project's harness (so `uses: ./` is this action.yml) with
the example repository in `example/`: the suite vendored at `evals/instructions/`, the base
commit checked out, candidates present only as commit objects. The workflow is
tests/workflows/selftest.yml; `setup-python: 'false'` under act makes the action use the test
interpreter instead of downloading Python and the pinned packages.

act quirks this relies on (act 0.2.x, `-P ubuntu-latest=-self-hosted`):
- the job's workspace is a copy of the directory act starts in, made by an
  `actions/checkout` step without `ref:`/`repository:`; with either, act clones from GitHub;
- untracked files and nested repositories are copied too, `.gitignore`d ones are not;
- the host environment (PATH included) reaches the steps, `env.ACT` is 'true';
- an unset step output compares equal to '0' (GitHub: unequal), so the action gates its
  steps on words (`passed == 'true'`), never on numeric strings;
- every remote action of a composite action is loaded before it runs, skipped steps too:
  `--local-repository` points those at an empty stand-in;
- each step's `$GITHUB_STEP_SUMMARY` is echoed to the log as `Summary - ...` lines.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from instruction_gate import demo_repo, proc

REPO_ROOT = Path(__file__).resolve().parent.parent
ACT = Path(sys.executable).parent / "act"
#: What the action needs from this project at run time, and what a repository vendors.
#: A fast subset: a task the contradiction breaks by command, one by policy event, a control.
TASKS = ("bug-tax-rounding", "discover-contribution-policy", "docs-typo-negative-control")
HARNESS = ("action.yml", "requirements-action.txt", "runner.py", "compare.py", "mutate.py", "instruction_gate", "schemas")
#: The mutation the pull-request job evaluates. It must pass the static contract (lint included),
#: or the job stops there and never shows an evaluation failure naming the tasks: a cut-off file
#: loses a rule the lint has no way to miss (it reads the shorter file, which is well formed).
#: Mutations the lint catches (a contradiction, a stale command) are its business, not this test's.
EVALUATED_MUTATION = "truncation-tail"


def _copy(names: tuple[str, ...], source: Path, target: Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in names:
        if (source / name).is_dir():
            shutil.copytree(source / name, target / name, ignore=ignore)
        else:
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source / name, target / name)


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def build_example(target: Path) -> dict[str, str]:
    """The demo repository (suite vendored at evals/instructions/) with the base checked out and
    two candidate commits (benign, the evaluated mutation) present only as objects; returns the SHAs by name."""
    demo = demo_repo.build(target, demo_repo.resolve_candidate("benign"))
    shas = {"base": demo.base, "benign": demo.candidate}
    _git(target, "branch", "-q", "benign", demo.candidate)
    _git(target, "checkout", "-q", "--detach", demo.base)
    _git(target, "apply", str(demo_repo.MUTATIONS_DIR / f"{EVALUATED_MUTATION}.patch"))
    _git(target, "commit", "-qam", EVALUATED_MUTATION)
    shas["mutation"] = _git(target, "rev-parse", "HEAD")
    _git(target, "branch", "-q", "mutation")
    # The trusted base is what the job finds checked out.
    _git(target, "checkout", "-q", "-B", "main", demo.base)
    return shas


@pytest.fixture(scope="module")
def act_workspace(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    workspace = tmp_path_factory.mktemp("act-workspace")
    _copy(HARNESS + ("tests/workflows/selftest.yml",), REPO_ROOT, workspace)
    _git(workspace, "init", "-q", "-b", "main")
    _git(workspace, "add", *HARNESS, "tests")
    _git(workspace, "-c", "user.name=Test Author", "-c", "user.email=author@example.invalid",
         "commit", "-qm", "harness")
    shas = build_example(workspace / "example")
    # Wall time of real runs is noise on a loaded machine and three pairs cannot bound it;
    # the verdicts under test come from behaviour (hard gates, success rate) alone.
    policy = json.loads((REPO_ROOT / "policy.json").read_text())
    policy["soft"]["max_paired_wall_time_ratio"] = None
    (workspace / "example" / "selftest-policy.json").write_text(json.dumps(policy))
    return workspace, shas


def remote_actions(action_yml: Path) -> dict[str, set[str]]:
    """Every remote repository the composite action uses, `owner/name@sha` -> the action
    paths inside it (`""` for the root, `restore` for `actions/cache/restore@sha`)."""
    steps = yaml.safe_load(action_yml.read_text())["runs"]["steps"]
    repositories: dict[str, set[str]] = {}
    for step in steps:
        if "uses" in step and not step["uses"].startswith("./"):
            name, _, ref = step["uses"].partition("@")
            owner, repo, *path = name.split("/")
            repositories.setdefault(f"{owner}/{repo}@{ref}", set()).add("/".join(path))
    return repositories


def stand_in_action(tmp_path: Path, repository: str, paths: set[str]) -> Path:
    """An empty local repository for act to load instead of cloning `repository`.

    act loads every remote action of a composite action before running it, even steps
    whose `if:` is false (here the skipped setup-python and cache steps); the stand-ins never run.
    """
    folder = tmp_path / "stand-ins" / repository.replace("/", "_").replace("@", "_")
    for path in paths:
        (folder / path).mkdir(parents=True, exist_ok=True)
        (folder / path / "action.yml").write_text(
            "name: stand-in\ndescription: never runs\nruns:\n  using: composite\n  steps: []\n")
    return folder


def run_act(workspace: Path, tmp_path: Path, base: str, head: str | None = None, *,
            event_name: str = "pull_request", extra_env: dict[str, str] | None = None) -> proc.ProcResult:
    """Run the selftest workflow for one event: a pull request from `base` to `head`, or a
    push / workflow_dispatch on the base branch (the workflow reads `SELFTEST_BASE`)."""
    if event_name == "pull_request":
        event = {
            "number": 7,
            "pull_request": {
                "number": 7,
                "author_association": "OWNER",
                "base": {"sha": base, "ref": "main", "repo": {"full_name": "example/shop"}},
                "head": {"sha": head, "ref": "candidate", "repo": {"full_name": "example/shop"}},
            },
            "repository": {"full_name": "example/shop"},
        }
    else:
        event = {"ref": "refs/heads/main", "after": base, "repository": {"full_name": "example/shop"}}
    tmp_path.mkdir(parents=True, exist_ok=True)
    event_path = tmp_path / "event.json"
    event_path.write_text(json.dumps(event))
    env = {
        # The test interpreter (with the harness's dependencies) is the workflow's python3.
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", os.defpath)]),
        "HOME": str(tmp_path / "home"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "GIT_PAGER": "cat",
        "LANG": "C.UTF-8",
    }
    for name in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"):
        env[name] = os.environ.get(name, "Test Author")
    workflow_env = {"SELFTEST_TASKS": " ".join(TASKS), "SELFTEST_POLICY": "selftest-policy.json",
                    "SELFTEST_BASE": base, **(extra_env or {})}
    argv = [str(ACT), event_name, "-e", str(event_path), "-W", "tests/workflows/selftest.yml",
            "-P", "ubuntu-latest=-self-hosted", "--no-cache-server"]
    for name, value in workflow_env.items():
        argv += ["--env", f"{name}={value}"]
    for repository, paths in remote_actions(workspace / "action.yml").items():
        argv += ["--local-repository", f"{repository}={stand_in_action(tmp_path, repository, paths)}"]
    return proc.run(argv, workspace, env=env, timeout=300, tail_bytes=None)


def gate_outputs(log: str) -> dict[str, str]:
    """`gate-output NAME=value` lines printed by the workflow's last step."""
    outputs = {}
    for line in log.splitlines():
        _, marker, rest = line.partition("| gate-output ")
        if marker:
            name, _, value = rest.partition("=")
            outputs[name] = value.strip()
    return outputs


def job_summary(log: str) -> str:
    """What the steps appended to $GITHUB_STEP_SUMMARY: act logs each as `Summary - ` and
    the text's further lines without the job prefix."""
    captured, inside = [], False
    for line in log.splitlines():
        if "Summary - " in line:
            captured.append(line.partition("Summary - ")[2])
            inside = True
        elif inside and not line.startswith("["):
            captured.append(line)
        else:
            inside = False
    return "\n".join(captured)


def test_benign_candidate_passes(act_workspace, tmp_path):
    workspace, shas = act_workspace
    result = run_act(workspace, tmp_path, shas["base"], shas["benign"])
    log = result.stdout + result.stderr
    assert result.exit_code == 0, log[-6000:]
    assert "Job succeeded" in log
    outputs = gate_outputs(log)
    assert outputs["INSTRUCTIONS_CHANGED"] == "true"
    assert outputs["VERDICT"] == "pass", outputs
    assert outputs["EXIT_CODE"] == "0"
    assert int(outputs["VALID_PAIRS"]) == len(TASKS)
    assert json.loads(outputs["FAILING_TASKS"]) == []
    assert outputs["SUMMARY_PATH"].endswith("gate-results/summary.md")
    assert outputs["SUMMARY_JSON_PATH"].endswith("gate-results/summary.json")
    assert "static contract ok" in log
    # The sandbox as the action sets it up: bubblewrap probed, every agent run confined (the
    # offline reference adapter also without network).
    assert "agent sandbox: bubblewrap" in log and "agent sandbox: bwrap (network: none)" in log
    summary = job_summary(log)
    assert "instruction-gate" in summary and "PASS" in summary and f"{len(TASKS)} valid pairs" in summary
    assert "Instruction lint" in summary  # the static-contract step lints at no model cost


def test_the_evaluated_mutation_passes_the_static_lint(tmp_path, capsys):
    """Without act: the lint, as the action's static-contract step runs it, lets the mutation
    through (the evaluation failing it is tests/test_demo.py's expectation)."""
    from instruction_gate.cli import main
    demo = demo_repo.build(tmp_path / "repo", demo_repo.resolve_candidate(EVALUATED_MUTATION))
    code = main(["lint", "--repo", str(demo.path), "--manifest", str(demo.suite / "manifest.json"),
                 "--policy", str(demo.suite / "policy.json"), "--base", demo.base, "--candidate", demo.candidate])
    assert code == 0, capsys.readouterr().out


def test_mutation_fails_and_names_the_regression(act_workspace, tmp_path):
    workspace, shas = act_workspace
    result = run_act(workspace, tmp_path, shas["base"], shas["mutation"])
    log = result.stdout + result.stderr
    assert result.exit_code != 0, log[-6000:]
    assert "Job failed" in log
    assert "Lint passes" in job_summary(log)  # the static lint let it through: the evaluation caught it
    outputs = gate_outputs(log)
    assert outputs["VERDICT"] == "fail", outputs
    assert outputs["EXIT_CODE"] == "1"
    assert json.loads(outputs["FAILING_TASKS"]) == ["discover-contribution-policy"]
    assert "discover-contribution-policy" in outputs["EXIT_REASON"]
    summary = job_summary(log)
    assert "discover-contribution-policy" in summary and "required_policy_event_missing" in summary


def test_baseline_job_records_the_base_arm_and_a_pull_request_reuses_it(act_workspace, tmp_path):
    workspace, shas = act_workspace
    cache = tmp_path / "baseline-cache"  # a self-hosted runner's disk: backend `directory`
    recorded = run_act(workspace, tmp_path / "push", shas["base"], event_name="push",
                       extra_env={"SELFTEST_CACHE_DIR": str(cache)})
    log = recorded.stdout + recorded.stderr
    assert recorded.exit_code == 0, log[-6000:]
    outputs = gate_outputs(log)
    assert outputs["EXIT_CODE"] == "0", outputs
    assert outputs["REUSED_BASE_RUNS"] == str(len(TASKS))
    assert outputs["EXIT_REASON"] == f"baseline cache: stored {len(TASKS)} base runs"
    assert len(list(cache.glob("*/*/key.json"))) == len(TASKS)  # one entry per task

    results = tmp_path / "pr-results"  # outside act's workspace copy, which it removes
    reused = run_act(workspace, tmp_path / "pr", shas["base"], shas["benign"],
                     extra_env={"SELFTEST_CACHE_DIR": str(cache), "SELFTEST_OUTPUT_DIR": str(results)})
    log = reused.stdout + reused.stderr
    assert reused.exit_code == 0, log[-6000:]
    outputs = gate_outputs(log)
    assert outputs["VERDICT"] == "pass", outputs
    assert outputs["REUSED_BASE_RUNS"] == str(len(TASKS)), log[-8000:]
    assert int(outputs["VALID_PAIRS"]) == len(TASKS)
    index = json.loads((results / "index.json").read_text())
    assert all(run["reused"] for run in index["runs"] if run["variant"] == "base")


def test_mutate_mode_scores_the_suite_and_fails_below_the_minimum(act_workspace, tmp_path):
    workspace, shas = act_workspace
    # The suite's own patch files only, the first two (contradiction, stale command).
    results = tmp_path / "mutation-results"
    result = run_act(workspace, tmp_path, shas["base"], event_name="workflow_dispatch",
                     extra_env={"SELFTEST_OPERATORS": "none", "SELFTEST_MAX_MUTANTS": "2", "SELFTEST_MIN_SCORE": "1",
                                "SELFTEST_OUTPUT_DIR": str(results)})
    log = result.stdout + result.stderr
    outputs = gate_outputs(log)
    assert outputs["SUMMARY_JSON_PATH"] == str(results / "mutation.json"), log[-6000:]
    report = json.loads((results / "mutation.json").read_text())
    assert report["control"]["status"] == "survived"
    assert [m["operator"] for m in report["mutants"]] == ["patch", "patch"]
    killed, total = report["score"]["killed"], report["score"]["total"]
    assert total == 2 and outputs["MUTATION_SCORE"] == f"{killed / total:.4g}"
    assert next(m for m in report["mutants"] if "contradiction" in m["id"])["status"] == "killed"
    # min-score 1: the job fails exactly when a mutant survived
    assert outputs["EXIT_CODE"] == ("0" if killed == total else "1"), outputs
    assert (result.exit_code == 0) == (killed == total)
    assert "Mutation testing" in job_summary(log)
