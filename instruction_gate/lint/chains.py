"""The instruction chain each agent would load per directory, for one revision.

The agents' documented discovery rules live in `instruction_gate.agents.discovery` and work
on a directory tree, so the revision's instruction files (never anything executable) are
written into a private temporary directory and discovery runs there.
"""

from __future__ import annotations

import os
import posixpath
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import Iterable

from instruction_gate import globs
from instruction_gate.agents.discovery import LoadedFile
from instruction_gate.agents.loading import (FORMAT_GLOBS, LOADERS, LoadSettings, names_of, scoped_rules,
                                            skills_reached)
from instruction_gate.agents.scoped_rules import ScopedRule
from instruction_gate.lint.imports import imports, loaded
from instruction_gate.lint.tree import DirTree, Tree, real_path, resolve
from instruction_gate.lint.tree import directories as tree_directories

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
    #: path-scoped rules (`applyTo`, `globs`, `paths`, Cursor's description-only rules): loaded only
    #: when the agent touches a matching file or the model asks for one; each with its scope
    scoped: tuple[ScopedRule, ...] = ()
    #: (SKILL.md path, how): skills the agent lists at start, their bodies loaded on invocation
    skills: tuple[tuple[str, str], ...] = ()
    #: Why the agent's CLI stops before any request here (its adapter reports no file), or "".
    failure: str = ""
    #: Workspace configuration its adapter refuses to start next to unless trusted.
    refused_config: tuple[str, ...] = ()

    @property
    def total_bytes(self) -> int:
        return sum(f.size for f in self.whole)


def instruction_files(tree: Tree, instruction_paths: Iterable[str] = ()) -> list[str]:
    """Files matching the manifest's instruction paths plus every file an agent loads by name or
    finds where its format lives (`.claude/rules/`, Copilot's and Cursor's rule files)."""
    files = tree.files()
    named = [p for p in files if PurePosixPath(p).name in AGENT_FILE_NAMES]
    return sorted(set(named) | set(globs.filter_paths(files, (*instruction_paths, *FORMAT_GLOBS))))


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
    each agent loads once it touches files below the directory. Path-scoped rules come with
    every chain, with their scope (`Chain.scoped`). Lint and `explain` share it.

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
        _skeleton(tree, root, files)
        settings = replace(settings, repo_path=_absolute_root(tree))
        touchable = sorted({*contents, *outside})
        for directory in sorted(set(directories)):
            (root / directory).mkdir(parents=True, exist_ok=True)
            for agent, loader in LOADERS.items():
                refused = tuple(loader.refused_config(root, directory)) if loader.refused_config else ()
                failure = loader.start_failure(root, directory, settings) if loader.start_failure else None
                if failure:  # as its adapter reports: no file reached the model
                    out.append(Chain(agent, directory, (), (), failure=failure, refused_config=refused))
                    continue
                uncapped = replace(settings, codex_budget=_UNCAPPED)
                whole = _once(tree, loader.at_start(root, directory, uncapped))
                if loader.budgeted:
                    capped = replace(settings, codex_budget=caps.get(agent, _UNCAPPED))
                    cut = _once(tree, loader.at_start(root, directory, capped))
                else:
                    cut = _cap(whole, caps.get(agent))
                touched = loader.on_touch(root, directory, touchable, settings) if later else []
                shown = {real_path(f.path, tree.link_target) or f.path for f in whole}
                later_files = tuple(f for f in _once(tree, touched)
                                    if (real_path(f.path, tree.link_target) or f.path) not in shown)
                shown |= {f.path for f in later_files}
                scoped = tuple(r for r in scoped_rules(agent, root, directory) if r.path not in shown)
                out.append(Chain(agent, directory, cut, whole, later_files, scoped,
                                 tuple(skills_reached(agent, root, directory)), refused_config=refused))
    return out


#: Project configuration the gemini and opencode adapters look for (they refuse it unless trusted).
_CONFIG_FILES = ("opencode.json", "opencode.jsonc", ".gemini/settings.json", ".gemini/.env")


def _skeleton(tree: Tree, root: Path, files: list[str]) -> None:
    """What decides discovery besides the files' text, made in the private copy as it is in the
    tree, so each agent's own rules meet it: `.git` where a repository starts (a nested one or a
    submodule starts its own chain), instruction files that are links to nothing (dangling or
    looping), folders bearing an instruction file's name, and empty stand-ins for the project
    configuration the adapters refuse (what it says is never copied)."""
    every = tree.files()
    for path in _repository_roots(tree, every):
        (root / path / ".git").mkdir(parents=True, exist_ok=True)
    for path in files:
        target = tree.link_target(path)
        lexical = posixpath.normpath(posixpath.join(posixpath.dirname(path), target or ""))
        if target is None or target.startswith("/") or lexical == ".." or lexical.startswith("../") \
                or tree.read(path) is not None or os.path.lexists(root / path) \
                or resolve(path, tree.link_target).problem == "outside":
            continue  # a readable file (copied), or a link out of the repository (the stand-in's)
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).symlink_to(target)
    for directory in tree_directories(every):
        if directory and posixpath.basename(directory) in AGENT_FILE_NAMES:
            (root / directory).mkdir(parents=True, exist_ok=True)
    for path in every:
        parts = path.split("/")
        if ".opencode" in parts[:-1]:  # OpenCode's project folder (agents, commands, plugins)
            (root / "/".join(parts[:parts.index(".opencode") + 1])).mkdir(parents=True, exist_ok=True)
        if any(path == name or path.endswith("/" + name) for name in _CONFIG_FILES) and not os.path.lexists(root / path):
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_bytes(b"")


def _repository_roots(tree: Tree, every: frozenset[str]) -> list[str]:
    """Directories where a repository starts: a commit's root and its submodules, or in a
    working directory every folder holding `.git` (a nested repository or a submodule)."""
    if isinstance(tree, DirTree):
        return [d for d in sorted(tree_directories(every)) if tree.kind(posixpath.join(d, ".git")) is not None]
    return ["", *sorted(p for p in every if tree.kind(p) == "submodule")]


def _absolute_root(tree: Tree) -> str | None:
    """Where the tree's repository is on this machine (absolute imports may name it)."""
    where = getattr(tree, "root", None) or getattr(tree, "repo", None)
    return str(where) if where is not None else None


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
