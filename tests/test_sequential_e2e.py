"""Sequential evaluations end to end: the reference agent on the example, and a scripted adapter."""

from __future__ import annotations

import json
import subprocess
import sys

from instruction_gate import demo_repo
from tests.conftest import REPO_ROOT
from tests.runner.suite import COMPLETED, build_suite_repo, load_index, run_cli, task, write_adapter

TASKS = ["bug-tax-rounding", "discover-contribution-policy"]


def _policy(tmp_path, **sections) -> str:
    path = tmp_path / "policy.json"
    path.write_text(json.dumps({"schema_version": 1, **sections}))
    return str(path)


def _cli(*args: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "instruction_gate", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300)


def _evaluate_example(tmp_path, candidate: str, policy: str) -> tuple[subprocess.CompletedProcess, dict]:
    repo = demo_repo.build(tmp_path / "repo", demo_repo.resolve_candidate(candidate))
    suite, out = repo.suite, tmp_path / "out"
    done = _cli("evaluate", "--repo", str(repo.path), "--manifest", str(suite / "manifest.json"),
                "--base", repo.base, "--candidate", repo.candidate, "--out", str(out),
                "--adapter", str(suite / "adapters" / "reference"), "--tasks", *TASKS, "--jobs", "2",
                "--policy", policy, cwd=repo.path)
    return done, load_index(out)


def test_obvious_mutation_stops_after_the_first_round(tmp_path):
    policy = _policy(tmp_path, soft={"max_success_rate_drop": 0.1, "mode": "fail"}, sequential={"max_rounds": 3})
    done, index = _evaluate_example(tmp_path, "contradiction", policy)
    assert done.returncode == 1, done.stderr  # the runner reports the candidate hard-gate regressions
    assert index["stopped"]["round"] == 1 and index["stopped"]["reason"] == "fail"
    assert "blocking hard-gate regression" in index["stopped"]["detail"]
    assert len(index["runs"]) == 4 and {r["repeat"] for r in index["runs"]} == {0}
    assert index["cost"] == {**index["cost"], "agent_runs": 4, "fixed_design_runs": 12, "saved_runs": 8}
    summary = tmp_path / "summary.md"
    compared = _cli("compare", "--results", str(tmp_path / "out"), "--policy", policy, "--summary", str(summary),
                    cwd=tmp_path)
    assert compared.returncode == 1
    text = summary.read_text()
    assert "stopped after round 1" in text and "Saved 8 agent runs (67%)" in text


def test_benign_edit_passes_after_the_first_round(tmp_path):
    policy = _policy(tmp_path, soft={"max_success_rate_drop": 0.1}, sequential={"max_rounds": 3})
    done, index = _evaluate_example(tmp_path, "benign", policy)
    assert done.returncode == 0, done.stderr
    assert index["stopped"] == {**index["stopped"], "round": 1, "reason": "pass"}
    assert index["sequential"]["looks"][0]["verdict"] == "pass"


def test_a_regression_awaiting_reproduction_keeps_the_rounds_going(tmp_path):
    # min_reproductions 2: one round can show each regression once only, so round 1 may not pass.
    policy = _policy(tmp_path, soft={"max_success_rate_drop": 0.1}, hard={"min_reproductions": 2},
                     sequential={"max_rounds": 3})
    done, index = _evaluate_example(tmp_path, "contradiction", policy)
    assert done.returncode == 1, done.stderr
    assert index["stopped"]["round"] == 2 and index["stopped"]["reason"] == "fail", index["stopped"]
    assert "awaiting reproduction" in done.stderr
    compared = _cli("compare", "--results", str(tmp_path / "out"), "--policy", policy,
                    "--summary", str(tmp_path / "summary.md"), cwd=tmp_path)
    assert compared.returncode == 1  # as the fixed design decides


# The candidate breaks t1 every time; t2 and t3 never change. Checks failing do not block here,
# so only the success rate decides, and one lost task of three is not clear either way.
BREAK_T1 = '''
if request["variant"] == "candidate" and request["task_id"] == "t1":
    os.remove(os.path.join(request["repo_root"], "src", "app.py"))
'''


def test_open_evidence_runs_every_round_and_compare_uses_the_last_look(git_repo, tmp_path):
    base, candidate = build_suite_repo(git_repo, [task("t1"), task("t2"), task("t3")])
    adapter = write_adapter(tmp_path, BREAK_T1 + COMPLETED)
    policy = _policy(tmp_path, hard={"fail_on_required_check": False},
                     soft={"max_success_rate_drop": 0.0}, sequential={"max_rounds": 2})
    out = tmp_path / "out"
    done = run_cli(git_repo, "--manifest", "evals/manifest.json", "--base", base, "--candidate", candidate,
                   "--out", str(out), "--adapter", str(adapter), "--policy", policy)
    assert done.returncode == 1, done.stderr  # runner: candidate-only required_check_failed
    index = load_index(out)
    assert [look["round"] for look in index["sequential"]["looks"]] == [1, 2]
    assert index["stopped"]["reason"] == "exhausted" and index["repeats"] == 2
    assert len(index["runs"]) == 12
    summary = tmp_path / "summary.md"
    compared = _cli("compare", "--results", str(out), "--policy", policy, "--summary", str(summary), cwd=REPO_ROOT)
    data = json.loads((tmp_path / "summary.json").read_text())
    assert compared.returncode == 0, compared.stderr
    assert data["spending"]["sequential"]["rounds_run"] == 2
    success = data["metrics"]["resolved"]
    assert success["verdict"] == "inconclusive"
    assert success["sequential_confidence"] == index["sequential"]["looks"][-1]["confidence"]


def test_sequential_mode_refuses_shards_before_any_run(git_repo, tmp_path):
    base, candidate = build_suite_repo(git_repo, [task("t1"), task("t2")])
    adapter = write_adapter(tmp_path, COMPLETED)
    policy = _policy(tmp_path, sequential={"max_rounds": 2})
    done = run_cli(git_repo, "--manifest", "evals/manifest.json", "--base", base, "--candidate", candidate,
                   "--out", str(tmp_path / "out"), "--adapter", str(adapter), "--policy", policy, "--shard", "1/2")
    assert done.returncode == 2
    assert "--shard 1/2: sequential mode" in done.stderr and "evaluate in one job" in done.stderr
    assert not (tmp_path / "out" / "index.json").exists()
    # one shard of one is no shard
    whole = run_cli(git_repo, "--manifest", "evals/manifest.json", "--base", base, "--candidate", candidate,
                    "--out", str(tmp_path / "whole"), "--adapter", str(adapter), "--policy", policy, "--shard", "1/1")
    assert whole.returncode == 0, whole.stderr
