"""Swap an override with the file it overrides (AGENTS.override.md <-> AGENTS.md)."""

from __future__ import annotations

import posixpath
from typing import Iterator

from instruction_gate.agents.codex.discovery import CODEX_NAMES
from instruction_gate.mutations.model import Files, Mutant, decode, snippet


def swap_overrides(files: Files) -> Iterator[Mutant]:
    """Per directory with an override and a plain file: exchange their contents, so the rules
    that were meant to win are shadowed instead. A lone override is skipped: renaming it would
    not change what any agent loads (an equivalent mutant that can never be killed)."""
    override_name, plain_name = CODEX_NAMES
    for path, data in sorted(files.items()):
        if posixpath.basename(path) != override_name:
            continue
        sibling = posixpath.join(posixpath.dirname(path), plain_name)
        if sibling not in files or files[sibling] == data:
            continue
        yield Mutant(f"swap-overrides:{path}", "swap-overrides", f"swapped {path} and {sibling}",
                     snippet(decode(data)), {path: files[sibling], sibling: data}, path, 1)
