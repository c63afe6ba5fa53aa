"""What an agent would load in one directory and what the reference agent takes from it.

The first thing to run on your own AGENTS.md: each agent's chain (files, bytes, truncation) and
every directive the reference agent understood, with file:line and what it would do about it
(run it, refuse it under the command policy, leave it to a prohibition or an approval).
"""

from __future__ import annotations

import posixpath
import re
from functools import lru_cache
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from instruction_gate.agents.loading import LOADERS, MODES, LoadSettings, agents_of, names_of
from instruction_gate.agents.discovery import LoadedFile, result_fields
from instruction_gate.lint.chains import Chain, chains, instruction_files
from instruction_gate.lint import markdown
from instruction_gate.lint.hidden import hidden_characters
from instruction_gate.lint.imports import REASONS, Import, imports
from instruction_gate.untrusted import INSTRUCTION_CAP_BYTES, decode_instruction, quote
from instruction_gate.lint.tree import Tree, directories, outside_links, real_path, resolve
from instruction_gate.reference_agent import path_base
from instruction_gate.reference_agent.command_outcome import REFUSED, command_cwd, command_outcome
from instruction_gate.agents.scoped_rules import blank_front_matter
from instruction_gate.reference_agent.abstain import Unread, not_understood
from instruction_gate.reference_agent.directives import Directive
from instruction_gate.reference_agent.plan import Plan, build_plan

#: The chains the reference agent's `discovery` option selects.
AGENTS = {mode: agents_of(mode) for mode in MODES}


@dataclass(frozen=True)
class Explained:
    """One directive and what the reference agent would do about it."""

    directive: Directive
    outcome: str  #: e.g. "runs", "refused: ...", "forbidden by AGENTS.md:12", "asks for approval"
    cwd: str | None = None  #: commands: the repository-relative directory they run in


def explain(tree: Tree, directory: str, agents: str, repo_root: Path, instruction_paths: tuple[str, ...] = (),
            settings: LoadSettings = LoadSettings()) -> tuple[list[Chain], Plan, list[Explained]]:
    """The chains of `agents` in `directory` (with what they load later) and the reference
    agent's plan from the files loaded at start."""
    wanted = AGENTS[agents]
    roots = _roots(tree, settings, instruction_paths)
    found = [c for c in chains(tree, roots, [directory], {"codex": settings.codex_budget}, settings, later=True,
                               outside=outside_links(tree, roots)) if c.agent in wanted]
    # CLAUDE.md linked to AGENTS.md is one text: its directives are understood once, from as much of it as
    # any chosen agent reads (Gemini CLI reads past Codex's 32 KiB budget); `reach` keeps who reads how far
    reach: dict[str, dict[str, int]] = {}
    first_path: dict[str, str] = {}
    for chain in found:
        for loaded in chain.files:
            real = real_path(loaded.path, tree.link_target) or loaded.path
            first_path.setdefault(real, loaded.path)
            agents = reach.setdefault(first_path[real], {})
            agents[chain.agent] = max(agents.get(chain.agent, 0), loaded.bytes_loaded)
    # As the reference agent reads in a run: at most the read cap, NUL and invalid UTF-8 as U+FFFD
    raw = {path: data[:min(max(agents.values()), INSTRUCTION_CAP_BYTES)]
           for path, agents in reach.items() if (data := tree.read(path)) is not None}
    files = [(path, decode_instruction(data)) for path, data in raw.items()]

    def read_document(path: str) -> str | None:
        data = tree.read(path)
        return None if data is None else decode_instruction(data[:INSTRUCTION_CAP_BYTES])

    every = tree.files()
    present = every | directories(every)
    plan = build_plan(files, read_document, exists=lambda path: posixpath.normpath(path) in present)
    loaded = {path for path, _ in files}
    return found, plan, [Explained(d, _outcome(d, plan, repo_root, loaded) + _partly_read(d, raw, reach),
                                   command_cwd(d.argument or "", plan.command_directory(d.argument or "", d.source), repo_root)
                                   if d.kind in ("run", "test_command") else None)
                         for d in plan.followed]


@lru_cache(maxsize=16)
def _line_starts(data: bytes) -> tuple[int, ...]:
    """Byte offset where each line starts (lines end at a line feed): counted once per file, not per
    directive, in the file's bytes: an invalid byte is one byte on disk but three as U+FFFD."""
    return (0, *(match.end() for match in re.finditer(b"\n", data)))


def _partly_read(d: Directive, raw: dict[str, bytes], reach: dict[str, dict[str, int]]) -> str:
    """" (read only by gemini, opencode)" when some chosen agents stop before the directive's line."""
    agents, data = reach.get(d.source), raw.get(d.source)
    if not agents or data is None or len(agents) < 2:
        return ""
    starts = _line_starts(data)
    offset = starts[d.line - 1] if d.line <= len(starts) else len(data)
    readers = sorted(agent for agent, loaded in agents.items() if loaded > offset)
    return "" if len(readers) == len(agents) else f" (read only by {', '.join(readers)}: the others stop before this line)"


def _roots(tree: Tree, settings: LoadSettings, instruction_paths: tuple[str, ...] = ()) -> list[str]:
    named = names_of("all", settings)
    files_by_name = [p for p in tree.files() if posixpath.basename(p) in named]
    return sorted({*instruction_files(tree, instruction_paths), *files_by_name})


def unreadable_files(tree: Tree, directory: str, agents: str, settings: LoadSettings = LoadSettings()) -> dict[str, str]:
    """Instruction-file names on the way from the root to `directory` that hold nothing an agent can
    load (a named pipe, a directory, a dangling or looping link, a submodule) -> what is there instead.
    Links out of the repository are `outside_files`: those load whatever the machine has."""
    parts = directory.split("/") if directory else []
    folders = ["", *("/".join(parts[:i + 1]) for i in range(len(parts)))]
    found = {}
    for path in (posixpath.join(folder, name) for folder in folders for name in sorted(names_of(agents, settings))):
        kind = tree.kind(path)
        if kind in (None, "file"):
            continue
        if kind == "symlink":
            resolved = resolve(path, tree.link_target)
            if resolved.problem == "outside" or tree.read(path) is not None:
                continue
            kind = "a symlink loop" if resolved.problem == "loop" else "a symlink to no file"
        found[path] = kind if kind.startswith("a ") else f"a {kind}"
    return found


def outside_files(tree: Tree, settings: LoadSettings = LoadSettings()) -> dict[str, str]:
    """Instruction files that are links out of the repository -> their targets as written:
    every agent (Codex, Claude Code, Gemini CLI, OpenCode) loads whatever is there; no reviewer sees it."""
    return outside_links(tree, _roots(tree, settings))


def _outcome(d: Directive, plan: Plan, repo_root: Path, loaded: frozenset[str] | set[str] = frozenset()) -> str:
    if d.kind == "read" and _relative(d, plan) in loaded:
        return "already loaded as an instruction file"
    if d.kind in ("protect_path", "approve_edit") and path_base.file_directory(d.source):
        what = "leaves matching files alone" if d.kind == "protect_path" else "asks before editing matching files"
        where = path_base.spellings(path_base.file_directory(d.source), d.argument or "", plan.exists)
        return f"{what}: {' or '.join(quote(p) for p in where)}"  # a nested file's path, as resolved
    if d.kind not in ("run", "test_command"):
        verify = "runs the test command at the end" if plan.test else "nothing to run: no test command was found"
        return {"verify": verify, "forbid_command": "never runs matching commands",
                "protect_path": "leaves matching files alone", "approve_command": "asks before running it",
                "approve_edit": "asks before editing matching files",
                "read": "reads it" if _relative(d, plan) in plan.documents else "not found: cannot read it"}[d.kind]
    command = d.argument or ""
    if d.kind == "test_command" and (plan.test is None or plan.test.text != command):
        return "superseded by a later test command"
    if forbidden := plan.prohibition_for(command):
        return f"not run: forbidden by {forbidden.source}:{forbidden.line}"
    if approval := plan.approval_for(command):
        return f"not run: asks for approval ({approval.source}:{approval.line})"
    where = plan.command_directory(command, d.source)
    names = frozenset(posixpath.basename(p) for p in loaded)
    outcome = command_outcome(command, repo_root, where, names,
                              "at the end when asked to verify" if d.kind == "test_command" else "")
    first = plan.first_run(command, where) if d.kind == "run" else None
    if first is not None and (first.source, first.line) != (d.source, d.line) and not outcome.startswith(REFUSED):
        return f"already run for {first.source}:{first.line}"
    return outcome


def _relative(d: Directive, plan: Plan) -> str:
    spelled = path_base.spellings(path_base.file_directory(d.source), d.argument or "", plan.exists)
    return spelled[0] if spelled else ""


def import_notes(tree: Tree, found: list[Chain], settings: LoadSettings = LoadSettings()) -> dict[tuple[str, str], list[Import]]:
    """(agent, real path of a loaded file) -> the imports in it that agent cannot load."""
    notes: dict[tuple[str, str], list[Import]] = {}
    roots = {f.path for c in found for f in (*c.files, *c.later)}
    wanted = {c.agent for c in found}
    seen: set[tuple[str, str, str, str]] = set()
    for item in imports(tree, roots, settings):
        shown = item.problem != "mention" or LOADERS[item.agent].imports.failure_text
        # GEMINI.md importing AGENTS.md meets AGENTS.md's imports twice (as a root and imported): one note.
        key = (item.agent, item.source, item.ref, item.problem or "")
        if item.problem is None and item.target is not None and _outside_start(found, item):
            item = replace(item, problem="scope")
            key = (item.agent, item.source, item.ref, "scope")
        if item.agent in wanted and item.problem is not None and shown and key not in seen:
            seen.add(key)
            notes.setdefault((item.agent, item.source), []).append(item)
    return notes


def _outside_start(found: list[Chain], item: Import) -> bool:
    """An import loaded from the file's own directory that this chain's agent still does not expand:
    Claude Code expands only imports inside the directory it starts in, so a root CLAUDE.md's
    `@AGENTS.md` stays literal text for a task started in `server/`."""
    rules = LOADERS[item.agent].imports
    return rules is not None and rules.scope == "cwd" and any(
        c.agent == item.agent and c.directory and not item.target.startswith(c.directory + "/")
        and item.root in {f.path for f in c.files} for c in found)


def hidden_text(tree: Tree, found: list[Chain]) -> list[tuple[str, int, list[str]]]:
    """(path, line, characters) of each loaded line holding characters a reviewer cannot see (the
    lint's IG009): text around them may not be what the page shows, so explain names them rather
    than leave a directive that vanished, or reads oddly, unexplained."""
    paths = sorted({f.path for c in found for f in (*c.files, *c.later)})
    out = []
    for path in paths:
        data = tree.read(path)
        if data is not None:
            lines = markdown.lines(decode_instruction(data[:INSTRUCTION_CAP_BYTES]))
            out += [(path, number, [f"U+{ord(ch):04X}" for _, ch in chars]) for number, chars in hidden_characters(lines)]
    return out


def unread_lines(tree: Tree, found: list[Chain], plan: Plan) -> list[Unread]:
    """The lines of the files loaded at start that look like instructions yet gave the reference
    agent no directive in `plan` (`abstain.not_understood`), each file once however many chains load it."""
    out: list[Unread] = []
    reach: dict[str, tuple[str, int]] = {}  # real path -> (path first loaded, most bytes any agent reads), as `explain`
    for loaded in (f for c in found for f in c.files):
        real = real_path(loaded.path, tree.link_target) or loaded.path
        first, most = reach.get(real, (loaded.path, 0))
        reach[real] = (first, max(most, loaded.bytes_loaded))
    understood = plan.followed + plan.skipped
    for path, most in reach.values():
        if (data := tree.read(path)) is not None:
            text = blank_front_matter(decode_instruction(data[:min(most, INSTRUCTION_CAP_BYTES)]))
            out += not_understood(text, path, understood)
    return out


def bytes_sent(f: LoadedFile) -> int:
    """What the agent receives of the file, as its adapter reports it in `instruction_bytes`
    (Gemini CLI trims a context file; decoded text can differ from the bytes on disk)."""
    return result_fields([f])[1].get(f.path, 0)


def _file(f: LoadedFile, outside: dict[str, str]) -> dict[str, Any]:
    if f.path in outside:  # nothing about the target is known: it is never read
        return {"path": f.path, "outside_repository": outside[f.path]}
    return {"path": f.path, "size": f.size, "bytes_loaded": f.bytes_loaded,
            "bytes_sent": bytes_sent(f),
            "truncated": f.truncated, "over_read_cap": f.size > INSTRUCTION_CAP_BYTES}


def as_json(directory: str, found: list[Chain], explained: list[Explained],
            notes: dict[tuple[str, str], list[Import]] | None = None,
            outside: dict[str, str] | None = None) -> dict[str, Any]:
    outside = outside or {}
    return {
        "directory": directory,
        "chains": [{"agent": c.agent, "files": [_file(f, outside) for f in c.files],
                    "dropped": [f.path for f in c.whole if f.path not in {x.path for x in c.files}],
                    "later": [_file(f, outside) for f in c.later],
                    "skills": [{"path": path, "how": how} for path, how in c.skills],
                    "scoped": [{"path": r.path, "activation": r.activation, "patterns": list(r.patterns),
                                "description": r.description, "base": r.base, "how": r.how,
                                **({"problem": r.problem} if r.problem else {})} for r in c.scoped],
                    "imports_not_loaded": [{"file": i.source, "import": i.ref, "reason": REASONS[i.problem]}
                                           for (agent, _), items in (notes or {}).items() if agent == c.agent
                                           for i in items]} for c in found],
        "directives": [{"file": e.directive.source, "line": e.directive.line, "kind": e.directive.kind,
                        "argument": e.directive.argument, "text": e.directive.text, "outcome": e.outcome,
                        **({"cwd": e.cwd} if e.cwd is not None else {})}
                       for e in explained],
    }
