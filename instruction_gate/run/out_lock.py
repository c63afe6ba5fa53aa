"""One evaluation per output directory: an advisory lock on `OUT/.instruction-gate.lock`.

Two runners on one `--out` would execute every run twice and, with different candidates, mix
their records. The lock is a `flock` on a file in the directory: the kernel releases it when
its holder exits, however it exits, so a lock left by a dead process never blocks anyone (what
the file says about its last holder is only read to name a live one). A holder that finishes
removes the file, so a directory holds only what the command wrote.
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
    created = not out.exists()
    fd = _acquire(out, flag)
    try:
        yield
    finally:
        # Removed while still held, so whoever opens the path next makes a new file and a new lock;
        # `_acquire` retries when it locked a file already unlinked this way.
        try:
            os.unlink(out / LOCK_NAME)
        except OSError:
            pass
        os.close(fd)
        if created:
            try:
                out.rmdir()  # made here and nothing was written: leave no empty directory behind
            except OSError:
                pass


def _acquire(out: Path, flag: str) -> int:
    for _ in range(_ATTEMPTS):
        try:
            out.mkdir(parents=True, exist_ok=True)
            fd = os.open(out / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        except OSError as exc:
            raise ConfigError(f"{flag} {out}: cannot create the output directory's lock ({exc.strerror})") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 512, 0).decode("utf-8", errors="replace").strip() or "another process"
            os.close(fd)
            raise ConfigError(f"{flag} {out}: in use by another evaluation ({holder}); wait for it to finish "
                              "or use another directory") from None
        if _still_linked(fd, out / LOCK_NAME):
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"pid {os.getpid()} on {socket.gethostname()} since "
                          f"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}\n".encode(), 0)
            return fd
        os.close(fd)  # the previous holder removed it between our open and our lock: try the new file
    raise ConfigError(f"{flag} {out}: the output directory's lock keeps changing hands; is another evaluation "
                      "starting on it in a loop?")


#: Opens retried when the lock file was removed under us; more than a couple means a busy loop elsewhere.
_ATTEMPTS = 20


def _still_linked(fd: int, path: Path) -> bool:
    try:
        held, current = os.fstat(fd), os.stat(path, follow_symlinks=False)
    except OSError:
        return False
    return (held.st_dev, held.st_ino) == (current.st_dev, current.st_ino)
