"""One evaluation per output directory: an advisory lock on `OUT/.instruction-gate.lock`.

Two runners on one `--out` would execute every run twice and, with different candidates, mix
their records. The lock is a `flock` on a file in the directory: the kernel releases it when
its holder exits, however it exits, so a lock left by a dead process never blocks anyone (the
file stays; what it says about its last holder is only read to name a live one).
"""

from __future__ import annotations

import fcntl
import os
import socket
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from instruction_gate.errors import ConfigError

LOCK_NAME = ".instruction-gate.lock"


@contextmanager
def hold(out: Path, flag: str = "--out") -> Iterator[None]:
    """Hold the lock on `out` (created if missing) for the duration of the block; exit 2 when taken."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        fd = os.open(out / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    except OSError as exc:
        raise ConfigError(f"{flag} {out}: cannot create the output directory's lock ({exc.strerror})") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 512, 0).decode("utf-8", errors="replace").strip() or "another process"
            raise ConfigError(f"{flag} {out}: in use by another evaluation ({holder}); wait for it to finish "
                              "or use another directory") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()} on {socket.gethostname()} since "
                      f"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}\n".encode(), 0)
        yield
    finally:
        os.close(fd)
