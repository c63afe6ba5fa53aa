"""The run record keeps what the adapter reported of instruction use: `skills_invoked` and
`lazy_instruction_sources`, strings once each; absent when the adapter reported no list."""

from __future__ import annotations

import json

import jsonschema

from instruction_gate.run.evaluation import MAX_REPORTED_NAMES, reported_names
from tests.conftest import REPO_ROOT
from tests.fixtures.runner_cli import evaluate, make_adapter, records
from tests.runner.suite import build_suite_repo, task

RESULT = ('emit(type="result", status="completed", tool_calls=1, instruction_sources=["AGENTS.md"], '
          'agent_name="test", model="none", skills_invoked=["release", 7, "release", "lint"] '
          'if request["variant"] == "base" else "release", lazy_instruction_sources=["svc/CLAUDE.md"])')


def test_reported_names_are_kept_and_others_dropped(git_repo, tmp_path):
    base, candidate = build_suite_repo(git_repo, [task("t1")], repeats=1)
    out = tmp_path / "out"
    result = evaluate(git_repo, base, candidate, out, make_adapter(tmp_path, result=RESULT))
    assert result.returncode == 0, result.stderr
    found = records(out)
    schema = json.loads((REPO_ROOT / "schemas" / "run-record.schema.json").read_text())
    for run in found.values():
        jsonschema.validate(run, schema)
    base_run, candidate_run = found[("t1", 0, "base")], found[("t1", 0, "candidate")]
    assert base_run["skills_invoked"] == ["release", "lint"]
    assert "skills_invoked" not in candidate_run  # not a list: the adapter told nothing usable
    assert base_run["lazy_instruction_sources"] == candidate_run["lazy_instruction_sources"] == ["svc/CLAUDE.md"]


def test_reported_names_are_capped():
    assert reported_names(None) is None and reported_names({"a": 1}) is None
    assert reported_names([""] + [f"s{i}" for i in range(MAX_REPORTED_NAMES + 5)]) == [
        f"s{i}" for i in range(MAX_REPORTED_NAMES)]
