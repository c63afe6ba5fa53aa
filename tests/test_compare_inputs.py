"""Merging results: shard directories, duplicates, mixed commits, malformed records."""

from __future__ import annotations

import json

import pytest

from compare_builders import BASE_SHA, index, outcome_runs, policy, run, write_json
from instruction_gate.cli import main
from instruction_gate.errors import ConfigError, NotEvaluatedError
from instruction_gate.verdict.results import load_results

TABLE = {f"t{i}": [(True, i != 1), (True, True)] for i in range(4)}


def shard_outputs(tmp_path):
    runs = outcome_runs(TABLE)
    first = [r for r in runs if r["task_id"] in ("t0", "t2")]
    second = [r for r in runs if r["task_id"] in ("t1", "t3")]
    write_json(tmp_path / "shards" / "shard-1" / "index.json", index(first, shard="1/2"))
    write_json(tmp_path / "shards" / "shard-2" / "index.json", index(second, shard="2/2"))
    return tmp_path / "shards"


def test_shard_directory_merges_into_one_evaluation(tmp_path):
    merged = load_results([shard_outputs(tmp_path)])
    assert len(merged.runs) == 16 and merged.shards == ["1/2", "2/2"]
    assert len(merged.planned_pairs) == 8 and merged.header["base_sha"] == BASE_SHA
    write_json(tmp_path / "p.json", policy())
    code = main(["--results", str(tmp_path / "shards" / "shard-1"), "--results", str(tmp_path / "shards" / "shard-2"),
                 "--policy", str(tmp_path / "p.json"), "--summary", str(tmp_path / "summary.md")], only="compare")
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert code == 0 and summary["valid_pairs"] == 8 and summary["task_clusters"] == 4
    assert summary["tasks"][1] == {"task_id": "t1", "pairs": 2, "base_resolved": 2, "candidate_resolved": 1,
                                   "delta": -0.5, "lost_repeats": [0], "gained_repeats": []}


def test_duplicate_runs_are_refused_naming_both_files(tmp_path, capsys):
    runs = outcome_runs(TABLE)
    write_json(tmp_path / "a" / "index.json", index(runs))
    write_json(tmp_path / "b" / "index.json", index(runs[:2]))
    with pytest.raises(ConfigError, match=r"duplicate run t0 repeat 0 base: in .*a/index.json and in .*b/index.json"):
        load_results([tmp_path / "a", tmp_path / "b"])
    write_json(tmp_path / "p.json", policy())
    code = main(["--results", str(tmp_path), "--policy", str(tmp_path / "p.json"),
                 "--summary", str(tmp_path / "summary.md")], only="compare")
    assert code == 2 and "duplicate run" in capsys.readouterr().err
    assert not (tmp_path / "summary.md").exists()


def test_the_same_file_given_twice_is_refused(tmp_path):
    path = write_json(tmp_path / "index.json", index(outcome_runs(TABLE)))
    with pytest.raises(ConfigError, match="given twice"):
        load_results([path, tmp_path])


def test_mixed_commits_are_refused(tmp_path):
    write_json(tmp_path / "a" / "index.json", index(outcome_runs({"t0": [(True, True)]})))
    other = index(outcome_runs({"t1": [(True, True)]}), candidate_sha="9" * 40)
    write_json(tmp_path / "b" / "index.json", other)
    with pytest.raises(ConfigError, match="disagree on candidate_sha") as refused:
        load_results([tmp_path])
    # both inputs are named, so the user knows which evaluations got mixed
    assert str(tmp_path / "a" / "index.json") in str(refused.value) and str(tmp_path / "b" / "index.json") in str(refused.value)


def test_a_run_record_from_another_commit_is_refused(tmp_path):
    runs = outcome_runs({"t0": [(True, True)]}) + [run("t1", 0, "base", base_sha="8" * 40)]
    write_json(tmp_path / "index.json", runs)
    with pytest.raises(ConfigError, match=r"disagree on base_sha.*\$\[2\]\.base_sha"):
        load_results([tmp_path / "index.json"])


def test_malformed_records_report_json_paths(tmp_path):
    write_json(tmp_path / "index.json", index([{"task_id": 3, "repeat": "0", "variant": "baseline"}], repeats=1, tasks=[]))
    with pytest.raises(ConfigError) as caught:
        load_results([tmp_path / "index.json"])
    text = str(caught.value)
    assert "index.json::$.runs[0].task_id" in text and "$.runs[0].repeat" in text and "$.runs[0].variant" in text


def test_newer_record_versions_and_empty_inputs(tmp_path):
    write_json(tmp_path / "new" / "index.json", {**index([]), "schema_version": 99})
    with pytest.raises(ConfigError, match="newer instruction-gate"):
        load_results([tmp_path / "new" / "index.json"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(NotEvaluatedError, match="no index.json found"):
        load_results([tmp_path / "empty"])
    write_json(tmp_path / "none" / "index.json", index([]))
    with pytest.raises(NotEvaluatedError, match="no run records"):
        load_results([tmp_path / "none"])
