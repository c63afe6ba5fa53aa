"""The demo end to end: the example repository, the reference agent, runner.py and compare.py."""

from __future__ import annotations

import argparse
import subprocess

import pytest

from instruction_gate import cli, demo_repo
from instruction_gate.commands import demo
from instruction_gate.errors import ConfigError

#: What each shipped mutation must break, task by task (hard gates new in the candidate).
EXPECTED = {
    "benign": {},
    "contradiction": {
        "add-idempotency-test": ["required_command_missing"],
        "bug-cache-key": ["required_command_missing"],
        "bug-tax-rounding": ["required_command_missing"],
        "discover-contribution-policy": ["required_policy_event_missing"],
        "refactor-email-parser": ["required_command_missing"],
    },
    "stale-command": {
        "add-idempotency-test": ["required_command_missing"],
        "bug-cache-key": ["required_command_missing"],
        "bug-tax-rounding": ["required_command_missing"],
        "refactor-email-parser": ["required_command_missing"],
    },
    "truncation-tail": {
        "discover-contribution-policy": ["required_check_failed", "required_policy_event_missing"],
    },
}


@pytest.mark.parametrize("candidate", sorted(EXPECTED))
def test_demo_verdict_and_named_failures(candidate, tmp_path, capsys):
    code = cli.main(["demo", "--candidate", candidate, "--output-dir", str(tmp_path), "--repeats", "1"])
    printed = capsys.readouterr().out
    expected = EXPECTED[candidate]
    assert code == (1 if expected else 0), printed
    results = tmp_path / candidate / "results"
    assert demo.candidate_regressions(results / "index.json") == expected
    for task, gates in expected.items():
        assert f"{task}: {', '.join(gates)}" in printed
    assert (results / "summary.md").is_file() and str(results / "summary.md") in printed
    assert f"verdict: {'FAIL' if expected else 'PASS'}" in printed


def test_every_shipped_mutation_has_an_expectation():
    assert set(demo_repo.mutation_names()) == set(EXPECTED) - {"benign"}


def test_candidate_commit_only_edits_instructions(tmp_path):
    repo = demo_repo.build(tmp_path / "repo", demo_repo.resolve_candidate("truncation-tail"))
    changed = subprocess.run(["git", "diff", "--name-only", repo.base, repo.candidate], cwd=repo.path,
                             capture_output=True, text=True, check=True).stdout.split()
    assert changed == ["AGENTS.md"]
    for item in demo_repo.HARNESS_ITEMS:
        assert (repo.suite / item).exists(), item
    assert not list(repo.path.rglob("__pycache__"))


def test_user_supplied_agents_file_becomes_the_candidate(tmp_path):
    mine = tmp_path / "MY_AGENTS.md"
    mine.write_text("# Rules\n- Run the tests with `python -m pytest -q` before finishing.\n")
    candidate = demo_repo.resolve_candidate(str(mine))
    repo = demo_repo.build(tmp_path / "repo", candidate)
    assert (repo.path / "AGENTS.md").read_text() == mine.read_text()
    assert candidate.name == "custom"


def test_unknown_candidate_is_a_usage_error(tmp_path):
    with pytest.raises(ConfigError, match="neither 'benign', 'mixed', a mutation"):
        demo_repo.resolve_candidate(str(tmp_path / "missing.md"))


@pytest.mark.parametrize(("benign", "mutated", "expected"), [(0, 1, 0), (0, 0, 1), (1, 1, 1), (3, 1, 1)])
def test_default_demo_exits_zero_only_when_both_verdicts_are_as_expected(benign, mutated, expected, monkeypatch, tmp_path):
    codes = {"benign": benign, demo.DEFAULT_MUTATION: mutated}
    monkeypatch.setattr(demo, "evaluate", lambda c, args: demo.Outcome(c.name, codes[c.name], tmp_path, None))
    args = argparse.Namespace(candidate=None)
    assert demo.run(args) == expected
