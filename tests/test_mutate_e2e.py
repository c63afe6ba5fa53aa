"""End to end on the example suite: every seed mutation is killed, the A/A control survives,
and the base arm runs once for all mutants."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from instruction_gate import demo_repo
from instruction_gate.cli import main

#: Two tasks that between them depend on every rule the seed mutations break (fast, offline).
TASKS = ["bug-tax-rounding", "discover-contribution-policy"]


@pytest.fixture(scope="module")
def mutation_run(tmp_path_factory):
    work = tmp_path_factory.mktemp("mutate")
    repo = demo_repo.build(work / "repo", demo_repo.resolve_candidate("benign"))
    suite = repo.suite
    out = work / "out"
    code = main(["mutate", "--repo", str(repo.path), "--manifest", str(suite / "manifest.json"),
                 "--base", repo.base, "--out", str(out), "--adapter", str(suite / "adapters" / "reference"),
                 "--operators", "--repeats", "1", "--jobs", "2", "--tasks", *TASKS])
    return code, json.loads((out / "mutation.json").read_text()), out, repo


def test_seed_mutations_are_killed_and_control_survives(mutation_run):
    code, report, out, _ = mutation_run
    assert code == 0
    assert report["control"]["status"] == "survived"
    statuses = {m["id"]: m["status"] for m in report["mutants"]}
    assert statuses == {"patch:contradiction.patch": "killed", "patch:stale-command.patch": "killed",
                        "patch:truncation-tail.patch": "killed"}
    assert report["score"] == {"killed": 3, "total": 3, "ratio": 1.0, "survived": 0, "unreachable": 0,
                               "not_evaluated": 0}
    assert "**3/3 killed**" in (out / "mutation.md").read_text()


def test_each_mutant_directory_shows_the_change_and_the_verdict(mutation_run):
    _, report, out, _ = mutation_run
    for mutant in report["mutants"]:
        folder = out / "mutants" / Path(mutant["results"]).name
        assert (folder / "mutant.diff").read_text().startswith("--- a/")
        assert mutant["headline"] in (folder / "summary.md").read_text()
    stale = next(m for m in report["mutants"] if m["id"] == "patch:stale-command.patch")
    assert "[diff](mutants/" in (out / "mutation.md").read_text()
    assert (out / "mutants" / Path(stale["results"]).name / "mutant.diff").read_text().count("\n+") >= 1


def test_base_runs_are_shared_across_mutants(mutation_run):
    _, report, out, _ = mutation_run
    runs_per_arm = len(TASKS)  # one repeat
    assert report["cost"] == {"agent_runs": 2 * runs_per_arm + 3 * runs_per_arm,
                              "naive_agent_runs": 4 * 2 * runs_per_arm}
    index = json.loads(next((out / "mutants").glob("*contradiction*")).joinpath("index.json").read_text())
    base = [r for r in index["runs"] if r["variant"] == "base"]
    assert len(base) == runs_per_arm and all(r["reused"] for r in base)
    assert all(not r["reused"] for r in index["runs"] if r["variant"] == "candidate")


def test_user_repository_is_not_touched(mutation_run):
    _, _, _, repo = mutation_run
    from instruction_gate import git
    refs = git.out("for-each-ref", "--format=%(refname)", cwd=repo.path).split()
    assert refs == ["refs/heads/main"]
    assert git.out("status", "--porcelain", cwd=repo.path) == ""
