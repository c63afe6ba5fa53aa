"""The one subprocess helper: group kill on timeout, TERM -> grace -> KILL, tail cap, streaming."""

from __future__ import annotations

import signal
import sys
import threading

from instruction_gate import proc
from tests.fixtures.runner_cli import alive, wait_dead, wait_for


def python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_timeout_kills_the_whole_process_group(tmp_path):
    pid_file = tmp_path / "grandchild"
    script = f"sleep 60 & echo $! > {pid_file}.tmp; mv {pid_file}.tmp {pid_file}; wait"
    result = proc.run(["sh", "-c", script], tmp_path, timeout=1.0, grace=0.5)
    assert result.timed_out is True and result.ok is False
    assert result.exit_code == -signal.SIGTERM
    assert wait_dead(int(pid_file.read_text()))


def test_child_ignoring_sigterm_is_killed_after_the_grace(tmp_path):
    marker = tmp_path / "ready"
    result = proc.run(["sh", "-c", f"trap '' TERM; touch {marker}; sleep 60"], tmp_path, timeout=1.0, grace=0.3)
    assert marker.exists()
    assert result.timed_out is True
    assert result.exit_code == -signal.SIGKILL


def test_background_child_keeping_the_pipes_open_does_not_hang(tmp_path):
    pid_file = tmp_path / "background"
    result = proc.run(["sh", "-c", f"sleep 60 & echo $! > {pid_file}; echo done"], tmp_path, timeout=30)
    assert result.ok and result.stdout == "done\n" and result.timed_out is False
    assert wait_dead(int(pid_file.read_text()))


def test_output_is_capped_to_its_tail(tmp_path):
    code = "import sys; [sys.stdout.write('%07d\\n' % i) for i in range(20000)]; sys.stderr.write('e' * 5000 + 'END')"
    result = proc.run(python(code), tmp_path, tail_bytes=1000)
    assert result.ok
    assert len(result.stdout) == 1000 and result.stdout.endswith("0019999\n")
    assert len(result.stderr) == 1000 and result.stderr.endswith("eEND")
    whole = proc.run(python(code), tmp_path, tail_bytes=None)
    assert len(whole.stdout) == 20000 * 8


def test_missing_executable_is_a_start_error(tmp_path):
    result = proc.run(["no-such-program-xyz", "--flag"], tmp_path)
    assert result.exit_code is None and result.ok is False and result.timed_out is False
    assert result.start_error == "No such file or directory: 'no-such-program-xyz'"
    assert result.argv == ("no-such-program-xyz", "--flag")


def test_exit_code_stdin_and_env_are_passed(tmp_path):
    code = "import os, sys; data = sys.stdin.read(); print(data.upper(), os.environ['ONLY_VAR']); sys.exit(7)"
    result = proc.run(python(code), tmp_path, stdin="hello", env={"ONLY_VAR": "x"})
    assert (result.exit_code, result.stdout, result.ok) == (7, "HELLO x\n", False)


def test_child_not_reading_a_large_stdin_still_times_out(tmp_path):
    result = proc.run(python("import time; time.sleep(60)"), tmp_path, stdin=b"x" * (4 * 1024 * 1024),
                      timeout=0.5, grace=0.2)
    assert result.timed_out is True


def test_stdout_lines_stream_while_the_process_runs(tmp_path):
    """The child waits for a file that only the line callback creates: no streaming, no progress."""
    go = tmp_path / "go"
    code = ("import os, sys, time\n"
            "print('first', flush=True)\n"
            f"while not os.path.exists({str(go)!r}): time.sleep(0.01)\n"
            "sys.stdout.write('second\\npartial')\n")
    lines: list[bytes] = []

    def on_line(line: bytes) -> None:
        lines.append(line)
        go.write_text("x")

    result = proc.run(python(code), tmp_path, timeout=20, on_stdout_line=on_line)
    assert result.timed_out is False and result.ok
    assert lines == [b"first", b"second", b"partial"]


def test_kill_all_live_stops_running_groups(tmp_path):
    pid_file = tmp_path / "pid"
    code = f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(60)"
    results: list[proc.ProcResult] = []
    worker = threading.Thread(target=lambda: results.append(proc.run(python(code), tmp_path)))
    worker.start()
    assert wait_for(lambda: pid_file.exists() and pid_file.read_text() != "")
    pid = int(pid_file.read_text())
    assert alive(pid)
    proc.kill_all_live()
    worker.join(timeout=20)
    assert results and results[0].exit_code == -signal.SIGKILL
    assert wait_dead(pid)


def test_orphans_that_left_the_group_are_killed_on_request(tmp_path):
    # A child in a session of its own (as OpenCode runs shell commands) survives the group kill;
    # with reap_orphans the caller adopts it and kills it. Run in a fresh interpreter: the
    # adopting process becomes a child subreaper for good, which pytest itself must not.
    code = ("import sys; from instruction_gate import proc\n"
            "script = 'setsid sleep 61.75 & echo $! > ' + sys.argv[1] + '; ' + sys.argv[2]\n"
            "proc.run(['sh', '-c', script], '.', timeout=float(sys.argv[3]), grace=0.3, reap_orphans=True)\n")
    for ending, timeout in (("exit 0", "30"), ("sleep 60", "1")):
        pid_file = tmp_path / f"orphan-{timeout}"
        ran = proc.run([sys.executable, "-c", code, str(pid_file), ending, timeout], tmp_path, timeout=60,
                       env={"PYTHONPATH": str(proc.Path(__file__).resolve().parents[1])})
        assert ran.ok, ran.stderr
        assert wait_dead(int(pid_file.read_text()))
