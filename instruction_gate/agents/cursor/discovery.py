"""Which instruction files reach Cursor's agent, from Cursor's documentation (not verified live:
Cursor cannot be run here, so no adapter reports what reached its model).

Documented rules, as modelled:

- Project rules: `.cursor/rules/**/*.mdc` of the project root, and of any subdirectory, whose
  rules are scoped to that folder. Front matter (`agents/scoped_rules.py`) picks the activation:
  `alwaysApply: true` (at start), `globs` (when a matching file is in context), `description`
  only (the model may pull it in: counted as possibly loaded), none (only when a user names it).
- `AGENTS.md` in the project root and in subdirectories: the root's and those on the way to the
  working directory at start, a deeper one once the agent works on files in its folder.
- Legacy `.cursorrules` at the project root: always applied.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

from instruction_gate.agents.discovery import LoadedFile, dirs_root_to_cwd, project_root, rel, resolve, sent_whole
from instruction_gate.agents.scoped_rules import ScopedRule, rules_in
from instruction_gate.untrusted import read_instruction_bytes

#: The legacy single rules file, read at the project root only.
LEGACY_RULES = ".cursorrules"
#: Base names Cursor loads by itself in a directory it considers.
CURSOR_NAMES = ("AGENTS.md", LEGACY_RULES)
RULES_DIR = (".cursor", "rules")
RULE_SUFFIX = ".mdc"


def _whole(root: Path, path: Path) -> LoadedFile | None:
    data = read_instruction_bytes(path)
    return sent_whole(rel(root, path), path, data) if data else None


def folder_rules(root: Path, folder: Path) -> list[ScopedRule]:
    """Each rule file of `folder`'s `.cursor/rules` with its activation; a nested folder's patterns are relative to it."""
    return rules_in(root, folder, RULES_DIR, RULE_SUFFIX, "cursor")


def _always(root: Path, folder: Path) -> list[LoadedFile | None]:
    return [_whole(root, root / rule.path) for rule in folder_rules(root, folder) if rule.activation == "always"]


def _rule_folders(root: Path, below: Path) -> list[Path]:
    """Folders at or below `below` holding `.cursor/rules` (walked without following links)."""
    found = []
    for current, dirs, _ in os.walk(below):
        dirs[:] = sorted(d for d in dirs if d != ".git")
        if os.path.isdir(Path(current).joinpath(*RULES_DIR)):
            found.append(Path(current))
    return found


def cursor_sources(repo_root: Path | str, cwd: Path | str) -> list[LoadedFile]:
    """At start: `.cursorrules`, then per directory from the project root to `cwd` its
    `AGENTS.md` and its always-applied rules."""
    root, here = resolve(repo_root, cwd)
    start = project_root(root, here)
    files: list[LoadedFile | None] = [_whole(root, start / LEGACY_RULES)]
    for directory in dirs_root_to_cwd(start, here):
        files += [_whole(root, directory / "AGENTS.md"), *_always(root, directory)]
    return [f for f in files if f is not None]


def cursor_later(repo_root: Path | str, cwd: Path | str, touched: Iterable[str]) -> list[LoadedFile]:
    """Once the agent works on files below `cwd`: each touched file's folders' `AGENTS.md` and
    always-applied rules, between `cwd` (excluded) and the file."""
    root, here = resolve(repo_root, cwd)
    folders: dict[Path, None] = {}
    for path in touched:
        target = Path(os.path.normpath(root / path))
        if target.is_relative_to(here) and target.parent != here:
            folders.update(dict.fromkeys(dirs_root_to_cwd(here, target.parent)[1:]))
    files: list[LoadedFile | None] = []
    for folder in sorted(folders):
        files += [_whole(root, folder / "AGENTS.md"), *_always(root, folder)]
    return list({f.path: f for f in files if f is not None}.values())


def cursor_scoped(repo_root: Path | str, cwd: Path | str) -> list[ScopedRule]:
    """Rules applied by file or chosen by the model, of the folders from the project root to `cwd`
    and below it (a nested folder's rules apply to its own files only)."""
    root, here = resolve(repo_root, cwd)
    folders = [*dirs_root_to_cwd(project_root(root, here), here)[:-1], *_rule_folders(root, here)]
    return [rule for folder in folders for rule in folder_rules(root, folder) if rule.activation in ("files", "model")]
