"""Which instruction files Codex sends: the global file, then the AGENTS.md chain under one budget."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from instruction_gate.agents.discovery import (IMPORT_SCAN_BYTES, LoadedFile, dirs_root_to_cwd, project_root,
                                               read_prefix, rel, resolve)

#: Codex's default `project_doc_max_bytes`: one budget shared by the whole chain.
CODEX_BUDGET_BYTES = 32 * 1024
#: Names Codex looks for in each directory, in order, before any fallback names.
CODEX_NAMES = ("AGENTS.override.md", "AGENTS.md")


def _utf8_prefix(data: bytes, cut: bool) -> bytes:
    """`data` without a character the budget cut in half (Codex sends U+FFFD for it)."""
    if not cut:
        return data
    for back in range(1, min(4, len(data)) + 1):
        lead = data[-back]
        if lead < 0x80:
            return data  # ends in ASCII: nothing split
        if lead >= 0xC0:  # the lead byte of the last character
            need = 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
            return data if back >= need else data[:-back]
    return data


def codex_global_doc(codex_home: Path | str | None) -> LoadedFile | None:
    """`$CODEX_HOME/AGENTS.override.md` or `AGENTS.md`: sent first, in both arms, outside the
    project budget. Reported as `$CODEX_HOME/<name>` since it is not a repository file."""
    if not codex_home:
        return None
    for name in CODEX_NAMES:
        data = read_prefix(Path(codex_home) / name, IMPORT_SCAN_BYTES)
        if data is not None and data.decode("utf-8", errors="replace").strip():
            # Codex trims the global file before sending it.
            return LoadedFile(f"$CODEX_HOME/{name}", len(data), len(data.strip()))
    return None


def codex_chain(repo_root: Path | str, cwd: Path | str, budget: int = CODEX_BUDGET_BYTES,
                fallback_names: Iterable[str] = (), codex_home: Path | str | None = None) -> list[LoadedFile]:
    """The instruction files Codex puts in front of the agent, in the order it sends them.

    First the global `$CODEX_HOME` file, if `codex_home` is given (not charged to the
    budget). Then per directory from the project root (`codex_project_root`) down to `cwd`
    the first name of AGENTS.override.md, AGENTS.md, then `fallback_names` that is a regular
    file (symlinks followed: a dangling link or a directory of that name is passed over; an
    empty pick shadows the others and is skipped). Picked files are concatenated until
    `budget` bytes are spent: the file crossing it is truncated (never inside a character),
    later ones are dropped. Only files of which at least one byte reached the agent are returned.
    """
    root, here = resolve(repo_root, cwd)
    names = list(dict.fromkeys([*CODEX_NAMES, *fallback_names]))
    remaining = budget
    chain: list[LoadedFile] = [doc for doc in [codex_global_doc(codex_home)] if doc]
    for directory in dirs_root_to_cwd(project_root(root, here), here):
        picked = next((directory / n for n in names if (directory / n).is_file()), None)
        if picked is None:
            continue
        if remaining <= 0:
            break
        size = picked.stat().st_size
        data = read_prefix(picked, remaining)
        if data is None or not data.decode("utf-8", errors="replace").strip():
            continue  # Codex skips empty files without spending budget.
        loaded = _utf8_prefix(data, cut=size > len(data))
        chain.append(LoadedFile(rel(root, picked), size, len(loaded), truncated=size > len(data)))
        remaining -= len(data)
    return chain
