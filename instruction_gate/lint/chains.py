"""The instruction chain each agent would load per directory, for one revision.

The agents' documented discovery rules live in `instruction_gate.agents.discovery` and work
on a directory tree, so the revision's instruction files (never anything executable) are
written into a private temporary directory and discovery runs there.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import Iterable

from instruction_gate import globs
from instruction_gate.agents.discovery import LoadedFile
from instruction_gate.agents.loading import LOADERS, LoadSettings, names_of
from instruction_gate.lint.imports import imports, loaded
from instruction_gate.lint.tree import Tree, real_path

#: File names an agent loads by itself, wherever they are.
AGENT_FILE_NAMES = names_of("all")
#: Effectively no cap (1 GiB; also a read size): used to see a chain whole before a cap cuts it.
_UNCAPPED = 1 << 30


@dataclass(frozen=True)
class Chain:
    """What one agent loads when started in one directory."""

    agent: str  #: a key of `agents.loading.LOADERS`
    directory: str  #: repository-relative, "" for the root
    files: tuple[LoadedFile, ...]  #: as loaded, root first; bytes_loaded < size when cut
    whole: tuple[LoadedFile, ...]  #: the same chain without any cap
    later: tuple[LoadedFile, ...] = ()  #: loaded only once the agent touches files below `directory`

    @property
    def total_bytes(self) -> int:
        return sum(f.size for f in self.whole)


def instruction_files(tree: Tree, instruction_paths: Iterable[str] = ()) -> list[str]:
    """Files matching the manifest's instruction paths plus every file an agent loads by name."""
    files = tree.files()
    named = [p for p in files if PurePosixPath(p).name in AGENT_FILE_NAMES
             or p.endswith("/.claude/CLAUDE.md") or p == ".claude/CLAUDE.md"
             or (p.endswith(".md") and (p.startswith(".claude/rules/") or "/.claude/rules/" in p))]
    return sorted(set(named) | set(globs.filter_paths(files, instruction_paths)))


def imports_closure(tree: Tree, paths: list[str], settings: LoadSettings = LoadSettings()) -> dict[str, bytes]:
    """Contents of `paths` and of every file the agents' `@imports` load from them, under the
    path the import names and under its real path (they differ through a symlinked directory)."""
    contents = {p: data for p in paths if (data := tree.read(p)) is not None}
    for named, real in loaded(imports(tree, paths, settings)).items():
        if (data := tree.read(real)) is not None:
            contents.setdefault(named, data)
            contents.setdefault(real, data)
    return contents


def chains(tree: Tree, files: list[str], directories: Iterable[str], caps: dict[str, int],
           settings: LoadSettings = LoadSettings(), later: bool = False,
           outside: Iterable[str] = ()) -> list[Chain]:
    """Every known agent's chain for each directory, cut at `caps[agent]` when given (by the
    agent's own budget rule where it has one, else the way Codex cuts). With `later`, also what
    each agent loads once it touches files below the directory. Lint and `explain` share it.

    `outside`: paths of links leading out of the repository. Each becomes a link to a stand-in
    file outside the private copy, so each agent's own rules decide whether it follows it (the
    stand-in's size means nothing; the real target is never read)."""
    contents = imports_closure(tree, files, settings)
    out: list[Chain] = []
    with tempfile.TemporaryDirectory(prefix="ig-lint-") as tmp:
        root = Path(tmp) / "repo"
        stand_in = Path(tmp) / "outside.md"
        stand_in.write_text("(a file outside the repository)\n")
        for path, data in contents.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_bytes(data)
        for path in set(outside) - set(contents):
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).symlink_to(stand_in)
        touchable = sorted({*contents, *outside})
        for directory in sorted(set(directories)):
            (root / directory).mkdir(parents=True, exist_ok=True)
            for agent, loader in LOADERS.items():
                uncapped = replace(settings, codex_budget=_UNCAPPED)
                whole = _once(tree, loader.at_start(root, directory, uncapped))
                if loader.budgeted:
                    capped = replace(settings, codex_budget=caps.get(agent, _UNCAPPED))
                    cut = _once(tree, loader.at_start(root, directory, capped))
                else:
                    cut = _cap(whole, caps.get(agent))
                touched = loader.on_touch(root, directory, touchable, settings) if later else []
                shown = {real_path(f.path, tree.link_target) or f.path for f in whole}
                out.append(Chain(agent, directory, cut, whole, tuple(
                    f for f in _once(tree, touched) if (real_path(f.path, tree.link_target) or f.path) not in shown)))
    return out


def _once(tree: Tree, files: Iterable[LoadedFile]) -> tuple[LoadedFile, ...]:
    """Each file once, however many symlinked paths reach it (the agents open it once)."""
    seen: set[str] = set()
    out = []
    for loaded_file in files:
        real = real_path(loaded_file.path, tree.link_target) or loaded_file.path
        if real not in seen:
            seen.add(real)
            out.append(loaded_file)
    return tuple(out)


def _cap(files: tuple[LoadedFile, ...], cap: int | None) -> tuple[LoadedFile, ...]:
    """Apply a whole-chain byte budget the way Codex does (cut the crossing file, drop later ones)."""
    if cap is None:
        return files
    out, remaining = [], cap
    for file in files:
        if remaining <= 0:
            break
        taken = min(file.size, remaining)
        out.append(LoadedFile(file.path, file.size, taken, truncated=taken < file.size))
        remaining -= taken
    return tuple(out)
