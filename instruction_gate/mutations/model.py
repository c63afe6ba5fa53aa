"""The mutant record every operator produces."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, Iterator, Mapping, Union

#: Instruction files of the base revision: repository-relative path -> bytes.
Files = Mapping[str, bytes]


@dataclass(frozen=True)
class TextEdit:
    """Replacements in a file's decoded text, applied only when the mutant's bytes are needed.

    Operators make one mutant per rule; each holding its own copy of the file made generation
    quadratic in memory (a 1 MiB file has thousands of rules). Every edit of a file shares the
    one decoded text."""

    text: str = field(repr=False)
    splices: tuple[tuple[int, int, str], ...]  #: (start, end, replacement), in order, not overlapping

    def apply(self) -> bytes:
        parts, cursor = [], 0
        for start, end, replacement in self.splices:
            parts += [self.text[cursor:start], replacement]
            cursor = end
        parts.append(self.text[cursor:])
        return "".join(parts).encode()


def splice(text: str, start: int, end: int, replacement: str = "") -> TextEdit:
    """`text` with [start, end) replaced."""
    return TextEdit(text, ((start, end, replacement),))


#: A mutant's change to one file: new bytes, an edit of the base text, or None (deleted).
Change = Union[bytes, TextEdit, None]


@dataclass(frozen=True)
class Mutant:
    """One deliberately broken candidate."""

    id: str  #: stable and unique within a run, e.g. `delete-rule:AGENTS.md:12`
    operator: str  #: the operator (or `patch`) that made it
    description: str  #: what was done, for the report
    rule: str  #: the instruction removed or altered (what the suite did not notice if the mutant survives)
    edits: Mapping[str, Change] = field(repr=False)  #: path -> its change
    path: str | None = None  #: where the change is, for the report
    line: int | None = None

    @property
    def changes(self) -> dict[str, bytes | None]:
        """path -> new bytes (None deletes the file), built on each call: keep it only while needed."""
        return {path: change.apply() if isinstance(change, TextEdit) else change
                for path, change in self.edits.items()}


#: An operator turns the base instruction files into mutants.
Operator = Callable[[Files], Iterator[Mutant]]


def snippet(text: str, limit: int = 120) -> str:
    """One-line excerpt of an instruction for reports."""
    flat = " ".join(text.split()).lstrip("-*+ ").strip()
    flat = re.sub(r"^\d+[.)]\s+", "", flat)
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


@lru_cache(maxsize=64)
def decode(data: bytes) -> str:
    """The text of a file, one object for every operator: the readers' caches are keyed by the
    text, and an equal but distinct copy makes every cache lookup compare the whole file."""
    return data.decode("utf-8", errors="replace")


#: A line with its break; only "\n" ends a line, as for git (not "\r", form feeds or U+2028).
_LINE = re.compile(r"[^\n]*\n|[^\n]+\Z")


def unified_diff(files: Files, changes: Mapping[str, bytes | None]) -> str:
    """The change as a unified diff of the instruction files (base -> mutant, `a/` and `b/`
    paths, `/dev/null` for a deleted file), readable with `git apply --stat` or any viewer."""
    out = []
    for path in sorted(changes):
        before, after = files.get(path), changes[path]
        hunks = difflib.unified_diff(_LINE.findall(decode(before or b"")), _LINE.findall(decode(after or b"")),
                                     f"a/{path}" if before is not None else "/dev/null",
                                     f"b/{path}" if after is not None else "/dev/null")
        # A last line without a line break (a cut file) gets git's marker, so lines never run together.
        out += [line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in hunks]
    return "".join(out)
