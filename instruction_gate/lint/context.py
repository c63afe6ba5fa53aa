"""Everything a lint rule may look at for one revision."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import PurePosixPath

import pathspec

from instruction_gate.lint.chains import Chain
from instruction_gate.lint.imports import Import
from instruction_gate.lint.policy import LintPolicy
from instruction_gate.lint.tree import Tree, directories, real_path


@dataclass
class LintContext:
    tree: Tree
    texts: dict[str, str]  #: instruction file path -> decoded text
    chains: list[Chain]
    policy: LintPolicy = field(default_factory=LintPolicy)
    imports: list[Import] = field(default_factory=list)  #: every `@reference` an importing agent meets
    sizes: dict[str, int] = field(default_factory=dict)  #: instruction and imported file -> bytes on disk
    #: directories of the base revision, when linting a candidate against one: a path into a directory the
    #: change removed or renamed is still a path of this repository
    earlier_dirs: frozenset[str] = frozenset()

    @cached_property
    def dirs(self) -> frozenset[str]:
        return directories(self.tree.files())

    @cached_property
    def basenames(self) -> frozenset[str]:
        return frozenset(PurePosixPath(p).name for p in self.tree.files())

    @cached_property
    def ignored(self) -> pathspec.PathSpec:
        """The revision's .gitignore rules, nested files included: what a build or a tool
        creates (`target/debug/app`, `node_modules/.bin/x`), never committed yet real."""
        return pathspec.GitIgnoreSpec.from_lines(self._ignore_patterns)

    @cached_property
    def _ignore_patterns(self) -> list[str]:
        patterns = []
        for path in sorted(p for p in self.tree.files() if PurePosixPath(p).name == ".gitignore"):
            directory = posixpath.dirname(path)
            for raw in (self.tree.read(path) or b"").decode("utf-8", errors="replace").splitlines():
                line = raw.strip()
                if line and not line.startswith("#"):
                    patterns.append(_scoped(line, directory))
        return patterns

    def is_ignored(self, path: str) -> bool:
        """Ignored, or a directory that an ignore rule reaches into (`/deprecated/data/` means a
        local `deprecated/` exists on contributors' machines though nothing of it is committed).
        A negated rule reaching into it (`!docs/docs.json`) says the opposite: the directory is kept,
        not ignored as a whole, so a path under it that no commit holds is stale."""
        inside = path.strip("/") + "/"
        return self.ignored.match_file(path) or self.ignored.match_file(path.rstrip("/") + "/") or any(
            p.lstrip("/").startswith(inside) for p in self._ignore_patterns if not p.startswith("!"))

    def exists(self, path: str) -> bool:
        """A file or directory at a normalized repository-relative path, through symlinked
        directories as an agent's reads go (`.claude/skills/x/SKILL.md` under a `.claude/skills`
        link to `.agents/skills`); a link loop or a link out of the repository leads nowhere."""
        path = path.rstrip("/")
        if path in self.tree.files() or path in self.dirs:
            return True
        real = real_path(path, self.tree.link_target)
        return real not in (None, path) and (real in self.tree.files() or real in self.dirs)

    def resolve(self, source: str, reference: str) -> str | None:
        """`reference` relative to the directory of `source` (or the root when it starts
        with "/"); None when it leaves the repository."""
        base = "" if reference.startswith("/") else posixpath.dirname(source)
        joined = posixpath.normpath(posixpath.join(base, reference.lstrip("/")))
        if joined == ".":
            return ""
        return None if joined.startswith("../") or joined == ".." else joined

    def ancestors(self, source: str) -> list[str]:
        """Directories from the file's own up to the root."""
        current = posixpath.dirname(source)
        out = [current]
        while current:
            current = posixpath.dirname(current)
            out.append(current)
        return out


def _scoped(pattern: str, directory: str) -> str:
    """A nested .gitignore's pattern, rewritten to apply from the repository root."""
    if not directory:
        return pattern
    negated, body = (pattern.startswith("!"), pattern.lstrip("!"))
    anchored = "/" in body.rstrip("/")  # gitignore: a slash before the end anchors to the file's directory
    scoped = f"/{directory}/{body.lstrip('/')}" if anchored else f"/{directory}/**/{body}"
    return ("!" if negated else "") + scoped
