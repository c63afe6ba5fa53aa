"""Output limits: huge event streams, endless lines and huge files are cut, recorded, and never held whole."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import REPO_ROOT
from tests.fixtures.runner_cli import MANIFEST, make_adapter, record
from tests.runner.suite import build_suite_repo, task

KIB, MIB = 1024, 1024 * 1024
LIMITS = {"max_event_bytes": 1 * MIB, "max_event_line_bytes": 64 * KIB, "max_patch_bytes": 1 * MIB}

#: Per task id, what a hostile agent does before its (completed) result event.
FLOOD = """
    tid = request["task_id"]
    if tid == "flood":  # 30 MB of well-formed events
        line = json.dumps({"type": "message", "text": "x" * 1000}) + "\\n"
        for _ in range(30_000):
            sys.stdout.write(line)
    elif tid == "endless-line":  # 8 MB without a newline
        for _ in range(128):
            sys.stdout.write("y" * 65536)
        sys.stdout.write("\\n")
    elif tid == "big-file":  # a 3 MB binary file: its patch would be larger still
        open("blob.bin", "wb").write(os.urandom(3 * 1024 * 1024))
    sys.stdout.flush()
"""


def test_runs_over_an_output_limit_are_cut_and_recorded(git_repo, tmp_path):
    ids = ["flood", "endless-line", "big-file", "ok"]
    base, candidate = build_suite_repo(git_repo, [task(i) for i in ids])
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"schema_version": 1, "limits": LIMITS}))
    adapter = make_adapter(tmp_path, FLOOD)
    out = tmp_path / "out"
    # The runner under a parent that reports its peak memory (its largest child's, i.e. the runner's).
    measure = ("import resource, subprocess, sys; code = subprocess.run(sys.argv[1:]).returncode; "
               "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, code)")
    completed = subprocess.run(
        [sys.executable, "-c", measure, sys.executable, str(REPO_ROOT / "runner.py"), "--repo", str(git_repo.path),
         "--manifest", MANIFEST, "--base", base, "--candidate", candidate, "--out", str(out),
         "--adapter", str(adapter), "--policy", str(policy)],
        cwd=git_repo.path, capture_output=True, text=True, timeout=300)
    peak_kib, code = map(int, completed.stdout.split())
    assert code == 0, completed.stderr
    assert peak_kib < 300 * 1024, f"runner peaked at {peak_kib // 1024} MiB"

    for variant in ("base", "candidate"):
        for tid, what in (("flood", "events"), ("endless-line", "events"), ("big-file", "patch")):
            run = record(out, tid, 0, variant)
            assert (run["valid"], run["resolved"], run["failure_class"]) == (True, False, "agent"), tid
            assert run["failure_reason"] == f"output_limit:{what}"
            assert run["hard_failures"][0] == "agent_not_completed"  # (its result event may be past the cut)
            stored = out / tid / "repeat-0" / variant
            assert (stored / "events.jsonl").stat().st_size <= LIMITS["max_event_bytes"]
            assert (stored / "patch.diff").stat().st_size <= LIMITS["max_patch_bytes"]
        assert record(out, "flood", 0, variant)["event_bytes"] >= 30_000 * 1000
        assert record(out, "big-file", 0, variant)["edited_files"] == ["blob.bin"]  # known, just not stored
        assert record(out, "ok", 0, variant)["resolved"] is True
    index = json.loads((out / "index.json").read_text())
    assert index["output_limits"] == LIMITS
