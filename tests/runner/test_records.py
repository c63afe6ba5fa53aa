"""Records on disk, resume after a kill, ABBA order, shards, --jobs, --tasks and progress lines."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys

import jsonschema
import pytest

from tests.conftest import REPO_ROOT
from tests.fixtures.runner_cli import MANIFEST, evaluate, load_runs, make_adapter, records, survivors, wait_for
from tests.runner.suite import build_suite_repo, load_index, task

RUN_SCHEMA = json.loads((REPO_ROOT / "schemas" / "run-record.schema.json").read_text())


def counting_adapter(tmp_path, body: str = ""):
    """An adapter appending `task repeat variant pid phase` to a log at start (the invocation counter).

    `phase` is $RUN_PHASE, so a late line from an orphan of a killed runner is told apart."""
    (tmp_path / "reports").mkdir(exist_ok=True)
    log = tmp_path / "reports" / "invocations"
    adapter = make_adapter(tmp_path, f"""
        with open({str(log)!r}, "a") as handle:
            phase = os.environ.get("RUN_PHASE", "-")
            handle.write(f"{{request['task_id']}} {{request['repeat']}} {{request['variant']}} {{os.getpid()}} {{phase}}\\n")
        {body}
        open("src/touched.py", "w").write(request["variant"])
    """)
    return adapter, log


def invocations(log, phase: str = "-") -> list[tuple[str, int, str]]:
    if not log.exists():
        return []
    lines = (line.split() for line in log.read_text().splitlines())
    return [(t, int(r), v) for t, r, v, _pid, p in lines if p == phase]


def test_run_records_validate_and_sit_beside_events_and_patch(git_repo, tmp_path):
    base, candidate = build_suite_repo(git_repo, [task("t1"), task("t2")], repeats=2)
    adapter, _ = counting_adapter(tmp_path)
    out = tmp_path / "out"
    result = evaluate(git_repo, base, candidate, out, adapter)
    assert result.returncode == 0, result.stderr
    validator = jsonschema.Draft202012Validator(RUN_SCHEMA)
    found = records(out)
    assert len(found) == 8
    for (task_id, repeat, variant), run in found.items():
        directory = out / task_id / f"repeat-{repeat}" / variant
        raw = json.loads((directory / "run.json").read_text())
        assert next(iter(raw)) == "schema_version"
        assert list(validator.iter_errors(raw)) == []
        events = [json.loads(line) for line in (directory / "events.jsonl").read_text().splitlines()]
        assert events == raw["events"] and events[-1]["type"] == "result"
        assert "src/touched.py" in (directory / "patch.diff").read_text()
        assert (raw["base_sha"], raw["candidate_sha"]) == (base, candidate)
    index = load_index(out)
    assert next(iter(index)) == "schema_version"
    assert index["planned_runs"] == 8 and len(index["runs"]) == 8
    assert index["changed_instruction_paths"] == ["AGENTS.md"]
    assert all("events" not in run for run in index["runs"])


def test_abba_order(git_repo, tmp_path):
    base, candidate = build_suite_repo(git_repo, [task("t1")], repeats=4)
    adapter, log = counting_adapter(tmp_path)
    out = tmp_path / "out"
    assert evaluate(git_repo, base, candidate, out, adapter).returncode == 0
    assert [v for _, _, v in invocations(log)] == ["base", "candidate", "candidate", "base"] * 2
    runs = load_runs(out)
    assert [(r, runs[("t1", r, "base")]["order"], runs[("t1", r, "candidate")]["order"]) for r in range(4)] == [
        (0, 0, 1), (1, 1, 0), (2, 0, 1), (3, 1, 0)]


def test_resume_after_sigkill_runs_only_the_missing_runs(git_repo, tmp_path):
    base, candidate = build_suite_repo(git_repo, [task("t1"), task("t2")])
    adapter, log = counting_adapter(tmp_path, "time.sleep(0.6)")
    out, temp = tmp_path / "out", tmp_path / "temp"
    temp.mkdir()
    runner = subprocess.Popen([sys.executable, str(REPO_ROOT / "runner.py"), "--repo", str(git_repo.path),
                               "--manifest", MANIFEST, "--base", base, "--candidate", candidate, "--out", str(out),
                               "--adapter", str(adapter), "--temp-dir", str(temp),
                               "--sandbox-writable", str(log.parent)],
                              cwd=git_repo.path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert wait_for(lambda: (out / "index.json").exists() and len(load_index(out)["runs"]) >= 1, seconds=60)
    finally:
        runner.send_signal(signal.SIGKILL)
        runner.wait()
    # The sandbox dies with the runner (bwrap --die-with-parent): no adapter of the first runner
    # can log after this.
    assert wait_for(lambda: survivors(str(adapter)) == [], seconds=10)
    finished = set(load_runs(out))
    assert 1 <= len(finished) < 4

    result = evaluate(git_repo, base, candidate, out, adapter, "--resume", "--temp-dir", str(temp),
                      env={"RUN_PHASE": "resume"})
    assert result.returncode == 0, result.stderr
    assert f"resume: {len(finished)} finished runs kept" in result.stderr
    rerun = invocations(log, "resume")
    everything = {(t, 0, v) for t in ("t1", "t2") for v in ("base", "candidate")}
    assert sorted(rerun) == sorted(everything - finished)
    assert set(load_runs(out)) == everything
    assert f"[{len(finished) + 1}/4] " in result.stderr
    assert survivors(str(adapter)) == []


def test_shards_cover_every_task_once(git_repo, tmp_path):
    ids = ["a", "b", "c", "d", "e"]
    base, candidate = build_suite_repo(git_repo, [task(i) for i in ids])
    adapter, _ = counting_adapter(tmp_path)
    seen = []
    for k in (1, 2):
        out = tmp_path / f"out-{k}"
        result = evaluate(git_repo, base, candidate, out, adapter, "--shard", f"{k}/2")
        assert result.returncode == 0, result.stderr
        index = load_index(out)
        assert index["shard"] == f"{k}/2"
        tasks = sorted({r["task_id"] for r in index["runs"]})
        assert tasks == index["tasks"]
        assert len(index["runs"]) == 2 * len(tasks) == index["planned_runs"]
        seen.append(set(tasks))
    assert seen[0].isdisjoint(seen[1]) and seen[0] | seen[1] == set(ids)
    bad = evaluate(git_repo, base, candidate, tmp_path / "bad", adapter, "--shard", "3/2")
    assert bad.returncode == 2 and "--shard" in bad.stderr


def test_jobs_two_gives_the_same_records_as_jobs_one(git_repo, tmp_path):
    base, candidate = build_suite_repo(git_repo, [task("a"), task("b"), task("c")], repeats=2)
    adapter, _ = counting_adapter(tmp_path, 'open(request["task_id"] + ".txt", "w").write(request["variant"])')

    def essence(out):
        keep = ("valid", "resolved", "hard_failures", "edited_files", "input_commit", "order", "diff_additions")
        return {key: {k: run[k] for k in keep} for key, run in load_runs(out).items()}

    one, two = tmp_path / "one", tmp_path / "two"
    assert evaluate(git_repo, base, candidate, one, adapter, "--jobs", "1").returncode == 0
    assert evaluate(git_repo, base, candidate, two, adapter, "--jobs", "2").returncode == 0
    assert len(essence(one)) == 12
    assert essence(one) == essence(two)
    for out in (one, two):
        for (task_id, repeat, variant), run in records(out).items():
            patch = (out / task_id / f"repeat-{repeat}" / variant / "patch.diff").read_text()
            assert f"+{variant}" in patch and f"{task_id}.txt" in patch


def test_tasks_selects_a_subset(git_repo, tmp_path):
    base, candidate = build_suite_repo(git_repo, [task("a"), task("b"), task("c")])
    adapter, log = counting_adapter(tmp_path)
    out = tmp_path / "out"
    assert evaluate(git_repo, base, candidate, out, adapter, "--tasks", "c", "a").returncode == 0
    assert sorted({t for t, _, _ in invocations(log)}) == ["a", "c"]
    assert load_index(out)["tasks"] == ["a", "c"]
    unknown = evaluate(git_repo, base, candidate, tmp_path / "x", adapter, "--tasks", "zzz")
    assert unknown.returncode == 2 and "--tasks: unknown task ids ['zzz']" in unknown.stderr


def test_progress_lines_on_stderr(git_repo, tmp_path):
    base, candidate = build_suite_repo(git_repo, [task("t1"), task("t2", required_command_patterns=["pytest"])])
    adapter, _ = counting_adapter(tmp_path)
    result = evaluate(git_repo, base, candidate, tmp_path / "out", adapter)
    lines = [line for line in result.stderr.splitlines() if line.startswith("[")]
    patterns = [r"\[1/4\] t1 r0 base: resolved in \d+\.\ds", r"\[2/4\] t1 r0 candidate: resolved in \d+\.\ds",
                r"\[3/4\] t2 r0 base: resolved in \d+\.\ds \(required_command_missing\)",
                r"\[4/4\] t2 r0 candidate: resolved in \d+\.\ds \(required_command_missing\)"]
    assert len(lines) == 4
    for line, pattern in zip(lines, patterns):
        assert re.fullmatch(pattern, line), line
    assert result.stdout == ""


@pytest.mark.parametrize("flag, value, message", [("--jobs", "0", "--jobs: must be at least 1"),
                                                  ("--repeats", "0", "--repeats: must be at least 1")])
def test_bad_counts_are_usage_errors(git_repo, tmp_path, flag, value, message):
    base, candidate = build_suite_repo(git_repo, [task("t1")])
    adapter, log = counting_adapter(tmp_path)
    result = evaluate(git_repo, base, candidate, tmp_path / "out", adapter, flag, value)
    assert result.returncode == 2 and message in result.stderr
    assert not log.exists()


def test_resume_refuses_runs_recorded_under_another_manifest(git_repo, tmp_path):
    base, candidate = build_suite_repo(git_repo, [task("t1")])
    adapter, log = counting_adapter(tmp_path)
    out = tmp_path / "out"
    assert evaluate(git_repo, base, candidate, out, adapter).returncode == 0
    manifest = git_repo.path / MANIFEST
    manifest.write_text(manifest.read_text() + "\n")  # any change: other prompts, checks or repeats
    resumed = evaluate(git_repo, base, candidate, out, adapter, "--resume")
    assert resumed.returncode == 2
    assert "--resume:" in resumed.stderr and "use a fresh --out directory" in resumed.stderr
    assert len(invocations(log, "-")) == 2  # nothing ran again


def test_resume_adopts_only_the_selected_tasks(git_repo, tmp_path):
    base, candidate = build_suite_repo(git_repo, [task("t1"), task("t2")])
    adapter, log = counting_adapter(tmp_path)
    out = tmp_path / "out"
    assert evaluate(git_repo, base, candidate, out, adapter).returncode == 0
    resumed = evaluate(git_repo, base, candidate, out, adapter, "--resume", "--tasks", "t2")
    assert resumed.returncode == 0, resumed.stderr
    assert "resume: 2 finished runs kept" in resumed.stderr
    assert {run["task_id"] for run in load_index(out)["runs"]} == {"t2"}
