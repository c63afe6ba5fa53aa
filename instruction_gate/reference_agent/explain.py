"""What an agent would load in one directory and what the reference agent takes from it.

The first thing to run on your own AGENTS.md: each agent's chain (files, bytes, truncation) and
every directive the reference agent understood, with file:line and what it would do about it
(run it, refuse it under the command policy, leave it to a prohibition or an approval).
"""

from __future__ import annotations

import posixpath
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from instruction_gate.agents.discovery import CODEX_BUDGET_BYTES
from instruction_gate.agents.loading import MODES, agents_of
from instruction_gate.lint.chains import Chain, chains, instruction_files
from instruction_gate.lint.tree import Tree
from instruction_gate.reference_agent.command_policy import refusal
from instruction_gate.reference_agent.directives import Directive
from instruction_gate.reference_agent.plan import Plan, build_plan

#: The chains the reference agent's `discovery` option selects.
AGENTS = {mode: agents_of(mode) for mode in MODES}


@dataclass(frozen=True)
class Explained:
    """One directive and what the reference agent would do about it."""

    directive: Directive
    outcome: str  #: e.g. "runs", "refused: ...", "forbidden by AGENTS.md:12", "asks for approval"


def explain(tree: Tree, directory: str, agents: str, repo_root: Path,
            instruction_paths: tuple[str, ...] = ()) -> tuple[list[Chain], Plan, list[Explained]]:
    """The chains of `agents` in `directory` and the reference agent's plan from them."""
    wanted = AGENTS[agents]
    found = [c for c in chains(tree, instruction_files(tree, instruction_paths), [directory],
                               {"codex": CODEX_BUDGET_BYTES}) if c.agent in wanted]
    files, seen = [], set()
    for chain in found:
        for loaded in chain.files:
            if loaded.path not in seen and (data := tree.read(loaded.path)) is not None:
                seen.add(loaded.path)
                files.append((loaded.path, data[:loaded.bytes_loaded].decode("utf-8", errors="replace")))

    def read_document(path: str) -> str | None:
        data = tree.read(path)
        return None if data is None else data.decode("utf-8", errors="replace")

    plan = build_plan(files, read_document)
    loaded = {path for path, _ in files}
    return found, plan, [Explained(d, _outcome(d, plan, repo_root, loaded)) for d in plan.followed]


def _outcome(d: Directive, plan: Plan, repo_root: Path, loaded: frozenset[str] | set[str] = frozenset()) -> str:
    if d.kind == "read" and _relative(d) in loaded:
        return "already loaded as an instruction file"
    if d.kind not in ("run", "test_command"):
        verify = "runs the test command at the end" if plan.test else "nothing to run: no test command was found"
        return {"verify": verify, "forbid_command": "never runs matching commands",
                "protect_path": "leaves matching files alone", "approve_command": "asks before running it",
                "approve_edit": "asks before editing matching files",
                "read": "reads it" if _relative(d) in plan.documents else "not found: cannot read it"}[d.kind]
    command = d.argument or ""
    if d.kind == "test_command" and (plan.test is None or plan.test.text != command):
        return "superseded by a later test command"
    if forbidden := plan.prohibition_for(command):
        return f"not run: forbidden by {forbidden.source}:{forbidden.line}"
    if approval := plan.approval_for(command):
        return f"not run: asks for approval ({approval.source}:{approval.line})"
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        return f"cannot run: {exc}"
    cwd = repo_root / (posixpath.dirname(d.source) or ".")
    why = refusal(argv, repo_root, cwd, frozenset(posixpath.basename(p) for p in loaded))
    if why:
        return f"refused by the command policy: {why}"
    first = plan.first_run(command, posixpath.dirname(d.source) or ".") if d.kind == "run" else None
    if first is not None and (first.source, first.line) != (d.source, d.line):
        return f"already run for {first.source}:{first.line}"
    return "runs it at the end when asked to verify" if d.kind == "test_command" else "runs it"


def _relative(d: Directive) -> str:
    return posixpath.normpath(posixpath.join(posixpath.dirname(d.source), (d.argument or "").lstrip("/")))


def as_json(directory: str, found: list[Chain], explained: list[Explained]) -> dict[str, Any]:
    return {
        "directory": directory,
        "chains": [{"agent": c.agent, "files": [{"path": f.path, "size": f.size, "bytes_loaded": f.bytes_loaded,
                                                 "truncated": f.truncated} for f in c.files],
                    "dropped": [f.path for f in c.whole if f.path not in {x.path for x in c.files}]} for c in found],
        "directives": [{"file": e.directive.source, "line": e.directive.line, "kind": e.directive.kind,
                        "argument": e.directive.argument, "text": e.directive.text, "outcome": e.outcome}
                       for e in explained],
    }
