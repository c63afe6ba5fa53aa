"""How a command pattern (a Python regex) meets a recorded command.

A command may span lines: a heredoc, a `\\`-continued command, `sh -c` with a newline. A
forbidden command on line 2 must be found as surely as on line 1, so `.` crosses newlines, `^`
and `$` anchor at every line, and the pattern is also tried on the command with its line
continuations joined as the shell joins them (`terraform \\<newline> apply` runs `terraform apply`).
"""

from __future__ import annotations

import re
from functools import lru_cache

_CONTINUATION = re.compile(r"[ \t]*\\\r?\n[ \t]*")


@lru_cache(maxsize=512)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.DOTALL | re.MULTILINE)


def joined(command: str) -> str:
    """The command with `\\`-newline continuations removed and the words around them spaced once."""
    return _CONTINUATION.sub(" ", command)


def command_matches(pattern: str, command: str) -> bool:
    regex = _compiled(pattern)
    return bool(regex.search(command)) or ("\n" in command and bool(regex.search(joined(command))))
