"""Each arm's instruction files, written from git objects into a private directory.

The agent workspace of an arm is the base tree minus the hidden suite plus the arm's
instruction files. Of it, only what discovery can reach is written: files an agent loads by
name, `.claude/` files, the manifest's instruction paths, and what their `@imports` and
symlinks name, transitively. `git checkout-index` writes exact bytes and in-tree symlinks.
"""

from __future__ import annotations

import os
import posixpath
import re
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Callable, Iterable

from instruction_gate import git, globs
from instruction_gate.agents.loading import FORMAT_GLOBS, LOADERS
from instruction_gate.suite.contract import SYMLINK_MODE, Contract, Entry, Tree

_PATCH_PATH = re.compile(r"^(?:diff --git a/(\S+) b/(\S+)|--- a/(.+)|\+\+\+ b/(.+))$", re.MULTILINE)


def relevant(tree: Tree, instruction_paths: Iterable[str], names: frozenset[str]) -> set[str]:
    """Paths an agent can load by name, under `.claude/`, where a format lives (`FORMAT_GLOBS`:
    Copilot's and Cursor's rule files), or as the manifest's instruction paths."""
    found = set(globs.filter_paths(tree, (*instruction_paths, *FORMAT_GLOBS)))
    found.update(p for p in tree if PurePosixPath(p).name in names or ".claude" in PurePosixPath(p).parts[:-1])
    return found


def _inside(path: str) -> str | None:
    normal = posixpath.normpath(path)
    return None if normal.startswith("../") or normal in ("..", ".") or normal.startswith("/") else normal


@lru_cache(maxsize=4096)
def _blob(repo: Path, oid: str) -> str:
    return git.out("cat-file", "blob", oid, cwd=repo)


ImportSyntax = Callable[[str], list[str]]


def closure(repo: Path, tree: Tree, start: set[str], syntaxes: Iterable[ImportSyntax] | None = None) -> Tree:
    """`start` plus the files its symlinks point at and its `@imports` name (read in each of
    `syntaxes`: the agents' own, which disagree on code blocks and path characters; by default every
    importing agent's), transitively."""
    syntaxes = tuple(loader.imports.parse for loader in LOADERS.values() if loader.imports) \
        if syntaxes is None else tuple(syntaxes)
    chosen: Tree = {}
    todo = sorted(start)
    while todo:
        path = todo.pop()
        if path in chosen or path not in tree:
            continue
        entry = chosen[path] = tree[path]
        text = _blob(repo, entry.oid)
        if entry.mode == SYMLINK_MODE:
            refs = [posixpath.join(posixpath.dirname(path), text)] if not text.startswith("/") else []
        else:
            named = dict.fromkeys(r for syntax in syntaxes for r in syntax(text))
            refs = [posixpath.join(posixpath.dirname(path), r) for r in named if not r.startswith(("~", "/"))]
        todo.extend(t for r in refs if (t := _inside(r)) is not None)
    return {p: e for p, e in chosen.items() if e.mode != SYMLINK_MODE or _symlink_inside(repo, p, e)}


def _symlink_inside(repo: Path, path: str, entry: Entry) -> bool:
    target = _blob(repo, entry.oid)
    return not target.startswith("/") and _inside(posixpath.join(posixpath.dirname(path), target)) is not None


def materialize(repo: Path, files: Tree, dest: Path) -> None:
    """Write `files` (regular files and in-tree symlinks) from git objects into `dest`."""
    (dest / ".git").mkdir(parents=True, exist_ok=True)  # discovery may look for the repository root
    if not files:
        return
    index = dest / ".git" / "exposure.index"
    env = {"GIT_INDEX_FILE": str(index)}
    info = "".join(f"{e.mode} {e.oid}\t{p}\0" for p, e in sorted(files.items()))
    git.git("update-index", "-z", "--add", "--index-info", cwd=repo, env=env, stdin=info)
    git.git("checkout-index", "-a", "-f", f"--prefix={dest}/", cwd=repo, env=env)
    index.unlink(missing_ok=True)


def patch_paths(patch: str) -> set[str]:
    """Paths a unified diff names (old and new sides)."""
    return {p for m in _PATCH_PATH.finditer(patch) for p in m.groups() if p and p != "/dev/null"}


@dataclass
class ArmTrees:
    """The instruction-relevant files each arm's agent workspace holds, written to disk once."""

    base: Path
    candidate: Path
    files: dict[str, Tree]  #: arm -> what was written


def arm_trees(repo: Path, contract: Contract, hidden: set[str], instruction_paths: Iterable[str],
              names: frozenset[str], dest: Path,
              syntaxes: Iterable[ImportSyntax] | None = None) -> ArmTrees:
    """Each arm's visible tree (base tree − hidden suite + the arm's instruction files), reduced to
    what discovery can reach, materialized under `dest/base` and `dest/candidate`."""
    visible = {p: e for p, e in contract.base_tree.items() if p not in hidden}
    arms: dict[str, Tree] = {}
    for arm, instructions in (("base", contract.base_instructions), ("candidate", contract.candidate_instructions)):
        tree = {p: e for p, e in visible.items() if p not in contract.base_instructions}
        tree.update(instructions)
        arms[arm] = closure(repo, tree, relevant(tree, instruction_paths, names), syntaxes)
        materialize(repo, arms[arm], dest / arm)
    return ArmTrees(dest / "base", dest / "candidate", arms)


def temp_dir(root: Path | None) -> tempfile.TemporaryDirectory:
    """A private directory for the arms' files (removed by the caller's `with`)."""
    if root is not None:
        os.makedirs(root, exist_ok=True)
    return tempfile.TemporaryDirectory(prefix="ig-exposure-", dir=root)
