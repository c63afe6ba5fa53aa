"""Read-only views of one revision: a commit's git objects or a working directory.

A commit is never checked out: paths come from `git ls-tree`, contents from `git cat-file`.
"""

from __future__ import annotations

import os
import posixpath
import stat
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path, PurePosixPath
from typing import Iterable, Protocol

from instruction_gate import git
from instruction_gate.errors import ConfigError

#: Directories never walked in working-directory mode (large, generated or private).
_SKIPPED_DIRS = {".git", ".venv", "node_modules", "__pycache__", ".tox", ".nox"}


class Tree(Protocol):
    """One revision of a repository, read-only."""

    label: str  #: shown in reports, e.g. "base 1a2b3c4" or "working directory"

    def files(self) -> frozenset[str]:
        """Every file path (regular files and symlinks), repository-relative POSIX."""

    def read(self, path: str) -> bytes | None:
        """A regular file's bytes, or None when absent or not a regular file. A symlink is read
        through when it resolves to a regular file inside the repository (agents follow it);
        never when it leads outside."""

    def link_target(self, path: str) -> str | None:
        """What a symlink points to, as written (None for anything that is not a symlink)."""

    def kind(self, path: str) -> str | None:
        """What is at `path` itself, links not followed: "file", "symlink", "directory", or what
        else a working directory can hold ("named pipe", "socket", "device") or a commit ("submodule");
        None when nothing is there."""


def directories(files: frozenset[str]) -> frozenset[str]:
    """Every directory holding a file ("" is the root)."""
    out = {""}
    for path in files:
        out.update(str(p) for p in PurePosixPath(path).parents if str(p) != ".")
    return frozenset(out)


class GitTree:
    """A commit read straight from the object database."""

    def __init__(self, repo: Path, revision: str, label: str):
        self.repo, self.label = repo, label
        if not repo.is_dir():
            raise ConfigError(f"{repo}: not a directory")
        if not git.git("rev-parse", "--git-dir", cwd=repo, check=False).ok:
            raise ConfigError(f"{repo}: not a git repository, so {label} {revision!r} names nothing")
        resolved = git.git("rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}", cwd=repo, check=False)
        if not resolved.ok:
            raise ConfigError(f"{label}: {revision!r} is not a commit in {repo}")
        self.sha = resolved.stdout.strip()
        self._cache: dict[str, bytes | None] = {}

    @cached_property
    def _entries(self) -> dict[str, str]:
        listing = git.out("ls-tree", "-r", "-z", "--full-tree", self.sha, cwd=self.repo)
        entries = {}
        for item in git.split_z(listing):
            meta, path = item.split("\t", 1)
            entries[path] = meta.split()[0]
        return entries

    def files(self) -> frozenset[str]:
        return frozenset(self._entries)

    def read(self, path: str) -> bytes | None:
        if path not in self._cache:
            target = inside_target(path, self.link_target, self._entries.__contains__)
            regular = target is not None and self._entries.get(target) in ("100644", "100755")
            self._cache[path] = git.blob(f"{self.sha}:{target}", self.repo) if regular else None
        return self._cache[path]

    def link_target(self, path: str) -> str | None:
        if self._entries.get(path) != "120000":
            return None
        return git.out("cat-file", "blob", f"{self.sha}:{path}", cwd=self.repo)

    def kind(self, path: str) -> str | None:
        mode = self._entries.get(path)
        if mode is None:
            return "directory" if path in directories(self.files()) else None
        return {"120000": "symlink", "160000": "submodule"}.get(mode, "file")


class DirTree:
    """A working directory on disk (local use before committing)."""

    def __init__(self, root: Path, label: str = "working directory"):
        if not root.is_dir():
            raise ConfigError(f"{root}: not a directory")
        self.root, self.label = root.resolve(), label

    @cached_property
    def _files(self) -> frozenset[str]:
        found = set()
        for current, dirnames, filenames in os.walk(self.root):
            dirnames[:] = [d for d in dirnames if d not in _SKIPPED_DIRS]
            base = Path(current).relative_to(self.root)
            found.update((base / name).as_posix() for name in filenames)
            # A symlink to a folder is an entry of its own, as in a git tree (os.walk does not follow it).
            found.update((base / name).as_posix() for name in dirnames if os.path.islink(os.path.join(current, name)))
        return frozenset(found)

    def files(self) -> frozenset[str]:
        return self._files

    def read(self, path: str) -> bytes | None:
        target = inside_target(path, self.link_target, lambda p: (self.root / p).exists() or (self.root / p).is_symlink())
        if target is None or (self.root / target).is_symlink() or not (self.root / target).is_file():
            return None
        return (self.root / target).read_bytes()

    def link_target(self, path: str) -> str | None:
        link = self.root / path
        return os.readlink(link) if link.is_symlink() else None

    def kind(self, path: str) -> str | None:
        try:
            mode = (self.root / path).lstat().st_mode
        except (OSError, ValueError):
            return None
        for test, name in ((stat.S_ISREG, "file"), (stat.S_ISLNK, "symlink"), (stat.S_ISDIR, "directory"),
                           (stat.S_ISFIFO, "named pipe"), (stat.S_ISSOCK, "socket")):
            if test(mode):
                return name
        return "device"


#: Symlink hops followed before giving up (a chain of links, or a loop).
_MAX_LINK_HOPS = 8


def inside_target(path: str, link_target, exists) -> str | None:
    """The repository path a (chain of) symlink(s) at `path` ends at, or `path` itself when it is
    no symlink; None when a link leads outside the repository, loops, or ends nowhere."""
    for _ in range(_MAX_LINK_HOPS):
        target = link_target(path)
        if target is None:
            return path if exists(path) else None
        if target.startswith("/"):
            return None
        path = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
        if path == ".." or path.startswith("../"):
            return None
    return None


@dataclass(frozen=True)
class Resolved:
    """Where a path really leads: `path` inside the repository, or why not (`problem`)."""

    path: str | None  #: the real repository path; None when a link leads outside or loops
    problem: str | None = None  #: None, "outside" or "loop"
    target: str | None = None  #: "outside": the link target that leaves, as written (never read)


def resolve(path: str, link_target) -> Resolved:
    """`path` with every symlinked component, directories included, replaced by what it points
    to: the repository path an agent really opens, or why there is none (a component leading
    outside the repository, through an absolute target or `..` past the root, or links that loop).
    Only link targets are read, never what an outside target holds."""
    pending = [p for p in path.split("/") if p not in ("", ".")]
    done: list[str] = []
    hops, last = 0, None
    while pending:
        part = pending.pop(0)
        if part == "..":
            if not done:
                return Resolved(None, "outside", last)
            done.pop()
            continue
        target = link_target("/".join([*done, part]))
        if target is None:
            done.append(part)
            continue
        hops, last = hops + 1, target
        if hops > 4 * _MAX_LINK_HOPS:
            return Resolved(None, "loop")
        if target.startswith("/"):
            return Resolved(None, "outside", target)
        pending = [p for p in target.split("/") if p not in ("", ".")] + pending
    return Resolved("/".join(done))


def real_path(path: str, link_target) -> str | None:
    """`resolve(path).path`: None when a component leads outside the repository or links loop."""
    return resolve(path, link_target).path


def outside_links(tree: Tree, paths: Iterable[str]) -> dict[str, str]:
    """Path -> the target, as written, of each of `paths` that is a link (or lies below one)
    leading out of the repository. Loops are not outside: nothing can open them."""
    found = {path: resolve(path, tree.link_target) for path in paths}
    return {path: r.target or "" for path, r in found.items() if r.problem == "outside"}
