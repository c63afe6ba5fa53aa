"""The checks run the agent's code: a hostile agent's module, imported by a check, tries every way
out of the checks' sandbox. Table-driven: each attack reports whether it got through; the same
attacks get through under `--unisolated` (the control), so each row can fail."""

from __future__ import annotations

import json
import os
import socket
import threading
import time

import pytest

from tests.fixtures.runner_cli import evaluate, make_adapter, record, survivors, wait_for
from tests.runner.suite import build_suite_repo, task

TOKEN = "sk-broker-token-check-escape-0123456789"

#: The agent's "fix": the right value, plus code that runs whenever a check imports the module.
PAYLOAD = r'''VALUE = 2
import json, os, shutil, socket, subprocess, sys
_found, _out = {}, os.environ.get("CHECK_REPORT_NAME", "")
def _try(name, attack):
    try:
        _found[name] = bool(attack())
    except OSError:
        _found[name] = False
def _token():
    for pid in filter(str.isdigit, os.listdir("/proc")):
        for part in ("environ", "cmdline"):
            try:
                if TOKEN in open(f"/proc/{pid}/{part}", "rb").read():
                    return True
            except OSError:
                pass
    return False
def _checkout():
    open(os.path.join(REPO, "pwned-by-check"), "w").write("x")
    return True
def _loopback():
    socket.create_connection(("127.0.0.1", PORT), timeout=3).close()
    return True
def _kernel():
    open("/proc/sys/kernel/core_pattern", "a").close()  # opened for writing, nothing written
    return True
def _ci_file():
    return "GITHUB_ENV" in os.environ or os.path.exists(GITHUB_ENV)
def _slot():
    # The slot's trusted index beside the validation workspace: the next run's workspace is reset with it.
    index = os.path.join(os.getcwd(), "..", "gen.index")
    if not os.path.isfile(index):
        return False
    open(index, "wb").write(b"not an index")
    return True
def _records():
    # The paired base run's record, written before this run started.
    path = os.path.join(OUT, "t1", "repeat-0", "base", "run.json")
    if not os.path.isfile(path):
        return False
    open(path, "w").write("{}")
    return True
def _home():
    return os.path.exists(os.path.join(os.path.expanduser("~"), HOME_MARKER))
_try("token", _token)
_try("checkout", _checkout)
_try("loopback", _loopback)
_try("kernel", _kernel)
_try("ci_file", _ci_file)
_try("home", _home)
subprocess.Popen(["setsid", sys.executable, "-c", "import time; time.sleep(30)", MARKER],
                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
_try("slot", _slot)
_try("records", _records)
print("ESCAPES " + json.dumps(_found))
'''

CHECK = ["python", "-c", "import sys; sys.path.insert(0, 'src'); import app; sys.exit(0 if app.VALUE == 2 else 1)"]
ATTACKS = ("token", "checkout", "loopback", "kernel", "ci_file", "home", "slot", "records")


def whole_records(out):
    """Runs by (task, repeat, variant), leaving out a run.json that is no record any more."""
    found = {}
    for path in out.glob("*/repeat-*/*/run.json"):
        data = json.loads(path.read_text())
        if "task_id" in data:
            found[(data["task_id"], data["repeat"], data["variant"])] = data
    return found


class Listener:
    """A loopback server on the host that counts the connections it accepts."""

    def __init__(self):
        self.socket = socket.create_server(("127.0.0.1", 0))
        self.port = self.socket.getsockname()[1]
        self.accepted = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                connection, _ = self.socket.accept()
            except OSError:
                return
            self.accepted += 1
            connection.close()


def _run(git_repo, tmp_path, *flags):
    listener = Listener()
    marker = f"check-escape-{os.getpid()}-{time.monotonic_ns()}"
    home_marker = f"home-marker-{time.monotonic_ns()}"
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / home_marker).write_text("x")
    github_env = tmp_path / "github-env"
    github_env.write_text("")
    out = tmp_path / "out"
    payload = (f"TOKEN, REPO, PORT, MARKER = {TOKEN.encode()!r}, {str(git_repo.path)!r}, {listener.port}, {marker!r}\n"
               f"OUT = {str(out)!r}\n"
               f"GITHUB_ENV, HOME_MARKER = {str(github_env)!r}, {home_marker!r}\n" + PAYLOAD)
    base, candidate = build_suite_repo(git_repo, [task("t1", checks=[CHECK])], repeats=2)
    adapter = make_adapter(tmp_path, f"""
        if request["variant"] == "candidate" and request["repeat"] == 0:
            open("src/app.py", "w").write({payload!r})
        else:
            open("src/app.py", "w").write("VALUE = 2\\n")
    """)
    env = {"INSTRUCTION_EVAL_BROKER_TOKEN": TOKEN, "GITHUB_ENV": str(github_env), "HOME": str(tmp_path / "home")}
    try:
        result = evaluate(git_repo, base, candidate, out, adapter, "--jobs", "1", "--temp-dir", str(tmp_path),
                          *flags, env=env)
        assert (out / "t1/repeat-0/candidate/run.json").is_file(), result.stderr[-3000:]
        tail = record(out, "t1", 0, "candidate")["checks"][0]["stdout_tail"]
        line = next(line for line in tail.splitlines() if line.startswith("ESCAPES "))
        escapes = json.loads(line.split(" ", 1)[1])
        daemon_left = bool(survivors(marker))
        return escapes, daemon_left, listener, whole_records(out)
    finally:
        listener.socket.close()
        wait_for(lambda: not survivors(marker), seconds=1)
        for pid in survivors(marker):
            os.kill(pid, 9)


def test_checks_cannot_reach_out_of_their_sandbox(git_repo, tmp_path):
    escapes, daemon_left, listener, runs = _run(git_repo, tmp_path)
    assert escapes == {name: False for name in ATTACKS}
    assert not daemon_left, "a process started by a check outlived it"
    assert listener.accepted == 0
    assert not (git_repo.path / "pwned-by-check").exists()
    # Every record is whole, and every run valid: the later ones' workspaces came from an intact slot.
    assert len(runs) == 4
    assert all(r["valid"] and r["resolved"] for r in runs.values()), [r["failure_reason"] for r in runs.values()]


def test_without_the_sandbox_the_same_checks_get_out(git_repo, tmp_path):
    """The control: each attack above is real."""
    escapes, daemon_left, listener, runs = _run(git_repo, tmp_path, "--unisolated")
    assert escapes == {name: True for name in ATTACKS}
    assert daemon_left
    assert listener.accepted >= 1
    assert (git_repo.path / "pwned-by-check").exists()
    assert ("t1", 0, "base") not in runs  # its record replaced by the check
    # The slot's index was overwritten too; the reset rebuilds a slot it cannot trust
    # (tests/runner/test_workspace_reset_hostile.py), so the later runs are whole even here.
    assert all(r["valid"] for (_, repeat, _), r in runs.items() if repeat == 1)


@pytest.mark.parametrize("granted", [False, True])
def test_a_task_may_grant_its_checks_the_network(git_repo, tmp_path, granted):
    listener = Listener()
    probe = ["python", "-c", f"import socket; socket.create_connection(('127.0.0.1', {listener.port}), timeout=3)"]
    base, candidate = build_suite_repo(git_repo, [task("t1", checks=[probe], check_network=granted)])
    out = tmp_path / "out"
    try:
        evaluate(git_repo, base, candidate, out, make_adapter(tmp_path))
    finally:
        listener.socket.close()
    assert record(out, "t1", 0, "base")["resolved"] is granted
    assert (listener.accepted > 0) is granted


def test_a_check_program_named_by_path_starts_and_a_missing_one_is_named(git_repo, tmp_path):
    tool = tmp_path / "tools" / "project-check"
    tool.parent.mkdir()
    tool.write_text("#!/bin/sh\necho checked\n")
    tool.chmod(0o755)
    (tmp_path / "tools" / "neighbour-secret").write_text("never shown")
    peek = ["python", "-c", f"import os; print(os.path.exists({str(tool.parent / 'neighbour-secret')!r}))"]
    base, candidate = build_suite_repo(git_repo, [task("t1", checks=[[str(tool)], peek])])
    out = tmp_path / "out"
    evaluate(git_repo, base, candidate, out, make_adapter(tmp_path))
    checks = record(out, "t1", 0, "base")["checks"]
    assert checks[0]["exit_code"] == 0 and checks[0]["stdout_tail"] == "checked\n"
    assert checks[1]["stdout_tail"] == "False\n"  # the program's file alone, never its directory

    tool.unlink()  # a program path that is gone when the check starts: recorded as on the host (no exit code, the reason)
    base, candidate = build_suite_repo(git_repo, [task("t1", checks=[["python", "-c", "pass"], [str(tool)]])])
    out = tmp_path / "out-missing"
    evaluate(git_repo, base, candidate, out, make_adapter(tmp_path))
    missing = record(out, "t1", 0, "base")["checks"][1]
    assert missing["exit_code"] is None and str(tool) in missing["stderr_tail"]
