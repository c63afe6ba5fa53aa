"""Instruction coverage: which instruction files, and which sections, no task of the suite can reach.

An instruction no task loads is untested: its edits pass the gate without evidence. Reach
follows impact analysis (`suite/exposure.py`): per agent, what loads at start in a task's
`cwd` (the Codex chain cut at its budget, Claude's memory files and imports) plus what that
agent's CLI loads later below it. A file some agent could load from some directory but no
task reaches is a gap; so is a section of a file that every task receives only
cut short, past the cut.
"""

from __future__ import annotations

import posixpath
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from instruction_gate.agents.loading import LOADERS
from instruction_gate.suite.exposure import Discovery, reachable

#: Rows the summary shows; a file with hundreds of sections past a cut would bury the rest of it.
MAX_ROWS = 30
_HEADING = re.compile(rb"^#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)


@dataclass(frozen=True)
class Gap:
    """Instruction text no task can reach for one agent."""

    agent: str  #: the agents it is a gap for, comma-separated ("codex, opencode")
    path: str
    section: str | None  #: heading of an unreachable section; None: the whole file
    why: str


def _sections_past(data: bytes, cut: int) -> list[str]:
    return [m.group(1).decode("utf-8", errors="replace") for m in _HEADING.finditer(data) if m.start() >= cut]


def gaps(files: dict[str, bytes], cwds: Iterable[str], caps: dict[str, int] | None = None,
         tree_paths: Iterable[str] | None = None) -> list[Gap]:
    """Per agent, what of `files` (path -> bytes, the revision's instruction files) no task in `cwds`
    reaches; one gap for every agent that shares it (an AGENTS.md several agents load is one row).
    `tree_paths`: every path of the revision, for path-scoped rules (the files a task can touch);
    without them a scoped rule counts as reached wherever it could be loaded."""
    cwds = sorted({"" if c in (".", "") else c.strip("/") for c in cwds})
    found: list[Gap] = []
    paths = sorted(tree_paths) if tree_paths is not None else None
    with tempfile.TemporaryDirectory(prefix="ig-coverage-") as tmp:
        root = Path(tmp)
        (root / ".git").mkdir()
        for path, data in files.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_bytes(data)
        for agent in LOADERS:
            budget = (caps or {}).get(agent, Discovery().codex_budget)
            rules = Discovery(agent, codex_budget=budget)
            # Loadable: from the directory of any instruction file (a nested file loads at start there).
            loadable: dict[str, object] = {}
            for directory in sorted({"", *(posixpath.dirname(p) for p in files)}):
                loadable.update(reachable(root, directory, rules, any_file=True))
            reached = [reachable(root, cwd, rules, _below(paths, cwd)) if paths is not None
                       else reachable(root, cwd, rules, any_file=True) for cwd in cwds]
            for path in sorted(loadable):
                reaches = [r[path] for r in reached if path in r]
                if not reaches:
                    found.append(Gap(agent, path, None, f"no task's cwd ({', '.join(c or '.' for c in cwds) or 'none'}) reaches it"))
                    continue
                if any(r.lazy for r in reaches):
                    continue
                cut = max(r.eager_bytes for r in reaches)
                size = len(files.get(path, b""))
                # A heading repeated past the cut is one gap: the section names what to fix, not how often.
                for heading in dict.fromkeys(_sections_past(files.get(path, b""), cut) if cut < size else []):
                    found.append(Gap(agent, path, heading, f"past the {cut}-byte cut every task receives"))
    merged: dict[tuple[str, str | None, str], dict[str, None]] = {}
    for gap in found:
        merged.setdefault((gap.path, gap.section, gap.why), {})[gap.agent] = None
    return [Gap(", ".join(agents), path, section, why) for (path, section, why), agents in merged.items()]


def _below(paths: list[str], cwd: str) -> list[str]:
    return [p for p in paths if not cwd or p.startswith(cwd + "/")]


def markdown(found: list[Gap], tasks: int) -> list[str]:
    """The lint summary's coverage section."""
    lines = ["### Instruction coverage", ""]
    if not found:
        return lines + [f"Every instruction file an agent can load is reached by at least one of the {tasks} "
                        "task(s), whole.", ""]
    lines += [f"Instruction text no task of the suite ({tasks} task(s)) can reach: edits here pass the gate "
              "without evidence, and mutants here are unreachable. Add a task whose working directory "
              "reaches it.", "", "| agent | file | section | why |", "|---|---|---|---|"]
    lines += [f"| {g.agent} | `{_cell(g.path)}` | {_cell(g.section or '(whole file)')} | {_cell(g.why)} |"
              for g in found[:MAX_ROWS]]
    more = ["", f"… and {len(found) - MAX_ROWS} more gap(s), listed in the JSON report."] if len(found) > MAX_ROWS else []
    return lines + more + [""]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("`", "'").replace("\n", " ")


def to_json(found: list[Gap]) -> list[dict[str, str | None]]:
    return [{"agents": g.agent.split(", "), "path": g.path, "section": g.section, "why": g.why} for g in found]
