"""What a candidate controls, handled as data: instruction bytes, paths it names, strings in messages.

An instruction file may hold any bytes (NUL, invalid UTF-8, a binary blob) and name any path
in an `@import`. None of that may crash the harness: a crash would turn every candidate run into
an infrastructure failure and let a candidate get its own runs excluded. So reading never raises,
never blocks (FIFOs and devices are not read) and stops at a cap.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

#: The most of one instruction file anything here reads. Agents load far less (Codex: 32 KiB
#: per chain); the cap only bounds memory and time for a hostile multi-gigabyte file.
INSTRUCTION_CAP_BYTES = 1024 * 1024

_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]")


def read_instruction_bytes(path: Path | str, limit: int = INSTRUCTION_CAP_BYTES) -> bytes | None:
    """Up to `limit` bytes of a regular file (symlinks followed); None when it cannot be read.

    None covers: missing, not a regular file (FIFO, device, directory), unreadable, and a path
    the operating system cannot represent (an embedded NUL raises ValueError in `os.stat`).
    """
    try:
        status = os.stat(path)
        if not stat.S_ISREG(status.st_mode):
            return None
        with open(path, "rb") as handle:
            # A read allocates its whole limit first: a budget of 10**22 bytes (a user's setting)
            # must cost what the file holds. Not less than the cap, for files that report size 0.
            return handle.read(min(max(limit, 0), max(status.st_size, INSTRUCTION_CAP_BYTES)))
    except (OSError, ValueError):
        return None


def decode_instruction(data: bytes) -> str:
    """Instruction bytes as text: invalid UTF-8 and NUL become U+FFFD, nothing raises."""
    return data.decode("utf-8", errors="replace").replace("\x00", "\ufffd")


def is_path_text(ref: str) -> bool:
    """Whether an untrusted string can name a file at all: no NUL or other control character."""
    return bool(ref) and not _CONTROL.search(ref)


def quote(value: object, limit: int = 200) -> str:
    """An untrusted string for a one-line message: control characters escaped, length capped.

    A newline in a path would otherwise split an `::error` line or a log line in two.
    """
    text = str(value)
    escaped = _CONTROL.sub(lambda m: repr(m.group())[1:-1], text)
    return escaped if len(escaped) <= limit else escaped[:limit] + f"... ({len(text)} characters)"
