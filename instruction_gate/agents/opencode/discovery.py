"""Which instruction files reach OpenCode (1.18), in the order it sends them.

Read from the binary's instruction loader and checked against what the pinned binary sent
(`tests/live_cli/test_live_opencode.py`); each file goes whole into the system prompt as
`Instructions from: <absolute path>\\n<content>`:

- Global, first: `$XDG_CONFIG_HOME/opencode/AGENTS.md`, else `~/.claude/CLAUDE.md` (the first
  that exists, even empty, is the only one), reported as `~/.config/opencode/AGENTS.md` and
  `~/.claude/CLAUDE.md`.
- Project: the first of `AGENTS.md`, `CLAUDE.md`, `CONTEXT.md` found anywhere from the cwd up
  to the git work tree's root (the nearest `.git`; without one, up to `/`) is the name used,
  and every file of that name on the way is sent, nearest first. An empty file, or a
  directory of that name, still claims the name and sends nothing; a link to nothing (dangling
  or looping) does not, so the next name is tried. `AGENTS.local.md` is not read.
- On read: when the agent's `read` tool opens a file below the cwd, each directory from the
  file's up to (not including) the cwd adds its first of those names that is not sent yet,
  appended to the tool result. The stream reports these (`metadata.loaded`).
- `OPENCODE_DISABLE_CLAUDE_CODE_PROMPT` (or `…_CLAUDE_CODE`) drops both `CLAUDE.md` fallbacks.
  The config's `instructions` array adds files and globs after the project files: each
  relative pattern matched in every directory from the cwd up to the git root (nearest first),
  `~/` and absolute ones in their own directory, URLs fetched. The adapter's configuration has
  none; project configuration is refused unless trusted (`config_files`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

from instruction_gate import globs
from instruction_gate.agents.discovery import LoadedFile, project_root as codex_project_root, sent_whole
from instruction_gate.untrusted import read_instruction_bytes

GLOBAL_AGENTS = "~/.config/opencode/AGENTS.md"
GLOBAL_CLAUDE = "~/.claude/CLAUDE.md"


def opencode_names(claude_fallback: bool = True) -> tuple[str, ...]:
    """The project file names in the order OpenCode tries them."""
    return ("AGENTS.md", "CLAUDE.md", "CONTEXT.md") if claude_fallback else ("AGENTS.md", "CONTEXT.md")


def _loaded(path: Path, name: str | None) -> LoadedFile | None:
    """A file as sent: whole, or nothing when empty or unreadable."""
    data = read_instruction_bytes(path)
    if name is None or not data:  # an empty file claims its name and sends nothing
        return None
    return sent_whole(name, path, data, drop_bom=True)  # Bun's text(): no BOM, not trimmed


def project_chain(root: Path, here: Path, claude_fallback: bool = True) -> list[Path]:
    """The project files OpenCode sends for a run in `here`, nearest first."""
    stop = codex_project_root(root, here)
    dirs = [here, *[d for d in here.parents if d.is_relative_to(stop)]]
    for name in opencode_names(claude_fallback):
        found = [d / name for d in dirs if os.path.exists(d / name)]  # links followed
        if found:
            return found
    return []


def opencode_sources(repo_root: Path | str, cwd: Path | str, *, global_dir: Path | str | None = None,
                     home: Path | str | None = None, claude_fallback: bool = True,
                     attached: Iterable[str] = (), instructions: Iterable[str] = ()) -> list[LoadedFile]:
    """The instruction files OpenCode sends for a run in `cwd`: global, project, those its
    configuration's `instructions` name, then those `read` attached (`attached`: absolute paths,
    as the stream reports them)."""
    root = Path(os.path.realpath(repo_root))
    here = Path(os.path.realpath(root / cwd))

    def name(path: Path) -> str | None:
        normal = Path(os.path.normpath(path))
        if normal.is_relative_to(root):
            return normal.relative_to(root).as_posix()
        real = Path(os.path.realpath(path))
        return real.relative_to(root).as_posix() if real.is_relative_to(root) else None

    files: list[LoadedFile | None] = []
    globals_ = [(Path(global_dir) / "AGENTS.md", GLOBAL_AGENTS)] if global_dir else []
    if home and claude_fallback:
        globals_.append((Path(home) / ".claude" / "CLAUDE.md", GLOBAL_CLAUDE))
    first = next(((p, n) for p, n in globals_ if os.path.exists(p)), None)
    if first is not None:
        files.append(_loaded(*first))
    files += [_loaded(p, name(p)) for p in project_chain(root, here, claude_fallback)]
    files += [_loaded(p, name(p)) for p in config_files(root, here, instructions, home)]
    files += [_loaded(Path(p), name(Path(p))) for p in attached]
    unique: dict[str, LoadedFile] = {}
    for loaded in files:
        if loaded is not None and loaded.path not in unique:
            unique[loaded.path] = loaded
    return list(unique.values())


def config_files(root: Path, here: Path, patterns: Iterable[str], home: Path | str | None = None) -> list[Path]:
    """The files the configuration's `instructions` patterns match, in the order OpenCode adds them."""
    stop = codex_project_root(root, here) if here.is_relative_to(root) else here
    dirs = [here, *[d for d in here.parents if d.is_relative_to(stop)]]
    found: list[Path] = []
    for pattern in patterns:
        if pattern.startswith(("https://", "http://")):
            continue  # fetched from the network, which a run does not have
        if pattern.startswith("~/"):
            pattern = os.path.join(home, pattern[2:]) if home else ""
        where = [Path(os.path.dirname(pattern))] if os.path.isabs(pattern) else dirs
        pattern = os.path.basename(pattern) if os.path.isabs(pattern) else pattern
        for directory in where if pattern else ():
            found += [p for p in _matches(directory, pattern) if p not in found]
    return found


def _matches(directory: Path, pattern: str) -> list[Path]:
    """Files below `directory` (links to files too, dot files included) that `pattern` matches."""
    spec = globs.compile_globs((pattern,))
    out = []
    for current, dirnames, filenames in os.walk(directory):
        dirnames[:] = sorted(d for d in dirnames if d != ".git")
        base = Path(current).relative_to(directory)
        out += [Path(current) / f for f in sorted(filenames)
                if spec.match_file((base / f).as_posix()) and os.path.isfile(Path(current) / f)]
    return out


def read_attachments(repo_root: Path | str, cwd: Path | str, read_paths: Iterable[str | Path],
                     claude_fallback: bool = True) -> list[str]:
    """Absolute paths of the files OpenCode attaches when the agent reads `read_paths`
    (repository-relative or absolute): per file, from its directory up to the cwd (excluded),
    each directory's first name that exists, nearest first."""
    root = Path(os.path.realpath(repo_root))
    here = Path(os.path.realpath(root / cwd))
    found: list[str] = []
    for read in read_paths:
        directory = Path(os.path.normpath(root / read)).parent
        while directory.is_relative_to(here) and directory != here:
            first = next((directory / n for n in opencode_names(claude_fallback) if (directory / n).exists()), None)
            if first is not None and str(first) not in found:
                found.append(str(first))
            directory = directory.parent
    return found
