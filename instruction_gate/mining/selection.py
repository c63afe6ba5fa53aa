"""Which candidates to validate first: spread over the directories instruction files govern.

A suite whose tasks all live under one directory cannot see an edit to the AGENTS.md of
another. Candidates are grouped by the deepest directory holding an instruction file above
their code, and taken in turn from each group, newest first within a group.
"""

from __future__ import annotations

import posixpath
from itertools import chain, zip_longest

from instruction_gate.agents.loading import names_of
from instruction_gate.mining.history import Candidate


def instruction_directories(paths: list[str]) -> set[str]:
    """Directories ("" for the root) holding a file an agent loads by itself."""
    names = names_of("all")
    return {posixpath.dirname(p) for p in paths if posixpath.basename(p) in names}


def scope(candidate: Candidate, directories: set[str]) -> str:
    """The deepest instruction directory above the candidate's first code file ("" the root)."""
    path = candidate.code_files[0] if candidate.code_files else ""
    above = [d for d in directories if d and (path == d or path.startswith(d + "/"))]
    return max(above, key=len) if above else ""


def spread(candidates: list[Candidate], directories: set[str]) -> list[Candidate]:
    groups: dict[str, list[Candidate]] = {}
    for c in candidates:
        groups.setdefault(scope(c, directories), []).append(c)
    # Deeper scopes first in each turn: the root's group is usually the largest and comes last.
    ordered = sorted(groups.values(), key=lambda g: -len(scope(g[0], directories)))
    return [c for c in chain.from_iterable(zip_longest(*ordered)) if c is not None]
