"""Output paths, checked before anything is written: never over an input, never into a file.

One mechanism for every command that writes: an output that would replace one of the
command's own inputs (`compare --summary OUT/index.md` writes its JSON to OUT/index.json) is
refused, as are outputs that collide with each other, directories given as files, files given
as directories, and places the user cannot write. Exit 2, each problem named.

A file output's directory must already exist: a mistyped `--sarif /nonexistent/dir/x.sarif`
is refused rather than answered with a new directory tree. Only directories a command documents
as its own are created, with their parents: `--out`, `--output-dir`, `--temp-dir`, and the
directory of `compare --summary` (a bundle of summary.md, summary.json and the chart). No output
is inside a `.git` directory, and no output directory is a working tree's root.
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


def _repository_problem(flag: str, path: Path, want_dir: bool) -> str | None:
    """Git's own files and a working tree's root are never outputs: `--out .git` would write runs
    among the objects and refs, and `--out .` at the root spreads run directories named after
    task ids (`src/`, `docs/`) over the project's own. A subdirectory of the tree is fine."""
    real = _real(path)
    if ".git" in real.parts:
        return f"{flag} {path}: is inside a .git directory ({real}); write outputs outside git's own files"
    if want_dir and os.path.lexists(real / ".git"):
        return (f"{flag} {path}: is the root of a git working tree ({real}); give a directory of its own, "
                f"e.g. {path / 'instruction-gate-out'}")
    return None


def _writable_problem(flag: str, path: Path, want_dir: bool, created: bool = False) -> str | None:
    repository = _repository_problem(flag, path, want_dir)
    if repository:
        return repository
    if want_dir and path.exists() and not path.is_dir():
        return f"{flag} {path}: exists and is not a directory"
    if not want_dir and path.is_dir():
        return f"{flag} {path}: is a directory, expected a file path"
    if not want_dir and path.exists() and not path.is_file():
        return f"{flag} {path}: exists and is not a regular file"
    if not want_dir and not created and not os.path.lexists(path.parent):
        return f"{flag} {path}: the directory {path.parent} does not exist (create it first)"
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
    created = {_real(path) for path in (dirs or {}).values()}  # output directories the command makes
    for flag, path in files.items():
        real = _real(path)
        if real in sources:
            problems.append(f"{flag} {path}: would overwrite the input {sources[real]}")
        elif real in claimed:
            problems.append(f"{flag} {path}: the same file as {claimed[real]}")
        claimed.setdefault(real, flag)
        problem = _writable_problem(flag, path, want_dir=False, created=_real(path.parent) in created)
        if problem:
            problems.append(problem)
    for flag, path in (dirs or {}).items():
        problem = _writable_problem(flag, path, want_dir=True)
        if problem:
            problems.append(problem)
    if problems:
        raise ConfigError("output paths refused (nothing was written)", problems)
