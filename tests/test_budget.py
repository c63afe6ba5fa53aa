"""Budget caps: pairs admitted whole, caps stop the evaluation, a stopped evaluation is never a pass."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass

from instruction_gate.run.budget import Budget
from tests.conftest import REPO_ROOT
from tests.runner.suite import build_suite_repo, load_index, run_cli, task, write_adapter

PRICED = 'emit(type="result", status="completed", tool_calls=1, provider_cost_usd=0.25, instruction_sources=["AGENTS.md"], agent_name="test", model="none")'


@dataclass(frozen=True)
class _Task:
    id: str
    max_provider_cost_usd: float | None = None


@dataclass(frozen=True)
class _Spec:
    task: _Task
    repeat: int
    variant: str
    order: int


def _pair(task_id: str, repeat: int, cap: float | None = None) -> tuple[_Spec, _Spec]:
    t = _Task(task_id, cap)
    return _Spec(t, repeat, "base", 0), _Spec(t, repeat, "candidate", 1)


def test_run_cap_admits_whole_pairs_only():
    budget = Budget(max_agent_runs=5)
    first, second, third = _pair("a", 0), _pair("b", 0), _pair("c", 0)
    assert all(budget.admit(s) for s in (*first, *second))
    assert not budget.admit(third[0])
    assert not budget.admit(third[1])
    assert budget.runs_admitted == 4
    assert "max_agent_runs 5" in budget.stop_reason and "c repeat 0" in budget.stop_reason


def test_partner_of_an_admitted_run_still_starts_after_the_stop():
    budget = Budget(max_agent_runs=2)
    base, candidate = _pair("a", 0)
    other = _pair("b", 0)[0]
    assert budget.admit(base)
    assert not budget.admit(other)
    assert budget.admit(candidate)


def test_dollar_cap_uses_the_priciest_run_seen():
    budget = Budget(max_provider_usd=1.0)
    for spec in _pair("a", 0):
        assert budget.admit(spec)
        budget.settle({"provider_cost_usd": 0.3})
    assert not budget.admit(_pair("b", 0)[0])  # 0.6 spent + 2 x 0.3 > 1.0
    assert "max_provider_usd 1" in budget.stop_reason
    assert budget.as_record()["spent_usd"] == 0.6


def test_dollar_cap_counts_the_task_limit_before_any_run():
    assert not Budget(max_provider_usd=1.0).admit(_pair("a", 0, cap=0.6)[0])
    assert Budget(max_provider_usd=1.0).admit(_pair("a", 0, cap=0.5)[0])


def test_unpriced_runs_are_counted():
    budget = Budget(max_provider_usd=1.0)
    budget.settle({"provider_cost_usd": None})
    assert budget.as_record()["unpriced_runs"] == 1


def _policy(tmp_path, **blocks) -> str:
    path = tmp_path / "policy.json"
    path.write_text(json.dumps({"schema_version": 1, "soft": {"max_success_rate_drop": 0.1}, **blocks}))
    return str(path)


def _compare(out, policy) -> tuple[subprocess.CompletedProcess, dict]:
    summary = out / "summary.md"
    done = subprocess.run([sys.executable, "-m", "instruction_gate", "compare", "--results", str(out),
                           "--policy", policy, "--summary", str(summary)],
                          cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
    return done, json.loads((out / "summary.json").read_text())


def _evaluate_capped(git_repo, tmp_path, task_ids: list[str], policy: str):
    """Two repeats of each task under `policy` with an adapter charging $0.25 per run."""
    base, candidate = build_suite_repo(git_repo, [task(t) for t in task_ids], repeats=2)
    out = tmp_path / "out"
    done = run_cli(git_repo, "--manifest", "evals/manifest.json", "--base", base, "--candidate", candidate,
                   "--out", str(out), "--adapter", str(write_adapter(tmp_path, PRICED)), "--policy", policy)
    assert done.returncode == 0, done.stderr
    return out, load_index(out)


def test_run_cap_stops_the_evaluation_and_compare_says_inconclusive(git_repo, tmp_path):
    policy = _policy(tmp_path, budget={"max_agent_runs": 8})
    out, index = _evaluate_capped(git_repo, tmp_path, ["t1", "t2", "t3"], policy)
    assert len(index["runs"]) == 8
    # Repeat-major under a cap: every task got its first pair before any got a second.
    assert {(r["task_id"], r["repeat"]) for r in index["runs"]} == {("t1", 0), ("t2", 0), ("t3", 0), ("t1", 1)}
    assert index["stopped"]["reason"] == "budget"
    assert index["budget"]["stopped"] is True
    assert index["cost"]["agent_runs"] == 8 and index["cost"]["fixed_design_runs"] == 12
    compared, summary = _compare(out, policy)
    assert summary["verdict"] == "inconclusive"
    assert "budget cap" in summary["headline"] and "max_agent_runs 8" in summary["headline"]
    assert compared.returncode == 0  # on_inconclusive defaults to warn
    assert summary["spending"]["stopped"]["reason"] == "budget"
    assert "Runs and cost" in (out / "summary.md").read_text()


def test_budget_stop_blocks_when_inconclusive_blocks(git_repo, tmp_path):
    out, index = _evaluate_capped(git_repo, tmp_path, ["t1", "t2"], _policy(tmp_path, budget={"max_provider_usd": 1.2}))
    assert len(index["runs"]) == 4 and index["budget"]["spent_usd"] == 1.0
    assert "max_provider_usd 1.2" in index["stopped"]["detail"]
    strict = tmp_path / "strict.json"
    strict.write_text(json.dumps({"soft": {"max_success_rate_drop": 0.1, "on_inconclusive": "fail"}}))
    compared, summary = _compare(out, str(strict))
    assert compared.returncode == 1
    assert summary["verdict"] == "inconclusive"
    assert any("budget cap" in e for e in summary["errors"])


def test_a_shard_gets_its_share_of_the_caps():
    whole = Budget(max_agent_runs=13, max_provider_usd=3.0)
    third = whole.for_share(1 / 3)
    assert (third.max_agent_runs, third.max_provider_usd, third.share) == (4, 1.0, 1 / 3)  # whole pairs, rounded down
    assert Budget().for_share(0.5).capped is False
    # the shares of one evaluation never add up to more than its caps
    shares = [2 / 5, 2 / 5, 1 / 5]
    assert sum(whole.for_share(s).max_agent_runs for s in shares) <= 13


def test_shard_jobs_together_stay_within_the_evaluations_run_cap(git_repo, tmp_path):
    base, candidate = build_suite_repo(git_repo, [task(t) for t in ("t1", "t2", "t3", "t4")], repeats=2)
    policy = _policy(tmp_path, budget={"max_agent_runs": 8})
    adapter = write_adapter(tmp_path, PRICED)
    runs = 0
    for k in (1, 2):
        out = tmp_path / f"shard-{k}"
        done = run_cli(git_repo, "--manifest", "evals/manifest.json", "--base", base, "--candidate", candidate,
                       "--out", str(out), "--adapter", str(adapter), "--policy", policy, "--shard", f"{k}/2")
        assert done.returncode == 0, done.stderr
        index = load_index(out)
        assert index["budget"]["max_agent_runs"] == 4 and index["budget"]["share"] == 0.5
        runs += len(index["runs"])
    assert runs == 8  # not 8 per shard


def test_a_tight_run_cap_is_inconclusive_not_could_not_evaluate(git_repo, tmp_path):
    # 2 of 6 planned pairs run: the 4 never started are not lost runs, the cap explains them.
    policy = _policy(tmp_path, budget={"max_agent_runs": 4})
    out, index = _evaluate_capped(git_repo, tmp_path, ["t1", "t2", "t3"], policy)
    assert len(index["runs"]) == 4
    compared, summary = _compare(out, policy)
    assert compared.returncode == 0 and summary["verdict"] == "inconclusive", summary["headline"]
    assert summary["not_evaluated"] == [] and "budget cap" in summary["headline"]
    text = (out / "summary.md").read_text()
    assert "were not run: the budget cap stopped the evaluation" in text and "Saved" not in text
    assert "budget: budget:" not in text
