"""Everything a lint rule may look at for one revision."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import PurePosixPath

from instruction_gate.lint.chains import Chain
from instruction_gate.lint.policy import LintPolicy
from instruction_gate.lint.tree import Tree, directories


@dataclass
class LintContext:
    tree: Tree
    texts: dict[str, str]  #: instruction file path -> decoded text
    chains: list[Chain]
    policy: LintPolicy = field(default_factory=LintPolicy)

    @cached_property
    def dirs(self) -> frozenset[str]:
        return directories(self.tree.files())

    @cached_property
    def basenames(self) -> frozenset[str]:
        return frozenset(PurePosixPath(p).name for p in self.tree.files())

    def exists(self, path: str) -> bool:
        """A file or directory at a normalized repository-relative path."""
        path = path.rstrip("/")
        return path in self.tree.files() or path in self.dirs

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
