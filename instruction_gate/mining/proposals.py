"""Rules proposed from what the instruction files ask, for a maintainer to review.

Only what the offline tier understands with its source line: the test command to run (a required
command), commands never to run (forbidden), paths to leave alone (forbidden edits). A mined
task requires the test command, so a suite mined here sees an edit that stops asking for it.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from instruction_gate.lint.tree import DirTree, GitTree, Tree
from instruction_gate.reference_agent.explain import explain

#: Launchers in front of the program a command really runs (`uv run pytest`, `python -m pytest`).
LAUNCHERS = {"python", "python3", "uv", "poetry", "pdm", "hatch", "pipenv", "run", "-m", "exec", "npx"}


@dataclass(frozen=True)
class Proposal:
    rule: dict[str, Any]  #: a manifest rule declaration
    source: str  #: `file:line`
    text: str  #: the sentence it was read from


def program_pattern(command: str) -> str | None:
    """A regex matching the program a command runs, launchers and options aside."""
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    for word in words:
        if word in LAUNCHERS or word.startswith("-") or "=" in word:
            continue
        name = word.rsplit("/", 1)[-1]
        return rf"\b{re.escape(name)}\b" if name else None
    return None


def propose(repo: Path, revision: str | None = None) -> list[Proposal]:
    """The rules the root's instruction files support, in file order."""
    tree: Tree = GitTree(repo, revision, "--base") if revision else DirTree(repo)
    _, _, explained = explain(tree, ".", "all", repo)
    proposals: list[Proposal] = []
    seen: set[str] = set()
    for item in explained:
        d = item.directive
        where = f"{d.source}:{d.line}"
        if d.kind == "test_command" and d.argument and (pattern := program_pattern(d.argument)):
            rule = {"id": f"runs-tests-{len(proposals)}", "kind": "command_required", "pattern": pattern,
                    "description": f"{where}: run the tests ({d.argument})"}
        elif d.kind == "forbid_command" and d.argument:
            rule = {"id": f"never-{len(proposals)}", "kind": "command_forbidden", "pattern": rf"\b{re.escape(d.argument)}\b",
                    "turn": "each", "description": f"{where}: never run {d.argument}"}
        elif d.kind == "protect_path" and d.argument:
            rule = {"id": f"leave-alone-{len(proposals)}", "kind": "paths_forbidden", "globs": [d.argument],
                    "description": f"{where}: leave {d.argument} alone"}
        else:
            continue
        key = rule["kind"] + str(rule.get("pattern") or rule.get("globs"))
        if key not in seen:
            seen.add(key)
            proposals.append(Proposal(rule, where, d.text))
    return proposals


def required_test_command(proposals: list[Proposal]) -> tuple[tuple[str, ...], dict[str, str]]:
    """The mined tasks' required command patterns and the gate source naming their line."""
    for p in proposals:
        if p.rule["kind"] == "command_required":
            return (p.rule["pattern"],), {"required_command_missing": p.source}
    return (), {}
