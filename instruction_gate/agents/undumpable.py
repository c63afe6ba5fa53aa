"""Keep an adapter's memory out of its agent's reach.

The agent runs as the adapter's uid (inside the sandbox as well: same uid, same PID namespace).
A same-uid process may open `/proc/<pid>/mem`, `environ` or attach with ptrace, unless the
target is non-dumpable: then the kernel asks for CAP_SYS_PTRACE, which no sandboxed process has
(bwrap drops every capability). So each adapter marks its own Python process non-dumpable
before it starts the agent: the agent cannot read the broker's provider key or the adapter's
buffers, nor write events into its memory. `execve` makes the agent dumpable again (the flag
is per process image), so the agent itself is unaffected.

Not covered: a process that keeps CAP_SYS_PTRACE (root outside the sandbox, `--unisolated` runs
as root) can still read it; files the adapter writes are protected only by their own modes.
"""

from __future__ import annotations

import ctypes
import os
import sys

from instruction_gate.console import say

PR_SET_DUMPABLE, PR_GET_DUMPABLE = 4, 3


def make_undumpable() -> str | None:
    """Mark this process non-dumpable; None when done, else why not (never raises)."""
    if not sys.platform.startswith("linux"):
        return f"not supported on {sys.platform}"
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
            return os.strerror(ctypes.get_errno())
    except (OSError, AttributeError) as exc:
        return f"prctl unavailable: {exc}"
    return None


def harden_adapter(name: str) -> None:
    """Called by each adapter before it starts its agent; says so on stderr when it cannot."""
    why = make_undumpable()
    if why:
        say(f"{name}: cannot make the adapter non-dumpable ({why}); the agent may read its memory", file=sys.stderr)


def is_dumpable() -> bool | None:
    """This process's flag (None off Linux)."""
    if not sys.platform.startswith("linux"):
        return None
    return bool(ctypes.CDLL(None, use_errno=True).prctl(PR_GET_DUMPABLE, 0, 0, 0, 0))
