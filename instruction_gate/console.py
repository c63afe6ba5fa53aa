"""Every line the tool prints to a terminal or an Actions log goes through here.

Printed lines carry text a candidate or an agent controls: file names, commands, failure
reasons, finding messages. In a GitHub Actions log a line whose first non-blank characters are
`::` is a workflow command (set an output, add a mask, stop command processing), and `##[`
anywhere starts the older form; a terminal obeys ANSI escapes. So each line is printed with
control characters escaped (`\\x1b`), a leading `::` written `%3A:` and `##[` written `#%23[`:
still readable, never obeyed. The tool's own workflow commands (annotations) are built by
`report/github.py` with their data escaped and are the only lines printed without this.
"""

from __future__ import annotations

import re
import sys
from typing import Any, TextIO

#: C0 and C1 controls except tab and newline (a newline ends a line and is handled per line),
#: the Unicode line and paragraph separators, the bidirectional controls (U+202E would show a
#: reviewer `make tset` as `make test`) and the invisible ones (a `conftest.py` followed by a
#: zero-width space reads as `conftest.py`).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u180e\u200b-\u200f\u2028\u2029\u202a-\u202e"
                      r"\u2060-\u2064\u2066-\u2069\ufeff]")
_COMMAND_START = re.compile(r"^(\s*):")


def _escape(match: re.Match[str]) -> str:
    return repr(match.group())[1:-1] if ord(match.group()) < 0x2000 else f"\\u{ord(match.group()):04x}"


def escape_controls(text: str) -> str:
    """Control characters written out as Python would (`\\x1b`, `\\t` kept as a tab)."""
    return _CONTROL.sub(_escape, text)


def safe_line(text: str) -> str:
    """One line as printed: no control character, no workflow command."""
    text = escape_controls(text).replace("##[", "#%23[")
    return _COMMAND_START.sub(r"\1%3A", text) if text.lstrip().startswith("::") else text


def safe(text: str) -> str:
    """Text of several lines, each made safe (a newline inside a value starts a line that is checked too)."""
    return "\n".join(safe_line(line) for line in str(text).split("\n"))


def one_line(text: str) -> str:
    """A message that must stay one line (an error names a value the user typed, which may hold a newline)."""
    return str(text).replace("\r", "\\r").replace("\n", "\\n")


def safe_json(text: str) -> str:
    """JSON text printed for machines: `json.dumps` already escapes controls; `##[` inside a
    string becomes `#\\u0023[`, the same value to a JSON reader."""
    return str(text).replace("##[", "#\\u0023[")


def say(*values: Any, file: TextIO | None = None, sep: str = " ", end: str = "\n", flush: bool = False) -> None:
    """`print`, made safe: the only way the tool's commands print text."""
    print(safe(sep.join(str(v) for v in values)), file=file if file is not None else sys.stdout, end=end, flush=flush)
