"""Baseline cache: hits, misses, refusals of stale and mismatched entries, and reuse end to end."""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field

from instruction_gate.run.baseline_cache import BaselineCache, Hit, Lookup, key_of, key_parts, provenance_mismatch
from tests.runner.suite import COMPLETED, build_suite_repo, load_index, run_cli, task, write_adapter


@dataclass(frozen=True)
class _Task:
    id: str
    raw: dict = field(default_factory=dict)


def _parts(**changes) -> dict:
    parts = key_parts(task=_Task("t1", {"id": "t1"}), manifest_sha256="m" * 64, base_tree="a" * 40,
                      input_commit="c" * 40, suite_digest="s" * 64, adapter_argv=["/bin/agent", "--fast"],
                      adapter_options={"model": "gpt-x"}, base_instructions={"AGENTS.md": "b" * 40})
    return {**parts, **changes}


def _record(repeat: int, **fields) -> dict:
    return {"schema_version": 1, "task_id": "t1", "variant": "base", "repeat": repeat, "valid": True,
            "failure_class": None, "input_commit": "c" * 40, "resolved": True, "agent_name": "codex",
            "model": "gpt-x", "harness_version": "codex-cli 1.0", "started_at": "2025-01-01T00:00:00+00:00",
            **fields}


def _lookup(cache: BaselineCache, parts: dict, repeats=(0, 1)) -> Lookup:
    found = Lookup()
    cache.lookup(parts, list(repeats), found)
    return found


def test_stored_runs_are_hits(tmp_path):
    cache = BaselineCache(tmp_path)
    assert cache.store(_parts(), [(_record(0), "diff 0"), (_record(1), "diff 1")]) == 2
    found = _lookup(cache, _parts())
    assert sorted(found.hits) == [("t1", 0), ("t1", 1)]
    assert found.hits[("t1", 1)].patch == "diff 1" and not found.refusals and not found.misses


def _checkout(where: Path, adapter_text: str) -> Path:
    (where / "adapters").mkdir(parents=True)
    (where / "adapters" / "agent").write_text(adapter_text)
    return where


def _adapter_key(repo: Path) -> dict:
    return key_parts(task=_Task("t1", {"id": "t1"}), manifest_sha256="m" * 64, base_tree="a" * 40,
                     input_commit="c" * 40, suite_digest="s" * 64,
                     adapter_argv=[str(repo / "adapters" / "agent"), "--fast"], adapter_options={},
                     base_instructions={}, repo=repo)


def test_the_key_does_not_depend_on_where_the_repository_is_checked_out(tmp_path):
    here, there = _checkout(tmp_path / "runner-1" / "repo", "v1"), _checkout(tmp_path / "runner-2" / "repo", "v1")
    assert key_of(_adapter_key(here)) == key_of(_adapter_key(there))
    assert _adapter_key(here)["adapter"] == "'<repo>/adapters/agent' --fast"
    # ...but it does depend on what the adapter file says
    changed = _checkout(tmp_path / "runner-3" / "repo", "v2")
    assert key_of(_adapter_key(changed)) != key_of(_adapter_key(here))
    # an adapter outside the repository keeps its absolute path
    outside = key_parts(task=_Task("t1"), manifest_sha256="", base_tree="", input_commit="", suite_digest="",
                        adapter_argv=["/usr/bin/agent"], adapter_options={}, base_instructions={}, repo=here)
    assert outside["adapter"] == "/usr/bin/agent"


def test_empty_cache_and_missing_repeats_are_misses(tmp_path):
    cache = BaselineCache(tmp_path)
    assert _lookup(cache, _parts()).misses == ["t1: not cached"]
    cache.store(_parts(), [(_record(0), "")])
    found = _lookup(cache, _parts(), repeats=(0, 1, 2))
    assert sorted(found.hits) == [("t1", 0)]
    assert found.misses == ["t1 repeat 1: not cached", "t1 repeat 2: not cached"]


def test_invalid_and_infrastructure_runs_are_never_stored(tmp_path):
    cache = BaselineCache(tmp_path)
    stored = cache.store(_parts(), [(_record(0, valid=False, failure_class="infrastructure"), ""),
                                    (_record(1, reused=True), "")])
    assert stored == 0
    assert _lookup(cache, _parts()).misses == ["t1: not cached"]


def test_changed_inputs_are_refused_as_stale_naming_what_changed(tmp_path):
    cache = BaselineCache(tmp_path)
    cache.store(_parts(), [(_record(0), "")])
    found = _lookup(cache, _parts(base_tree="d" * 40, adapter_options={"model": "gpt-y"}))
    assert not found.hits
    assert found.refusals == ["t1: stale, the cached entry differs in adapter_options, base_tree"]


def test_old_entries_are_refused_as_stale(tmp_path):
    cache = BaselineCache(tmp_path, max_age_days=1)
    cache.store(_parts(), [(_record(0), "")])
    meta = next(tmp_path.rglob("key.json"))
    data = json.loads(meta.read_text())
    data["created_at"] = "2020-01-01T00:00:00+00:00"
    meta.write_text(json.dumps(data))
    found = _lookup(cache, _parts())
    assert not found.hits and "stale, recorded 2020-01-01" in found.refusals[0]


def test_tampered_entries_are_refused_as_mismatched(tmp_path):
    cache = BaselineCache(tmp_path)
    cache.store(_parts(), [(_record(0), ""), (_record(1), "")])
    run_file = next(p for p in tmp_path.rglob("repeat-0.json"))
    run_file.write_text(run_file.read_text().replace('"resolved": true', '"resolved": false'))
    found = _lookup(cache, _parts())
    assert sorted(found.hits) == [("t1", 1)]
    assert found.refusals == ["t1 repeat 0: mismatched, content does not match its digest in key.json"]


def test_record_for_another_input_commit_is_refused(tmp_path):
    cache = BaselineCache(tmp_path)
    cache.store(_parts(), [(_record(0, input_commit="e" * 40), "")])
    found = _lookup(cache, _parts())
    assert not found.hits and "input commit" in found.refusals[0]


def test_provenance_must_match_this_evaluations_candidate_runs():
    hit = Hit("t1", 0, _record(0), "", "k")
    same = [{"agent_name": "codex", "model": "gpt-x", "harness_version": "codex-cli 1.0"}]
    assert provenance_mismatch(hit, same) is None
    newer = [{"agent_name": "codex", "model": "gpt-x", "harness_version": "codex-cli 1.1"}]
    assert "harness_version 'codex-cli 1.0'" in provenance_mismatch(hit, newer)


# -- end to end: a trusted fill, then a pull-request evaluation reusing it -------------------------

FILL_COUNTER = '''
counter = os.path.join(os.environ["RUN_LOG_DIR"], request["variant"] + "-" + request["task_id"] + "-" + str(request["repeat"]))
open(counter, "w").close()
'''


def _evaluate(repo, base, candidate, out, adapter, *extra, env=None):
    # The counter directory is the one place outside its workspace the sandbox lets the adapter write.
    shared = ("--sandbox-writable", env["RUN_LOG_DIR"]) if env else ()
    return run_cli(repo, "--manifest", "evals/manifest.json", "--base", base, "--candidate", candidate,
                   "--out", str(out), "--adapter", str(adapter), *shared, *extra, env=env)


def test_fill_then_reuse_marks_reused_runs_and_refuses_a_changed_adapter(git_repo, tmp_path):
    base, candidate = build_suite_repo(git_repo, [task("t1"), task("t2")], repeats=2)
    adapter = write_adapter(tmp_path, FILL_COUNTER + COMPLETED)
    cache, log = tmp_path / "cache", tmp_path / "log"
    log.mkdir()
    env = {"RUN_LOG_DIR": str(log)}
    filled = _evaluate(git_repo, base, base, tmp_path / "fill", adapter, "--baseline-cache", str(cache),
                       "--fill-baseline-cache", env=env)
    assert filled.returncode == 0, filled.stderr
    assert "stored 4 base runs" in filled.stderr
    assert load_index(tmp_path / "fill")["baseline_cache"] == {"stored_runs": 4}
    assert sorted(os.listdir(log)) == ["base-t1-0", "base-t1-1", "base-t2-0", "base-t2-1"]

    for name in os.listdir(log):
        os.unlink(log / name)
    out = tmp_path / "pr"
    reused = _evaluate(git_repo, base, candidate, out, adapter, "--baseline-cache", str(cache),
                       "--reuse-base-runs", env=env)
    assert reused.returncode == 0, reused.stderr
    assert sorted(os.listdir(log)) == ["candidate-t1-0", "candidate-t1-1", "candidate-t2-0", "candidate-t2-1"]
    index = load_index(out)
    base_runs = [r for r in index["runs"] if r["variant"] == "base"]
    assert len(base_runs) == 4 and all(r["reused"] for r in base_runs)
    assert all(r["candidate_sha"] == candidate for r in base_runs)
    assert not any(r["reused"] for r in index["runs"] if r["variant"] == "candidate")
    assert index["cost"]["agent_runs"] == 4 and index["cost"]["reused_runs"] == 4
    assert index["baseline_cache"]["reused_runs"] == 4

    # A different adapter is a different agent: nothing is reused, and the refusal says why.
    time.sleep(0.01)
    adapter.write_text(adapter.read_text() + "\n# changed\n")
    out2 = tmp_path / "pr2"
    refused = _evaluate(git_repo, base, candidate, out2, adapter, "--baseline-cache", str(cache),
                        "--reuse-base-runs", env=env)
    assert refused.returncode == 0, refused.stderr
    assert "stale, the cached entry differs in adapter_files" in refused.stderr
    index2 = load_index(out2)
    assert not any(r["reused"] for r in index2["runs"])
    assert len(index2["baseline_cache"]["refused"]) == 2


def test_reuse_is_off_without_the_flag(git_repo, tmp_path):
    base, candidate = build_suite_repo(git_repo, [task("t1")])
    adapter = write_adapter(tmp_path, COMPLETED)
    cache = tmp_path / "cache"
    assert _evaluate(git_repo, base, base, tmp_path / "fill", adapter, "--baseline-cache", str(cache),
                     "--fill-baseline-cache").returncode == 0
    out = tmp_path / "pr"
    done = _evaluate(git_repo, base, candidate, out, adapter, "--baseline-cache", str(cache))
    assert done.returncode == 0, done.stderr
    assert not any(r["reused"] for r in load_index(out)["runs"])


def test_reuse_needs_a_cache_directory(git_repo, tmp_path):
    base, candidate = build_suite_repo(git_repo, [task("t1")])
    done = _evaluate(git_repo, base, candidate, tmp_path / "out", write_adapter(tmp_path, COMPLETED),
                     "--reuse-base-runs")
    assert done.returncode == 2
    assert "need --baseline-cache DIR" in done.stderr
