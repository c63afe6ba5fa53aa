"""Per-task exposure: the instruction bytes a task's agent can load, per arm, from git objects.

Nothing runs an agent. Each arm's instruction-relevant files (files an agent loads by name,
`.claude/` files, the manifest's instruction paths, and whatever their `@imports` and symlinks
reach) are written from git objects into a private directory with `git checkout-index`, and
the agents' own discovery rules (`agents/discovery.py`, shared with the adapters, the
reference agent and the lint) say what reaches the agent started in the task's `cwd`:

* eagerly: the Codex chain (cut at its byte budget) and Claude's start-up memory files with
  their imports;
* lazily: every instruction file below `cwd`, whole. Claude Code loads a subdirectory's
  memory files when it reads a file there; Codex's system prompt tells the model to obey every
  AGENTS.md whose directory holds a file it edits. Both are taken as reachable, conservatively.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import re
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Iterable

from instruction_gate import git, globs
from instruction_gate.agents import discovery
from instruction_gate.suite.contract import SYMLINK_MODE, Contract, Entry, Tree

#: Discovery modes: which agents' rules a task's exposure follows ("both": either may load it).
MODES = ("codex", "claude", "both")
#: A budget larger than any instruction file: lazily read files are read whole.
_WHOLE = 1 << 30
_PATCH_PATH = re.compile(r"^(?:diff --git a/(\S+) b/(\S+)|--- a/(.+)|\+\+\+ b/(.+))$", re.MULTILINE)


@dataclass(frozen=True)
class Discovery:
    """Which discovery rules the evaluated agent follows, and the options that shape them."""

    mode: str = "both"  #: codex | claude | both
    codex_budget: int = discovery.CODEX_BUDGET_BYTES
    fallback_names: tuple[str, ...] = ()

    @property
    def agents(self) -> tuple[str, ...]:
        return ("codex", "claude") if self.mode == "both" else (self.mode,)

    @property
    def names(self) -> frozenset[str]:
        """Base names an agent of this mode picks up by itself in any directory."""
        return frozenset({*discovery.CODEX_NAMES, *self.fallback_names,
                          *(PurePosixPath(n).name for n in discovery.CLAUDE_NAMES)})


@dataclass(frozen=True)
class Reach:
    """How much of one file can reach the agent: a digest of the eager bytes and of the whole file."""

    eager: str | None  #: sha256 of the bytes loaded at start (a budget may cut them), None when not eager
    lazy: str | None  #: sha256 of the whole file when reachable lazily (below cwd), else None
    eager_bytes: int = 0  #: how many bytes were loaded at start


Exposure = dict[str, Reach]  #: repository path -> what of it can reach the agent


def relevant(tree: Tree, instruction_paths: Iterable[str], names: frozenset[str]) -> set[str]:
    """Paths an agent can load by name, under `.claude/`, or as the manifest's instruction paths."""
    found = set(globs.filter_paths(tree, tuple(instruction_paths)))
    found.update(p for p in tree if PurePosixPath(p).name in names or ".claude" in PurePosixPath(p).parts[:-1])
    return found


def _inside(path: str) -> str | None:
    normal = posixpath.normpath(path)
    return None if normal.startswith("../") or normal in ("..", ".") or normal.startswith("/") else normal


@lru_cache(maxsize=4096)
def _blob(repo: Path, oid: str) -> str:
    return git.out("cat-file", "blob", oid, cwd=repo)


def closure(repo: Path, tree: Tree, start: set[str]) -> Tree:
    """`start` plus the files its symlinks point at and its `@imports` name, transitively (within `tree`)."""
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
            refs = [posixpath.join(posixpath.dirname(path), r) for r in discovery.claude_imports(text)
                    if not r.startswith(("~", "/"))]
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


def _digest(path: Path, limit: int | None = None) -> str:
    with path.open("rb") as handle:
        return hashlib.sha256(handle.read(limit) if limit is not None else handle.read()).hexdigest()


def reachable(root: Path, cwd: str, rules: Discovery) -> Exposure:
    """What of each instruction file under `root` can reach an agent started in `cwd`."""
    cwd = "" if cwd in (".", "") else cwd.strip("/")
    here = root / cwd
    if not here.is_dir():
        here.mkdir(parents=True)  # a cwd without instruction files: the chain above it still counts
    eager: dict[str, int] = {}  # path -> most bytes any of the agents loads at start
    lazy: set[str] = set()
    for agent in rules.agents:
        if agent == "codex":
            for f in discovery.codex_chain(root, cwd or ".", rules.codex_budget, rules.fallback_names):
                eager[f.path] = max(eager.get(f.path, 0), f.bytes_loaded)
            for directory in _subdirectories(here):
                lazy.update(f.path for f in discovery.codex_chain(root, directory, _WHOLE, rules.fallback_names)
                            if _below(f.path, cwd))
        else:
            for f in discovery.claude_sources(root, cwd or "."):
                eager[f.path] = max(eager.get(f.path, 0), f.bytes_loaded)
            below = [p.relative_to(root).as_posix() for p in here.rglob("*") if p.is_file() or p.is_symlink()]
            # Files loaded at start come back here too (whole); harmless, both arms are read alike.
            lazy.update(f.path for f in discovery.claude_sources(root, cwd or ".", below) if f.path not in eager
                        or _below(f.path, cwd) or eager[f.path] < f.size)
    return {p: Reach(_digest(root / p, eager[p]) if p in eager else None, _digest(root / p) if p in lazy else None,
                     eager.get(p, 0)) for p in sorted({*eager, *lazy})}


def _subdirectories(here: Path) -> list[Path]:
    return sorted(p for p in here.rglob("*") if p.is_dir() and ".git" not in p.parts)


def _below(path: str, cwd: str) -> bool:
    directory = posixpath.dirname(path)
    return directory != cwd and (cwd == "" or directory.startswith(cwd + "/"))


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
              rules: Discovery, dest: Path) -> ArmTrees:
    """Each arm's visible tree (base tree − hidden suite + the arm's instruction files), reduced to
    what discovery can reach, materialized under `dest/base` and `dest/candidate`."""
    visible = {p: e for p, e in contract.base_tree.items() if p not in hidden}
    arms: dict[str, Tree] = {}
    for arm, instructions in (("base", contract.base_instructions), ("candidate", contract.candidate_instructions)):
        tree = {p: e for p, e in visible.items() if p not in contract.base_instructions}
        tree.update(instructions)
        arms[arm] = closure(repo, tree, relevant(tree, instruction_paths, rules.names))
        materialize(repo, arms[arm], dest / arm)
    return ArmTrees(dest / "base", dest / "candidate", arms)


def temp_dir(root: Path | None) -> tempfile.TemporaryDirectory:
    """A private directory for the arms' files (removed by the caller's `with`)."""
    if root is not None:
        os.makedirs(root, exist_ok=True)
    return tempfile.TemporaryDirectory(prefix="ig-exposure-", dir=root)
