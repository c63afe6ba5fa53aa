"""Output paths, checked before anything is written: never over an input, never into a file.

One mechanism for every command that writes: an output that would replace one of the
command's own inputs (`compare --summary OUT/index.md` writes its JSON to OUT/index.json) is
refused, as are outputs that collide with each other, directories given as files, files given
as directories, and places the user cannot write. Exit 2, each problem named.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

from instruction_gate.errors import ConfigError


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))


def _nearest_existing(path: Path) -> Path:
    current = _real(path)
    while not os.path.lexists(current) and current != current.parent:
        current = current.parent
    return current


def _writable_problem(flag: str, path: Path, want_dir: bool) -> str | None:
    if want_dir and path.exists() and not path.is_dir():
        return f"{flag} {path}: exists and is not a directory"
    if not want_dir and path.is_dir():
        return f"{flag} {path}: is a directory, expected a file path"
    if not want_dir and path.exists() and not path.is_file():
        return f"{flag} {path}: exists and is not a regular file"
    anchor = _nearest_existing(path if want_dir else path.parent)
    if not anchor.is_dir():
        return f"{flag} {path}: {anchor} is not a directory"
    if not os.access(anchor, os.W_OK | os.X_OK):
        return f"{flag} {path}: {anchor} is not writable"
    return None


def check_outputs(files: dict[str, Path], inputs: Iterable[Path] = (), dirs: dict[str, Path] | None = None) -> None:
    """Refuse output `files` and `dirs` (flag -> path) that cannot be written or would replace an input."""
    problems = []
    sources = {_real(p): p for p in inputs}
    claimed: dict[Path, str] = {}
    for flag, path in files.items():
        real = _real(path)
        if real in sources:
            problems.append(f"{flag} {path}: would overwrite the input {sources[real]}")
        elif real in claimed:
            problems.append(f"{flag} {path}: the same file as {claimed[real]}")
        claimed.setdefault(real, flag)
        problem = _writable_problem(flag, path, want_dir=False)
        if problem:
            problems.append(problem)
    for flag, path in (dirs or {}).items():
        problem = _writable_problem(flag, path, want_dir=True)
        if problem:
            problems.append(problem)
    if problems:
        raise ConfigError("output paths refused (nothing was written)", problems)
