"""Faults are data: each is recorded on its run with a class and reason, and the evaluation goes on."""

from __future__ import annotations

import pytest

from tests.fixtures.runner_cli import evaluate, load_runs, make_adapter, records, survivors, wait_dead
from tests.runner.suite import COMPLETED, build_suite_repo, task

#: Per task id, what the adapter does; "ok" is a healthy task run after the faulty one.
BEHAVIOUR = """
    tid = request["task_id"]
    open(os.path.join(os.environ["FAULT_LOG"], tid + "-" + request["variant"]), "w").write(str(os.getpid()))
    if tid == "malformed":
        print("not json at all", flush=True)
        print("[1, 2, 3]", flush=True)
        print('{"type": "tool", "command": ', flush=True)
        print("", flush=True)
    elif tid == "exits-nonzero":
        emit(type="result", status="completed", tool_calls=1, provider_cost_usd=0.0, instruction_sources=[])
        sys.exit(3)
    elif tid == "gives-up":
        emit(type="result", status="max_turns", failure_reason="max_turns", tool_calls=1)
        sys.exit(1)
    elif tid == "broken-auth":
        emit(type="result", status="error", failure_class="infrastructure", failure_reason="auth_failed")
        sys.exit(1)
    elif tid == "no-result":
        emit(type="tool", command="ls")
        print("adapter: lost the stream\\n\\n", file=sys.stderr)
        sys.exit(0)
    elif tid == "cli-missing":
        print("gemini: starting", file=sys.stderr)
        emit(type="result", status="failed", failure_class="infrastructure", failure_reason="cli_not_found",
             failure_detail="Error: Cannot find module 'gemini.js'\\n with key sk-abcdefghijklmnop " + "y" * 400)
        sys.exit(0)
    elif tid == "hangs" and request["variant"] == "base":
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", os.environ["FAULT_LOG"]])
        open(os.path.join(os.environ["FAULT_LOG"], "grandchild-" + request["variant"]), "w").write(str(child.pid))
        time.sleep(120)
"""


def run_suite(git_repo, tmp_path, faulty: dict, **extra):
    tasks = [task(faulty.pop("id"), **faulty), task("ok")]
    base, candidate = build_suite_repo(git_repo, tasks, **extra)
    log = tmp_path / "log"
    log.mkdir()
    adapter = make_adapter(tmp_path, BEHAVIOUR)
    out = tmp_path / "out"
    result = evaluate(git_repo, base, candidate, out, adapter, env={"FAULT_LOG": str(log)})
    runs = load_runs(out)
    for variant in ("base", "candidate"):
        assert runs[("ok", 0, variant)]["resolved"] is True, result.stderr
    return result, runs, log


@pytest.mark.parametrize("task_id, failure_class, reason", [
    ("exits-nonzero", "infrastructure", "result says completed but adapter exited 3"),
    ("gives-up", "agent", "max_turns: max_turns"),
    ("broken-auth", "infrastructure", "error: auth_failed"),
    ("no-result", "infrastructure", "adapter exited 0 without a result event"),
])
def test_adapter_faults_are_classified(git_repo, tmp_path, task_id, failure_class, reason):
    result, runs, _ = run_suite(git_repo, tmp_path, {"id": task_id})
    assert result.returncode == 0, result.stderr  # the healthy task forms valid pairs
    for variant in ("base", "candidate"):
        run = runs[(task_id, 0, variant)]
        assert (run["failure_class"], run["failure_reason"]) == (failure_class, reason)
        assert run["valid"] is (failure_class == "agent")
        assert run["resolved"] is False and "agent_not_completed" in run["hard_failures"]
    assert f"{task_id} r0 base: " in result.stderr


@pytest.mark.parametrize("task_id, detail", [
    ("cli-missing", "Error: Cannot find module 'gemini.js' with key [REDACTED] yyy"),
    ("no-result", "adapter: lost the stream"),
    ("gives-up", None),  # an agent failure: the reason says it all
])
def test_failure_detail_is_the_error_line_on_one_line_scrubbed_and_capped(git_repo, tmp_path, task_id, detail):
    _, runs, _ = run_suite(git_repo, tmp_path, {"id": task_id})
    for variant in ("base", "candidate"):
        found = runs[(task_id, 0, variant)]["failure_detail"]
        assert found == detail if detail is None or len(detail) < 40 else found.startswith(detail)
        assert found is None or (len(found) <= 240 and "\n" not in found and "sk-abc" not in found)
    assert runs[("ok", 0, "base")]["failure_detail"] is None


def test_malformed_lines_are_counted_and_skipped(git_repo, tmp_path):
    malformed_then_result = BEHAVIOUR + "\n    " + COMPLETED
    base, candidate = build_suite_repo(git_repo, [task("malformed")])
    log = tmp_path / "log"
    log.mkdir()
    adapter = make_adapter(tmp_path, malformed_then_result, result="")
    out = tmp_path / "out"
    result = evaluate(git_repo, base, candidate, out, adapter, env={"FAULT_LOG": str(log)})
    assert result.returncode == 0, result.stderr
    run = records(out)[("malformed", 0, "candidate")]
    assert run["malformed_event_lines"] == 3
    assert run["valid"] is True and run["resolved"] is True
    assert [e["type"] for e in run["events"]] == ["result"]


def test_adapter_hang_kills_the_whole_process_group(git_repo, tmp_path):
    """Only the base run hangs; its candidate partner then completes normally."""
    _, runs, log = run_suite(git_repo, tmp_path, {"id": "hangs", "timeout_seconds": 3})
    run = runs[("hangs", 0, "base")]
    assert run["failure_class"] == "agent" and run["valid"] is True
    assert run["failure_reason"] == "timeout: no result within 3s (process group killed)"
    assert run["hard_failures"][0] == "agent_not_completed"
    assert (log / "grandchild-base").exists(), "the adapter did not get far enough within the timeout"
    assert survivors(str(tmp_path)) == []  # the adapter (its path) and its grandchild (its argv)
    assert runs[("hangs", 0, "candidate")]["resolved"] is True


def test_check_hang_is_killed_and_recorded(git_repo, tmp_path):
    hang = ["python", "-c", "import subprocess, time; subprocess.Popen(['sleep', '120']); time.sleep(120)"]
    _, runs, _ = run_suite(git_repo, tmp_path, {"id": "check-hangs", "checks": [hang, ["true"]],
                                               "check_timeout_seconds": 1})
    run = runs[("check-hangs", 0, "candidate")]
    assert run["valid"] is True and run["failure_class"] is None
    assert [(c["timed_out"], c["exit_code"]) for c in run["checks"]] == [(True, None), (False, 0)]
    assert run["hard_failures"] == ["required_check_failed"] and run["resolved"] is False


def test_fixture_patch_that_does_not_apply(git_repo, tmp_path):
    bad = "--- a/src/app.py\n+++ b/src/app.py\n@@ -1 +1 @@\n-NOT THERE = 0\n+VALUE = 2\n"
    fixture = "evals/tasks/bad-fixture/fixture.patch"
    result, runs, log = run_suite(git_repo, tmp_path, {"id": "bad-fixture", "fixture_patch": fixture},
                                  extra={fixture: bad})
    assert result.returncode == 0, result.stderr
    for variant in ("base", "candidate"):
        run = runs[("bad-fixture", 0, variant)]
        assert run["failure_class"] == "infrastructure" and run["valid"] is False
        assert run["failure_reason"].startswith("fixture patch does not apply: ")
        assert "src/app.py" in run["failure_reason"]
        assert run["input_commit"] is None
        assert not (log / f"bad-fixture-{variant}").exists()  # the agent never ran


def test_fixture_patch_is_applied_before_the_agent_starts(git_repo, tmp_path):
    good = "--- a/src/app.py\n+++ b/src/app.py\n@@ -1 +1 @@\n-VALUE = 1\n+VALUE = 2\n"
    fixture = "evals/tasks/t1/fixture.patch"
    base, candidate = build_suite_repo(git_repo, [task("t1", fixture_patch=fixture)], extra={fixture: good})
    adapter = make_adapter(tmp_path, 'emit(type="probe", text=open("src/app.py").read(), '
                                     'log=subprocess.run(["git", "status", "--porcelain"], capture_output=True, text=True).stdout)')
    out = tmp_path / "out"
    assert evaluate(git_repo, base, candidate, out, adapter).returncode == 0
    run = records(out)[("t1", 0, "base")]
    probe = next(e for e in run["events"] if e["type"] == "probe")
    assert probe == {"type": "probe", "text": "VALUE = 2\n", "log": ""}
    assert run["edited_files"] == []


def test_adapter_that_cannot_start_means_nothing_could_be_evaluated(git_repo, tmp_path):
    base, candidate = build_suite_repo(git_repo, [task("t1"), task("t2")])
    out = tmp_path / "out"
    # The program exists (the up-front check passes) but its interpreter does not: exec fails per run.
    adapter = tmp_path / "adapter"
    adapter.write_text(f"#!{tmp_path / 'no-such-interpreter'}\n")
    adapter.chmod(0o755)
    result = evaluate(git_repo, base, candidate, out, adapter)
    assert result.returncode == 3
    assert "no valid (base, candidate) pair among 4 runs; every run failed: adapter could not start" in result.stderr
    runs = load_runs(out)
    assert len(runs) == 4
    for run in runs.values():
        assert run["failure_class"] == "infrastructure" and run["valid"] is False
        assert run["failure_reason"].startswith("adapter could not start: No such file or directory")
        assert run["adapter_exit_code"] is None


def test_exit_code_one_when_the_candidate_regresses_a_hard_gate(git_repo, tmp_path):
    base, candidate = build_suite_repo(git_repo, [task("t1", required_command_patterns=["pytest"])])
    adapter = make_adapter(tmp_path, 'if request["variant"] == "base": emit(type="tool", command="pytest -q")')
    result = evaluate(git_repo, base, candidate, tmp_path / "out", adapter)
    assert result.returncode == 1
    assert "1 candidate hard-gate regressions" in result.stderr
    assert "t1 r0: required_command_missing" in result.stderr
