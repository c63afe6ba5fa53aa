"""Which instruction files reach an agent, by each agent's documented discovery rules.

Pure functions over a checked-out tree; nothing here runs an agent. Paths in the results
are repository-relative POSIX strings, ready for a result event's `instruction_sources`
and `instruction_bytes` (see `result_fields`).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from instruction_gate.untrusted import is_path_text, read_instruction_bytes

#: Codex's default `project_doc_max_bytes`: one budget shared by the whole chain.
CODEX_BUDGET_BYTES = 32 * 1024
#: Names Codex looks for in each directory, in order, before any fallback names.
CODEX_NAMES = ("AGENTS.override.md", "AGENTS.md")
#: Files Claude Code loads from each directory it considers, in load order.
CLAUDE_NAMES = ("CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md")
#: How many `@path` import hops Claude Code follows from a memory file.
CLAUDE_IMPORT_HOPS = 5
#: Upper bound on what is read of one file to find its imports (memory files are small).
_IMPORT_SCAN_BYTES = 1024 * 1024


@dataclass(frozen=True)
class LoadedFile:
    """One instruction file and how much of it reached the agent."""

    path: str  #: repository-relative POSIX path
    size: int  #: bytes on disk
    bytes_loaded: int  #: bytes the agent actually received (<= size)
    truncated: bool = False  #: the budget cut this file short


def result_fields(files: Iterable[LoadedFile]) -> tuple[list[str], dict[str, int]]:
    """`instruction_sources` and `instruction_bytes` for a result event."""
    loaded = [f for f in files if f.bytes_loaded > 0]
    return [f.path for f in loaded], {f.path: f.bytes_loaded for f in loaded}


def _dirs_root_to_cwd(repo_root: Path, cwd: Path) -> list[Path]:
    """Directories from `repo_root` down to `cwd`, both included."""
    try:
        rel = cwd.relative_to(repo_root)
    except ValueError:
        raise ValueError(f"working directory {cwd} is outside the repository {repo_root}") from None
    dirs = [repo_root]
    for part in rel.parts:
        dirs.append(dirs[-1] / part)
    return dirs


def _resolve(repo_root: Path | str, cwd: Path | str) -> tuple[Path, Path]:
    root = Path(os.path.realpath(repo_root))
    # A relative cwd is relative to the repository root; an absolute one replaces it.
    return root, Path(os.path.realpath(root / cwd))


def _rel(repo_root: Path, path: Path) -> str:
    return path.relative_to(repo_root).as_posix()


def _read_prefix(path: Path, limit: int) -> bytes | None:
    """Up to `limit` bytes of a regular file (symlinks followed); None when unreadable."""
    return read_instruction_bytes(path, limit)


def codex_chain(repo_root: Path | str, cwd: Path | str, budget: int = CODEX_BUDGET_BYTES,
                fallback_names: Iterable[str] = ()) -> list[LoadedFile]:
    """The project instruction files Codex puts in front of the agent, root first.

    Per directory from the repository root down to `cwd`, the first existing name of
    AGENTS.override.md, AGENTS.md, then `fallback_names` is picked (one per directory; an
    empty pick shadows the others and is skipped). Picked files are concatenated until
    `budget` bytes are spent: the file crossing it is truncated, later ones are dropped.
    Only files of which at least one byte reached the agent are returned.
    """
    root, here = _resolve(repo_root, cwd)
    names = list(dict.fromkeys([*CODEX_NAMES, *fallback_names]))
    remaining = budget
    chain: list[LoadedFile] = []
    for directory in _dirs_root_to_cwd(root, here):
        picked = next((directory / n for n in names if os.path.lexists(directory / n)), None)
        if picked is None:
            continue
        if remaining <= 0:
            break
        data = _read_prefix(picked, remaining)
        if data is None or not data.decode("utf-8", errors="replace").strip():
            continue  # Codex skips empty files without spending budget.
        size = picked.stat().st_size
        chain.append(LoadedFile(_rel(root, picked), size, len(data), truncated=size > len(data)))
        remaining -= len(data)
    return chain


_FENCED_BLOCK = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.MULTILINE | re.DOTALL)
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
_IMPORT = re.compile(r"(?:^|(?<=\s))@((?:[^\s\\]|\\ )+)")


def claude_imports(text: str) -> list[str]:
    """`@path` imports in a memory file, ignoring code blocks and code spans."""
    prose = _CODE_SPAN.sub(" ", _FENCED_BLOCK.sub(" ", text))
    return [m.group(1).replace("\\ ", " ").rstrip(".,;:)") for m in _IMPORT.finditer(prose)]


def _import_target(repo_root: Path, importer: Path, ref: str) -> Path | None:
    """The repository file an import names, or None (home, outside the repository, missing)."""
    if ref.startswith("~") or not is_path_text(ref):
        return None  # the agent's home is never part of the evaluated instructions
    target = Path(os.path.normpath(importer.parent / ref))
    real = Path(os.path.realpath(target))
    if not real.is_relative_to(repo_root) or not real.is_file():
        return None
    return target if target.is_relative_to(repo_root) else None


def claude_sources(repo_root: Path | str, cwd: Path | str, touched_paths: Iterable[str | Path] = (),
                   max_import_hops: int = CLAUDE_IMPORT_HOPS) -> list[LoadedFile]:
    """The memory files Claude Code loads, in load order, each file once.

    At start: CLAUDE.md, .claude/CLAUDE.md and CLAUDE.local.md in every directory from the
    repository root down to `cwd`. Later: the same names in subdirectories below `cwd`
    containing a file the agent read or edited (`touched_paths`, absolute or relative to
    the repository root). Each loaded file's `@path` imports follow, up to
    `max_import_hops` hops. Claude Code loads memory files whole.
    """
    root, here = _resolve(repo_root, cwd)
    dirs = _dirs_root_to_cwd(root, here)
    for touched in touched_paths:
        target = Path(os.path.normpath(root / touched))
        if target.is_relative_to(here) and target != here:
            for directory in _dirs_root_to_cwd(here, target.parent)[1:]:
                if directory not in dirs:
                    dirs.append(directory)
    loaded: dict[Path, LoadedFile] = {}

    def load(path: Path, hops_left: int) -> None:
        if path in loaded:
            return
        data = _read_prefix(path, _IMPORT_SCAN_BYTES)
        if data is None:
            return
        size = path.stat().st_size
        loaded[path] = LoadedFile(_rel(root, path), size, size)
        if hops_left <= 0:
            return
        for ref in claude_imports(data.decode("utf-8", errors="replace")):
            target = _import_target(root, path, ref)
            if target is not None:
                load(target, hops_left - 1)

    for directory in dirs:
        for name in CLAUDE_NAMES:
            candidate = directory / name
            real = Path(os.path.realpath(candidate))
            if real.is_relative_to(root):
                load(candidate, max_import_hops)
    return list(loaded.values())
