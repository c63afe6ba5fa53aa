"""Which memory files Claude Code loads: CLAUDE.md per directory, rules, `@path` imports."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Iterable

from instruction_gate.agents.discovery import (IMPORT_SCAN_BYTES, LoadedFile, dirs_root_to_cwd, file_size,
                                               read_prefix, rel, resolve)
from instruction_gate.untrusted import is_path_text

#: Files Claude Code loads from each directory it considers, in load order.
CLAUDE_NAMES = ("CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md")
#: How many `@path` import hops Claude Code follows from a memory file (2.1.3xx: 4).
CLAUDE_IMPORT_HOPS = 4
#: Upper bound on what is read of one file to find its imports (memory files are small).

_FENCED_BLOCK = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.MULTILINE | re.DOTALL)
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
_IMPORT = re.compile(r"(?:^|(?<=\s))@((?:[^\s\\]|\\ )+)")


def claude_imports(text: str) -> list[str]:
    """`@path` imports in a memory file, ignoring code blocks and code spans.

    Verbatim: Claude Code takes everything up to the next space as the path, so `@AGENTS.md.`
    names a file `AGENTS.md.` (which does not exist) and loads nothing.
    """
    prose = _CODE_SPAN.sub(" ", _FENCED_BLOCK.sub(" ", text))
    return [m.group(1).replace("\\ ", " ") for m in _IMPORT.finditer(prose)]


def _import_target(repo_root: Path, scope: Path, importer: Path, ref: str) -> Path | None:
    """The file an import loads, or None: home, missing, or outside `scope` (in headless
    mode Claude Code expands only imports that resolve inside its working directory).
    A relative import starts from where the importer really is: a memory file linked from
    elsewhere imports beside its target, not beside the link (checked against the live CLI)."""
    if ref.startswith("~") or not is_path_text(ref):
        return None  # the agent's home is never part of the evaluated instructions
    target = Path(os.path.normpath(Path(os.path.realpath(importer)).parent / ref))
    real = Path(os.path.realpath(target))
    if not real.is_relative_to(repo_root) or not real.is_file():
        return None
    return target if target.is_relative_to(scope) else None


def claude_rules(directory: Path) -> list[Path]:
    """`.claude/rules/**/*.md` of one directory, loaded at start unless the rule's front matter
    names `paths:` (those load only when the agent touches a matching file). Depth first in
    directory order, as the CLI walks them; symlinked folders are not followed."""
    found: list[Path] = []

    def walk(folder: Path) -> None:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            return
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                walk(Path(entry.path))
            elif entry.name.endswith(".md") and entry.is_file() and not _scoped_rule(Path(entry.path)):
                found.append(Path(entry.path))

    walk(directory / ".claude" / "rules")
    return found


_FRONT_MATTER = re.compile(rb"\A---\r?\n(.*?)\r?\n---\r?\n", re.DOTALL)


def _scoped_rule(path: Path) -> bool:
    """A rule whose YAML front matter has a `paths` key."""
    match = _FRONT_MATTER.match(read_prefix(path, 64 * 1024) or b"")
    return bool(match and re.search(rb"^paths\s*:", match.group(1), re.MULTILINE))


def claude_sources(repo_root: Path | str, cwd: Path | str, touched_paths: Iterable[str | Path] = (),
                   max_import_hops: int = CLAUDE_IMPORT_HOPS, above_root: bool = False) -> list[LoadedFile]:
    """The memory files Claude Code (headless, `-p`) loads, in load order, each file once.

    At start, per directory from the repository root down to `cwd`: CLAUDE.md,
    .claude/CLAUDE.md, the unscoped `.claude/rules/**/*.md` (`claude_rules`), CLAUDE.local.md.
    Later: CLAUDE.md, .claude/CLAUDE.md and CLAUDE.local.md in subdirectories below `cwd`
    containing a file the agent read or edited (`touched_paths`, absolute or relative to
    the repository root). Each loaded file's `@path` imports follow right after it, up to
    `max_import_hops` hops, when they resolve inside `cwd`. Claude Code loads files whole,
    also one whose path is a link out of the repository (its imports still must resolve inside).

    `above_root`: first the same files in every directory above the repository, from `/` down,
    as the CLI loads them; named relative to the root (`../CLAUDE.md`). Only for a real run:
    a copy of the repository in a temporary directory has the host's directories above it.
    """
    root, here = resolve(repo_root, cwd)
    dirs = [*(reversed(root.parents) if above_root else ()), *dirs_root_to_cwd(root, here)]
    start = len(dirs)
    for touched in touched_paths:
        target = Path(os.path.normpath(root / touched))
        if target.is_relative_to(here) and target != here:
            for directory in dirs_root_to_cwd(here, target.parent)[1:]:
                if directory not in dirs:
                    dirs.append(directory)
    loaded: dict[Path, LoadedFile] = {}

    def load(path: Path, hops_left: int) -> None:
        if path in loaded:
            return
        # A memory file linked out of the repository is loaded all the same (the live CLI sends
        # it): reported under its repository path, sized by what was read, past the scan cap by stat.
        data = read_prefix(path, IMPORT_SCAN_BYTES)
        if data is None:
            return
        size = len(data) if len(data) < IMPORT_SCAN_BYTES else max(len(data), file_size(path))
        name = rel(root, path) if path.is_relative_to(root) else Path(os.path.relpath(path, root)).as_posix()
        loaded[path] = LoadedFile(name, size, size)
        if hops_left <= 0:
            return
        for ref in claude_imports(data.decode("utf-8", errors="replace")):
            target = _import_target(root, here, path, ref)
            if target is not None:
                load(target, hops_left - 1)

    for index, directory in enumerate(dirs):
        load(directory / "CLAUDE.md", max_import_hops)
        load(directory / ".claude" / "CLAUDE.md", max_import_hops)
        for rule in claude_rules(directory) if index < start else ():
            load(rule, max_import_hops)
        load(directory / "CLAUDE.local.md", max_import_hops)
    return list(loaded.values())
