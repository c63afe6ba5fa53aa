"""IG009 for bytes that are not UTF-8 text: a UTF-16 file, NUL bytes, invalid UTF-8.

Agents read instruction files as UTF-8. A file saved as UTF-16 (some Windows editors do) reaches
the model as text with a NUL between every letter, and invalid bytes as replacement characters:
the review shows readable rules, the agent gets noise. Either way no per-line finding would say
so, since the decoded text has nothing invisible left in it.
"""

from __future__ import annotations

from typing import Iterator

from instruction_gate.lint.context import LintContext
from instruction_gate.lint.model import Finding
from instruction_gate.untrusted import INSTRUCTION_CAP_BYTES, quote

_UTF16_MARKS = {b"\xff\xfe": "UTF-16 little-endian", b"\xfe\xff": "UTF-16 big-endian"}


def _line_at(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def _problem(data: bytes) -> tuple[str, int, str] | None:
    """(kind, line, what is wrong) for the first way the bytes are not UTF-8 text, or None. The kind
    keys the finding, so a base that already had NULs pairs with a candidate holding more."""
    for mark, name in _UTF16_MARKS.items():
        if data.startswith(mark):
            return "utf-16", 1, (f"is {name} text (byte-order mark {mark.hex(' ').upper()}): agents read UTF-8, so the "
                       "model gets a NUL byte between letters, not the rules a reviewer sees; save it as UTF-8")
    nul = data.find(b"\x00")
    try:
        data.decode("utf-8")
        bad = -1
    except UnicodeDecodeError as error:
        bad = error.start if error.reason != "unexpected end of data" or error.end < len(data) else -1
    if nul >= 0 and (bad < 0 or nul <= bad):
        count = data.count(0)
        return "nul", _line_at(data, nul), (f"holds {count} NUL byte(s), from line {_line_at(data, nul)}: "
                                     "binary, not text, where the model expects instructions")
    if bad >= 0:
        return "invalid-utf-8", _line_at(data, bad), (f"is not valid UTF-8 from line {_line_at(data, bad)} (byte "
                                     f"0x{data[bad]:02X}): the model reads replacement characters there")
    return None


def check(ctx: LintContext) -> Iterator[Finding]:
    for path in sorted(ctx.texts):
        data = (ctx.tree.read(path) or b"")[:INSTRUCTION_CAP_BYTES]
        if found := _problem(data):
            kind, line, what = found
            yield Finding("IG009", path, line, f"`{quote(path)}` {what}.", f"encoding:{kind}")
