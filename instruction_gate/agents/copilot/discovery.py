"""Which instruction files reach the GitHub Copilot CLI (1.0.102), in the order it sends them.

Checked against what the pinned binary sent to a scripted provider
(`tests/live_cli/test_live_copilot.py`). At start, each file whole in the system prompt:

1. `$COPILOT_HOME/copilot-instructions.md` (personal), reported as `$COPILOT_HOME/copilot-instructions.md`.
2. `.github/copilot-instructions.md` of the git root, then of the working directory.
3. `AGENTS.md`, `CLAUDE.md`, `GEMINI.md` of the git root, then of the working directory.
4. The directories between them, nearest to the working directory first, each with the four
   names of 2 and 3.
5. `.github/instructions/**/*.instructions.md` of the git root, then of the working directory
   (not of the directories between), sorted by path, that apply everywhere: no `applyTo`, or
   `applyTo` `*`, `**` or `**/*`. Sent with their front matter. The others are listed in a
   table (pattern, path, description); their text arrives when a tool touches a matching file.

AGENTS.md and CLAUDE.md expand their `@path` imports (`imports.py`): each imported file is
reported right after the file importing it, with its own bytes.

The git root is the nearest directory at or above the working directory holding `.git`.
A file's text is sent as it is on disk: a byte-order mark dropped, nothing trimmed; an empty
file sends an empty block (reported as nothing).

Later, when the `view` tool opens a file, the CLI sends (as a reminder after the tool result)
the names of 2-3 in each directory from the file's up to the git root not sent yet, nearest
first, and the scoped `.instructions.md` files whose `applyTo` matches it; its stream says so
(`system.notification` of kind `instruction_discovered`, `sourcePath` relative to the git
root), which is what the adapter reports (`discovered`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

from instruction_gate.agents.copilot.imports import IMPORTING_NAMES, imported_files
from instruction_gate.agents.discovery import LoadedFile, project_root, sent_whole
from instruction_gate.agents.scoped_rules import read_rule
from instruction_gate.untrusted import read_instruction_bytes

GLOBAL_INSTRUCTIONS = "$COPILOT_HOME/copilot-instructions.md"
COPILOT_FILE = ".github/copilot-instructions.md"
AGENT_NAMES = ("AGENTS.md", "CLAUDE.md", "GEMINI.md")
#: Every name the CLI loads from a directory, in its order.
DIRECTORY_NAMES = (COPILOT_FILE, *AGENT_NAMES)
SCOPED_DIR = ".github/instructions"
SCOPED_SUFFIX = ".instructions.md"
#: `applyTo` values the CLI treats as "everywhere": such files are sent at start.
EVERYWHERE = frozenset({"*", "**", "**/*"})


def _text(path: Path) -> str | None:
    data = read_instruction_bytes(path)
    return None if data is None else data.decode("utf-8", errors="replace").removeprefix("\ufeff")


def _with_imports(project: Path, path: Path, name) -> list[LoadedFile | None]:
    """A file as sent, then the files it imports (AGENTS.md and CLAUDE.md only; `imports.py`)."""
    files = [_loaded(path, name(path))]
    if files[0] is not None and path.name in IMPORTING_NAMES:
        files += [_loaded(p, name(p)) for p in imported_files(project, path, _text)]
    return files


def _loaded(path: Path, name: str | None) -> LoadedFile | None:
    data = read_instruction_bytes(path)
    if name is None or not data:
        return None  # an empty block reaches the model: no instruction text
    return sent_whole(name, path, data, drop_bom=True)


def applies_everywhere(data: bytes) -> bool:
    """Whether a `.instructions.md` file is sent at start: no `applyTo` (the CLI reads front matter
    that is no YAML line by line, as `read_rule` does), or only patterns matching every path."""
    rule = read_rule(SCOPED_DIR + "/x" + SCOPED_SUFFIX, data.decode("utf-8", errors="replace").removeprefix("\ufeff"),
                     "copilot")
    return all(p.strip() in EVERYWHERE for p in rule.patterns)


def start_dirs(root: Path, here: Path) -> list[Path]:
    """The directories whose files load at start: git root, cwd, then the ones between (nearest first)."""
    between = [d for d in here.parents if d.is_relative_to(root) and d != root]
    return list(dict.fromkeys([root, here, *between]))


def scoped_files(folder: Path) -> list[Path]:
    """`folder/.github/instructions/**/*.instructions.md`, sorted by path."""
    base = folder / SCOPED_DIR
    found = []
    for current, dirs, files in os.walk(base):
        dirs.sort()
        found += [Path(current) / f for f in sorted(files) if f.endswith(SCOPED_SUFFIX)]
    return found


def copilot_start(repo_root: Path | str, cwd: Path | str, global_dir: Path | str | None = None) -> list[LoadedFile]:
    """The files the CLI sends at start for a run in `cwd` (absolute, or relative to the root)."""
    real_root = Path(os.path.realpath(repo_root))
    here = Path(os.path.realpath(real_root / cwd))
    root = project_root(real_root, here) if here.is_relative_to(real_root) else here
    name = _namer(real_root)
    files: list[LoadedFile | None] = []
    if global_dir is not None:
        files.append(_loaded(Path(global_dir) / "copilot-instructions.md", GLOBAL_INSTRUCTIONS))
    dirs = start_dirs(root, here)
    ends = dirs[:2]
    files += [_loaded(d / COPILOT_FILE, name(d / COPILOT_FILE)) for d in ends]
    files += [f for d in ends for n in AGENT_NAMES for f in _with_imports(root, d / n, name)]
    files += [f for d in dirs[2:] for n in DIRECTORY_NAMES for f in _with_imports(root, d / n, name)]
    for folder in ends:
        for path in scoped_files(folder):
            data = read_instruction_bytes(path)
            if data and applies_everywhere(data):
                files.append(_loaded(path, name(path)))
    return _unique(files)


def copilot_sources(repo_root: Path | str, cwd: Path | str, *, global_dir: Path | str | None = None,
                    discovered: Iterable[str] = ()) -> list[LoadedFile]:
    """Start-up files, then those the stream says were discovered later (`sourcePath`s)."""
    real_root = Path(os.path.realpath(repo_root))
    here = Path(os.path.realpath(real_root / cwd))
    root = project_root(real_root, here) if here.is_relative_to(real_root) else here
    name = _namer(real_root)
    later = []
    for source in discovered:
        # Relative to the git root; a working directory's own scoped file, to the working directory.
        path = next((b / source for b in (root, here) if (b / source).is_file()), None)
        if path is not None and name(path) is not None:
            later += _with_imports(root, path, name)
    return _unique([*copilot_start(repo_root, cwd, global_dir), *later])


def lazy_files(repo_root: Path | str, cwd: Path | str, viewed: Iterable[str]) -> list[Path]:
    """Files of `DIRECTORY_NAMES` the CLI adds when `viewed` (repository-relative) files are opened:
    per file, its directory up to the git root (excluded, and never the start-up directories)."""
    real_root = Path(os.path.realpath(repo_root))
    here = Path(os.path.realpath(real_root / cwd))
    root = project_root(real_root, here)
    at_start = set(start_dirs(root, here))
    found: list[Path] = []
    for path in viewed:
        directory = Path(os.path.normpath(real_root / path)).parent
        while directory.is_relative_to(root) and directory != root:
            if directory not in at_start:
                found += [directory / n for n in DIRECTORY_NAMES
                          if (directory / n).is_file() and directory / n not in found]
            directory = directory.parent
    return found


def _namer(root: Path):
    def name(path: Path) -> str | None:
        normal = Path(os.path.normpath(path))
        if normal.is_relative_to(root):
            return normal.relative_to(root).as_posix()
        real = Path(os.path.realpath(path))
        return real.relative_to(root).as_posix() if real.is_relative_to(root) else None
    return name


def _unique(files: Iterable[LoadedFile | None]) -> list[LoadedFile]:
    unique: dict[str, LoadedFile] = {}
    for loaded in files:
        if loaded is not None and loaded.path not in unique:
            unique[loaded.path] = loaded
    return list(unique.values())


def copilot_later(repo_root: Path | str, cwd: Path | str, opened: Iterable[str]) -> list[LoadedFile]:
    """The files of `lazy_files` as loaded, for the tools that reason without running the CLI (the
    scoped `.instructions.md` files are judged by their `applyTo`, apart)."""
    real_root = Path(os.path.realpath(repo_root))
    name = _namer(real_root)
    here = Path(os.path.realpath(real_root / cwd))
    project = project_root(real_root, here)
    return _unique(f for p in lazy_files(repo_root, cwd, opened) for f in _with_imports(project, p, name))
