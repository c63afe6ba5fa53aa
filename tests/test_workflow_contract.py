"""Properties of action.yml and the workflows that the linters in `make lint-workflows` do not
enforce, plus the required job's decision logic, run for real with bash."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
import yaml

from instruction_gate import proc

REPO_ROOT = Path(__file__).resolve().parent.parent
ACTION = REPO_ROOT / "action.yml"
EXAMPLE = REPO_ROOT / "examples" / "workflows" / "instruction-gate.yml"
BASE_EXAMPLE = REPO_ROOT / "examples" / "workflows" / "instruction-gate-base.yml"
WORKFLOWS = sorted([*REPO_ROOT.glob(".github/workflows/*.yml"), *REPO_ROOT.glob("examples/workflows/*.yml"),
                    *REPO_ROOT.glob("tests/workflows/*.yml")])


def _load(path: Path) -> dict:
    # PyYAML reads the bare key `on` as True.
    data = yaml.safe_load(path.read_text())
    if True in data:
        data["on"] = data.pop(True)
    return data


def _steps(path: Path):
    data = _load(path)
    if "runs" in data:
        yield from data["runs"]["steps"]
    for job in data.get("jobs", {}).values():
        yield from job.get("steps", [])


@pytest.mark.parametrize("path", [ACTION, *WORKFLOWS], ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_no_expression_inside_a_run_body(path):
    offending = [step.get("name", step["run"][:40]) for step in _steps(path) if "run" in step and "${{" in step["run"]]
    assert offending == []


@pytest.mark.parametrize("path", [ACTION, *WORKFLOWS], ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_remote_actions_pinned_to_a_commit_with_its_version(path):
    for line in path.read_text().splitlines():
        match = re.match(r"\s*(?:-\s+)?uses:\s*(\S+)(.*)$", line)
        if not match or match[1].startswith("./"):
            continue
        assert re.fullmatch(r"[\w.-]+/[\w.-]+(/[\w.-]+)*@[0-9a-f]{40}", match[1]), line
        assert re.fullmatch(r"\s+# v\d+(\.\d+)*", match[2]), line


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_checkouts_keep_no_credentials(path):
    checkouts = [s for s in _steps(path) if s.get("uses", "").startswith("actions/checkout@")]
    assert checkouts and all(s["with"]["persist-credentials"] is False for s in checkouts)


def test_example_runs_on_every_pull_request_with_read_only_token():
    workflow = _load(EXAMPLE)
    assert workflow["on"] == {"pull_request": None}  # no paths filter: the required check always reports
    assert workflow["permissions"] == {"contents": "read"}
    assert workflow["concurrency"]["cancel-in-progress"] is True
    assert "pull_request.number" in workflow["concurrency"]["group"]


def test_example_checks_out_the_base_and_never_the_candidate():
    refs = [s["with"].get("ref") for s in _steps(EXAMPLE) if s.get("uses", "").startswith("actions/checkout@")]
    assert refs and set(refs) == {"${{ github.event.pull_request.base.sha }}"}
    assert "head.sha" not in EXAMPLE.read_text().replace("pull_request.head.sha", "")


def test_secret_reaches_only_the_evaluation_step():
    jobs = _load(EXAMPLE)["jobs"]
    users = [(name, step.get("name")) for name, job in jobs.items() for step in job.get("steps", [])
             if "secrets." in yaml.safe_dump(step)]
    assert users == [("paired-eval", "Paired evaluation")]
    assert jobs["paired-eval"]["environment"] == "instruction-eval"
    assert "author_association" in jobs["paired-eval"]["if"] and "head.repo.full_name" in jobs["paired-eval"]["if"]
    action_steps = [s.get("name") for s in _steps(ACTION) if "inputs.broker-token" in yaml.safe_dump(s)]
    assert action_steps == ["Agent runs"]


def test_base_branch_jobs_never_run_for_a_pull_request():
    workflow = _load(BASE_EXAMPLE)
    assert not any(event.startswith("pull_request") or event == "workflow_run" for event in workflow["on"])
    assert workflow["permissions"] == {"contents": "read"}
    jobs = workflow["jobs"]
    modes = {name: [s["with"]["mode"] for s in job["steps"] if s.get("uses") == "./evals/instructions"]
             for name, job in jobs.items()}
    assert modes == {"tasks": ["validate-tasks"], "baseline": ["baseline"], "mutation": ["mutate"], "doctor": []}
    assert "environment" not in jobs["tasks"]  # no agent, no secret
    assert jobs["baseline"]["if"] == "github.event_name == 'push'"
    assert "pull_request" not in jobs["mutation"]["if"] and "pull_request" not in jobs["doctor"]["if"]
    # The drift check runs the newest CLI against a loopback provider: no environment, no secret.
    assert "environment" not in jobs["doctor"]
    assert any("instruction_gate doctor" in step.get("run", "") for step in jobs["doctor"]["steps"])
    secret_users = [step.get("name") for job in jobs.values() for step in job["steps"] if "secrets." in yaml.safe_dump(step)]
    assert secret_users == ["Record the base arm", "Mutation-test the suite"]


def test_only_the_baseline_mode_saves_the_cache_and_only_an_opt_in_restores_it():
    steps = {s.get("name"): s for s in _steps(ACTION)}
    saves = [s for s in steps.values() if s.get("uses", "").startswith("actions/cache/save@")]
    restores = [s for s in steps.values() if s.get("uses", "").startswith("actions/cache/restore@")]
    assert len(saves) == len(restores) == 1
    assert "inputs.mode == 'baseline'" in saves[0]["if"]
    assert "inputs.reuse-base-runs == 'true'" in restores[0]["if"] and "mode == 'baseline'" not in restores[0]["if"]
    assert saves[0]["with"]["key"] == restores[0]["with"]["key"] == "${{ steps.inputs.outputs.baseline-cache-key }}"
    example_inputs = [s["with"] for s in _steps(EXAMPLE) if s.get("uses") == "./evals/instructions"]
    assert [w["reuse-base-runs"] for w in example_inputs if "reuse-base-runs" in w] == ["${{ env.REUSE_BASE_RUNS }}"]
    assert _load(EXAMPLE)["env"]["REUSE_BASE_RUNS"] == "false"  # off unless the owner opts in


def test_shards_fan_in_to_one_compare():
    jobs = _load(EXAMPLE)["jobs"]
    shards = jobs["paired-eval"]["strategy"]["matrix"]["shard"]
    assert len(shards) > 1 and jobs["paired-eval"]["strategy"]["fail-fast"] is False
    compare_steps = [s for s in jobs["verdict"]["steps"] if s.get("with", {}).get("mode") == "compare"]
    assert len(compare_steps) == 1 and jobs["verdict"]["needs"] == "paired-eval"


def test_uploads_always_run_fail_when_empty_and_expire():
    uploads = [s for s in _steps(EXAMPLE) if s.get("uses", "").startswith("actions/upload-artifact@")]
    assert len(uploads) == 2
    for step in uploads:
        assert step["if"] == "always()"
        assert step["with"]["if-no-files-found"] == "error"
        assert 1 <= step["with"]["retention-days"] <= 90


def _required_job():
    jobs = _load(EXAMPLE)["jobs"]
    required = jobs["instruction-gate"]
    assert required["if"] == "always()"
    assert set(required["needs"]) == set(jobs) - {"instruction-gate"}
    return required["steps"][0]["run"]


@pytest.mark.parametrize("results, allow_unevaluated, expected", [
    (("success", "false", "skipped", "skipped", "skipped"), "false", 0),    # no instruction file changed
    (("success", "true", "success", "success", "success"), "false", 0),     # evaluated and passed
    (("success", "true", "success", "success", "failure"), "false", 1),     # the gate failed
    (("success", "true", "failure", "skipped", "skipped"), "false", 1),     # static contract refused
    (("success", "true", "success", "cancelled", "skipped"), "false", 1),   # a shard was cancelled
    (("failure", "", "skipped", "skipped", "skipped"), "false", 1),         # change detection broke
    (("success", "true", "success", "skipped", "skipped"), "false", 1),     # untrusted author: not evaluated
    (("success", "true", "success", "skipped", "skipped"), "true", 0),      # ... unless the owner allows it
])
def test_required_job_decision(tmp_path, results, allow_unevaluated, expected):
    names = ("CHANGES", "INSTRUCTIONS_CHANGED", "STATIC_CONTRACT", "PAIRED_EVAL", "VERDICT")
    env = {"PATH": "/usr/bin:/bin", "ALLOW_UNEVALUATED": allow_unevaluated, **dict(zip(names, results))}
    result = proc.run(["bash", "-e", "-c", _required_job()], tmp_path, env=env, timeout=30)
    assert result.exit_code == expected, result.stdout + result.stderr


def test_zizmor_rejects_an_expression_in_a_run_body(tmp_path):
    """The lint gate is live: the finding the workflows avoid is one zizmor reports."""
    bad = tmp_path / "bad.yml"
    bad.write_text("on: pull_request\npermissions: {}\njobs:\n  j:\n    runs-on: ubuntu-latest\n    steps:\n"
                   "      - run: echo \"${{ github.event.pull_request.title }}\"\n")
    zizmor = Path(sys.executable).parent / "zizmor"
    result = proc.run([str(zizmor), "--offline", "--no-progress", str(bad)], tmp_path, timeout=60)
    assert result.exit_code not in (0, None), result.stdout
    assert "template-injection" in result.stdout
