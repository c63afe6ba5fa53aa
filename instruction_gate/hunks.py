"""The candidate's instruction edit as hunks: parsed from `git diff -U0`, recorded in index.json,
read by compare (attribution) and by blame (which re-applies subsets of them).

A hunk is kept as plain data (`as_dict`/`from_dict`) because it travels through index.json,
and the candidate's text in it is untrusted: it is only ever matched and displayed, escaped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
#: Lines kept per side of a hunk in index.json; longer hunks keep their head and say so.
MAX_HUNK_LINES = 40


@dataclass(frozen=True)
class Hunk:
    """One changed region of one instruction file (merge base → candidate)."""

    path: str
    old_start: int
    old_count: int
    new_start: int
    new_count: int
    removed: tuple[str, ...]
    added: tuple[str, ...]

    @property
    def label(self) -> str:
        """`AGENTS.md:14` or `AGENTS.md:20–23` in the candidate's numbering; a pure deletion names
        the base's lines: `AGENTS.md:24–27 (removed)`."""
        start, count = (self.new_start, self.new_count) if self.new_count else (self.old_start, self.old_count)
        where = f"{self.path}:{start}" if count <= 1 else f"{self.path}:{start}–{start + count - 1}"
        return where if self.new_count else f"{where} (removed)"

    def text(self) -> str:
        return "\n".join(self.removed + self.added)

    def as_dict(self) -> dict[str, Any]:
        return {"path": self.path, "old_start": self.old_start, "old_count": self.old_count,
                "new_start": self.new_start, "new_count": self.new_count,
                "removed": list(self.removed[:MAX_HUNK_LINES]), "added": list(self.added[:MAX_HUNK_LINES])}


def from_dict(data: Any) -> Hunk | None:
    """A hunk from index.json, or None when the entry is malformed (then it is simply not used)."""
    if not isinstance(data, dict) or not isinstance(data.get("path"), str):
        return None
    numbers = [data.get(k) for k in ("old_start", "old_count", "new_start", "new_count")]
    if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in numbers):
        return None
    lines = [tuple(str(x) for x in data.get(k) or [] if isinstance(x, str)) for k in ("removed", "added")]
    return Hunk(data["path"], *numbers, *lines)


def parse(diff: str) -> list[Hunk]:
    """Hunks of a unified diff produced with `-U0` (no context lines). Files git shows without
    hunks (binary, mode only) or with quoted names contribute none."""
    found: list[tuple[str, list[int], list[str], list[str]]] = []
    old = new = None
    in_hunks = False
    for line in diff.splitlines():
        if line.startswith("diff --git "):
            old = new = None
            in_hunks = False
        elif not in_hunks and line.startswith("--- "):
            old = line[6:] if line.startswith("--- a/") else None
        elif not in_hunks and line.startswith("+++ "):
            new = line[6:] if line.startswith("+++ b/") else None
        elif (match := _HEADER.match(line)) and (new or old):
            in_hunks = True
            numbers = [int(g) if g is not None else 1 for g in match.groups()]
            found.append((new or old, numbers, [], []))
        elif in_hunks and found and line[:1] in ("-", "+"):
            found[-1][2 if line[0] == "-" else 3].append(line[1:])
    return [Hunk(path, *numbers, tuple(removed), tuple(added)) for path, numbers, removed, added in found]


def apply(original: str, hunks: list[Hunk]) -> str:
    """`original` (the merge base's file) with `hunks` of that file applied, any subset, in order.

    `-U0` hunks never overlap and are numbered against the original, so each applies at its own
    old position; a hunk whose removed lines are not there is refused (ValueError). Added lines
    always end with a newline (a candidate's missing final newline is not reproduced).
    """
    lines = original.splitlines(keepends=True)
    out: list[str] = []
    position = 0  # 0-based index into `lines` of the next original line to copy
    for hunk in sorted(hunks, key=lambda h: h.old_start):
        # -U0: an insertion (no old lines) goes after old line `old_start`; otherwise old lines start there.
        start = hunk.old_start if hunk.old_count == 0 else hunk.old_start - 1
        if start < position or start + hunk.old_count > len(lines):
            raise ValueError(f"{hunk.path}: hunk {hunk.label} does not fit the original file")
        old = [line.rstrip("\r\n") for line in lines[start:start + hunk.old_count]]
        if old != list(hunk.removed):
            raise ValueError(f"{hunk.path}: hunk {hunk.label} does not match the original lines")
        out += lines[position:start]
        out += [line + "\n" for line in hunk.added]
        position = start + hunk.old_count
    return "".join(out + lines[position:])
