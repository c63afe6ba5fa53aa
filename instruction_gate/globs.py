"""Repository path globs: `*` stays within one directory, `**` matches any depth.

Patterns are anchored at the repository root (`AGENTS.md` means the root file only;
`**/AGENTS.md` means that name in any directory, the root included). Matching uses
pathspec's gitignore-style wildmatch engine rather than fnmatch, whose `*` crosses `/`.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Iterable

import pathspec


def _anchor(pattern: str) -> str:
    if pattern.startswith(("/", "**/")):
        return pattern
    return "/" + pattern


@lru_cache(maxsize=256)
def compile_globs(patterns: tuple[str, ...]) -> pathspec.PathSpec:
    """Compile patterns; raises ValueError naming the bad pattern."""
    try:
        return pathspec.PathSpec.from_lines("gitignore", [_anchor(p) for p in patterns])
    except Exception as exc:  # pathspec raises several types for bad patterns
        raise ValueError(f"invalid glob {patterns!r}: {exc}") from None


def matches_any(path: str, patterns: Iterable[str]) -> bool:
    patterns = tuple(patterns)
    return bool(patterns) and compile_globs(patterns).match_file(path)


def filter_paths(paths: Iterable[str], patterns: Iterable[str]) -> list[str]:
    patterns = tuple(patterns)
    if not patterns:
        return []
    spec = compile_globs(patterns)
    return [p for p in paths if spec.match_file(p)]
