"""The mutant record every operator produces."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Callable, Iterator, Mapping

#: Instruction files of the base revision: repository-relative path -> bytes.
Files = Mapping[str, bytes]


@dataclass(frozen=True)
class Mutant:
    """One deliberately broken candidate."""

    id: str  #: stable and unique within a run, e.g. `delete-rule:AGENTS.md:12`
    operator: str  #: the operator (or `patch`) that made it
    description: str  #: what was done, for the report
    rule: str  #: the instruction removed or altered (what the suite did not notice if the mutant survives)
    changes: dict[str, bytes | None] = field(repr=False)  #: path -> new bytes; None deletes the file
    path: str | None = None  #: where the change is, for the report
    line: int | None = None


#: An operator turns the base instruction files into mutants.
Operator = Callable[[Files], Iterator[Mutant]]


def snippet(text: str, limit: int = 120) -> str:
    """One-line excerpt of an instruction for reports."""
    flat = " ".join(text.split()).lstrip("-*+ ").strip()
    flat = re.sub(r"^\d+[.)]\s+", "", flat)
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def decode(data: bytes) -> str:
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
