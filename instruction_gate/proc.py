"""The one subprocess helper: new session, bounded output, TERM -> grace -> KILL of the group."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Callable, Mapping, Sequence

#: Seconds between SIGTERM and SIGKILL when a process group overruns its timeout.
TERM_GRACE_SECONDS = 2.0
#: Bytes of stdout/stderr kept (the tail) when output is not captured whole.
DEFAULT_TAIL_BYTES = 64 * 1024
#: Longest stdout line handed to `on_stdout_line` (events are small; a runaway line is cut).
MAX_LINE_BYTES = 8 * 1024 * 1024


def child_path(env: Mapping[str, str]) -> str:
    """PATH with the harness interpreter's directory first, so `python`/`pytest` mean the harness's."""
    return os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", os.defpath)])


@dataclass(frozen=True)
class ProcResult:
    """What a finished (or killed) process left behind."""

    argv: tuple[str, ...]
    exit_code: int | None  #: None when the command could not be started
    stdout: str  #: whole output, or its last `tail_bytes` bytes when capped
    stderr: str
    duration_seconds: float
    timed_out: bool = False
    start_error: str | None = None  #: e.g. "No such file or directory: 'codex'"
    stdout_bytes: bytes | None = None  #: the whole output as bytes, when asked for (`raw_stdout`)

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out


class _Tail:
    """Keeps the last `limit` bytes of a stream (or all when limit is None)."""

    def __init__(self, limit: int | None):
        self.limit = limit
        self.chunks: list[bytes] = []
        self.size = 0

    def add(self, data: bytes) -> None:
        self.chunks.append(data)
        self.size += len(data)
        if self.limit is not None and self.size > 2 * self.limit:
            joined = b"".join(self.chunks)[-self.limit:]
            self.chunks, self.size = [joined], len(joined)

    def text(self) -> str:
        data = b"".join(self.chunks)
        if self.limit is not None:
            data = data[-self.limit:]
        return data.decode("utf-8", errors="replace")

    def data(self) -> bytes:
        joined = b"".join(self.chunks)
        return joined[-self.limit:] if self.limit is not None else joined


_LIVE: set[subprocess.Popen] = set()
_LIVE_LOCK = threading.Lock()


def kill_all_live() -> None:
    """Kill every process group this helper started and has not reaped (on Ctrl-C or SIGTERM)."""
    with _LIVE_LOCK:
        live = list(_LIVE)
    for proc in live:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def _pump(stream: IO[bytes], sink: Callable[[bytes], None]) -> None:
    for chunk in iter(lambda: stream.read1(65536), b""):  # type: ignore[attr-defined]
        sink(chunk)
    stream.close()


def _feed(stream: IO[bytes], data: bytes) -> None:
    try:
        stream.write(data)
        stream.close()
    except (BrokenPipeError, ValueError, OSError):
        pass


def kill_group(proc: subprocess.Popen, grace: float = TERM_GRACE_SECONDS) -> None:
    """TERM the whole process group, wait `grace`, then KILL whatever is left."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        if sig == signal.SIGTERM:
            try:
                proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                continue
            # The leader exited; grandchildren may still hold the group.
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            return


def _wait(proc: subprocess.Popen, timeout: float | None, grace: float) -> bool:
    """Wait for the leader; returns True when it overran `timeout` and the group was killed."""
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(proc, grace)
        proc.wait()
        return True
    except BaseException:
        kill_group(proc, grace)  # Ctrl-C or SIGTERM to us: leave no orphans behind.
        raise
    # The leader exited; make sure no background child keeps the pipes open.
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    return False


#: prctl(2) option: orphans below this process are re-parented to it rather than to init.
_PR_SET_CHILD_SUBREAPER = 36
_SUBREAPER = [False]


def _children() -> dict[int, int]:
    """pid -> process group of every living child of this process (Linux /proc)."""
    me, found = os.getpid(), {}
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else ():
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == me and fields[0] != b"Z":
            found[int(entry)] = int(fields[2])
    return found


def _become_subreaper() -> bool:
    if not _SUBREAPER[0] and sys.platform.startswith("linux"):
        try:
            import ctypes
            _SUBREAPER[0] = ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
        except (OSError, AttributeError):
            pass
    return _SUBREAPER[0]


def _kill_orphans(before: set[int]) -> None:
    """KILL (with their process groups) the processes adopted since `before`: descendants that
    left the group with setsid and outlived their parent. Repeated, as each kill can orphan more."""
    own = os.getpgid(0)
    for _ in range(10):
        with _LIVE_LOCK:
            owned = {p.pid for p in _LIVE}
        orphans = {pid: group for pid, group in _children().items() if pid not in before and pid not in owned}
        if not orphans:
            return
        for pid, group in orphans.items():
            for kill, target in ((os.killpg, group), (os.kill, pid)):
                if kill is os.killpg and group == own:
                    continue  # never our own group
                try:
                    kill(target, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass


def run(
    argv: Sequence[str],
    cwd: Path | str,
    *,
    env: Mapping[str, str] | None = None,
    stdin: bytes | str | None = None,
    timeout: float | None = None,
    tail_bytes: int | None = DEFAULT_TAIL_BYTES,
    on_stdout_line: Callable[[bytes], None] | None = None,
    grace: float = TERM_GRACE_SECONDS,
    pass_fds: Sequence[int] = (),
    line_bytes: int | None = None,
    reap_orphans: bool = False,
    raw_stdout: bool = False,
) -> ProcResult:
    """Run `argv` in its own session; never raises for the child's behaviour.

    `tail_bytes=None` keeps the whole output (for git plumbing); otherwise only
    the last bytes are kept. `on_stdout_line` receives each complete stdout line
    as it arrives, so callers can record streamed events before the process ends.
    `pass_fds` stay open in the child (e.g. bubblewrap's --info-fd). A stdout line longer than
    `line_bytes` reaches `on_stdout_line` cut to `line_bytes + 1` bytes (so the caller can tell),
    and the rest of it is dropped unread: one endless line must not fill the memory.
    `reap_orphans` (Linux): this process adopts the child's orphans, and when the child is gone
    the ones it left behind in sessions of their own (agent CLIs run tools that way) are killed.
    `raw_stdout` also keeps stdout as bytes (`stdout_bytes`): file contents whose size matters.
    """
    started = time.monotonic()
    before = set(_children()) if reap_orphans and _become_subreaper() else None
    try:
        proc = subprocess.Popen(
            list(argv), cwd=cwd, env=dict(env) if env is not None else None,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
            pass_fds=tuple(pass_fds),
        )
    except OSError as exc:
        return ProcResult(tuple(argv), None, "", "", 0.0, start_error=f"{exc.strerror}: {argv[0]!r}")

    with _LIVE_LOCK:
        _LIVE.add(proc)
    out, err = _Tail(tail_bytes), _Tail(tail_bytes)
    pending = bytearray()
    # Every line is capped (one endless line must not fill the memory); callers may cap lower.
    limit = line_bytes if line_bytes is not None else MAX_LINE_BYTES - 1
    skipping = [False]  # inside an over-long line already delivered cut

    def out_sink(chunk: bytes) -> None:
        out.add(chunk)
        if on_stdout_line is None:
            return
        pending.extend(chunk)
        while (cut := pending.find(b"\n")) >= 0:
            if not skipping[0]:
                on_stdout_line(bytes(pending[:cut]))
            skipping[0] = False
            del pending[: cut + 1]
        if len(pending) > limit:
            if not skipping[0]:
                on_stdout_line(bytes(pending[: limit + 1]))
            skipping[0] = True
            pending.clear()

    readers = [threading.Thread(target=_pump, args=(proc.stdout, out_sink), daemon=True),
               threading.Thread(target=_pump, args=(proc.stderr, err.add), daemon=True)]
    for reader in readers:
        reader.start()
    if stdin is not None:
        # Written from a thread: a child that never reads must not block the timeout.
        data = stdin.encode() if isinstance(stdin, str) else stdin
        writer = threading.Thread(target=_feed, args=(proc.stdin, data), daemon=True)
        writer.start()
    try:
        timed_out = _wait(proc, timeout, grace)
    finally:
        with _LIVE_LOCK:
            _LIVE.discard(proc)
        if before is not None:
            _kill_orphans(before)
    for reader in readers:
        reader.join(timeout=5)
    if on_stdout_line is not None and pending and not skipping[0]:
        on_stdout_line(bytes(pending))
    return ProcResult(tuple(argv), proc.returncode,
                      out.text(), err.text(), time.monotonic() - started, timed_out,
                      stdout_bytes=out.data() if raw_stdout else None)
