"""Turn the directives of every loaded file into one plan, resolving contradictions.

Contradiction rule (documented in `adapters/README.md`):
1. A prohibition beats any command it matches, whatever file or line it comes from.
2. An approval requirement beats running: the agent asks and does not run (or edit).
3. A protected path beats editing: the agent leaves matching files alone.
4. For the single-valued test command, the last one read wins. Files are read root first,
   deeper files later, and a document named by "read X" right after the file naming it, so a
   deeper file (e.g. AGENTS.override.md) beats the root and a later line beats an earlier one.

Commands run in the directory of the instruction file that asks for them (`packages/api/AGENTS.md`
speaks for `packages/api`); a document it names ("Read `docs/testing.md`") speaks for the same
directory, not for the document's own. Paths a nested file names that only the repository root
has are the root's (`path_base`).
"""

from __future__ import annotations

import posixpath
import shlex
from functools import lru_cache
from dataclasses import dataclass, field
from typing import Callable

from instruction_gate.agents.scoped_rules import blank_front_matter
from instruction_gate import globs
from instruction_gate.reference_agent import path_base
from instruction_gate.reference_agent.directives import Directive, parse

#: How deep "read X" may nest (a document naming another document, ...).
MAX_DOCUMENT_DEPTH = 3


@dataclass(frozen=True)
class Command:
    """A command the agent intends to run."""

    text: str  #: as written in the backticks
    cwd: str  #: repository-relative directory it runs from
    source: str  #: file (or "prompt") that asked for it
    line: int = 0  #: line of the directive in `source` (0: not from a file)


@dataclass
class Plan:
    """What the agent will do, after resolving every directive it followed."""

    run: list[Command] = field(default_factory=list)
    test: Command | None = None
    verify: bool = False
    forbidden: list[Directive] = field(default_factory=list)
    protected_globs: list[str] = field(default_factory=list)
    approval_commands: list[Directive] = field(default_factory=list)
    approval_globs: list[str] = field(default_factory=list)
    documents: list[str] = field(default_factory=list)  #: documents opened, repository-relative
    #: document -> directory its commands run in (that of the instruction file naming it)
    document_directories: dict[str, str] = field(default_factory=dict)
    followed: list[Directive] = field(default_factory=list)
    skipped: list[Directive] = field(default_factory=list)
    #: whether a repository-relative path exists (file or directory): where nested files' paths point
    exists: path_base.Exists = field(default=lambda path: False, repr=False, compare=False)
    #: per directive list, its patterns by first word (rebuilt when the list grows)
    _indexes: dict = field(default_factory=dict, repr=False, compare=False)

    def directory_of(self, source: str) -> str:
        """The repository-relative directory commands from `source` run in."""
        return self.document_directories.get(source) or path_base.file_directory(source) or "."

    def command_directory(self, command: str, source: str) -> str:
        """Where `command`, asked for by `source`, runs: its file's directory, or the root for a
        program path only the root has (`bin/fmt` written in `go/GEMINI.md`)."""
        return path_base.command_directory(command, self.directory_of(source), self.exists)

    def first_run(self, text: str, cwd: str) -> Command | None:
        """The planned run of `text` in `cwd`, if some directive already asked for it."""
        return next((c for c in self.run if c.text == text and c.cwd == cwd), None)

    def prohibition_for(self, command: str) -> Directive | None:
        return _first_match(command, self.forbidden, self._indexes)

    def approval_for(self, command: str) -> Directive | None:
        return _first_match(command, self.approval_commands, self._indexes)

    def is_protected(self, path: str) -> bool:
        return globs.matches_any(path, self.protected_globs)

    def needs_edit_approval(self, path: str) -> bool:
        return globs.matches_any(path, self.approval_globs)


@lru_cache(maxsize=4096)
def _tokens(text: str) -> tuple[str, ...]:
    try:
        return tuple(shlex.split(text))
    except ValueError:
        return tuple(text.split())


def command_matches(command: str, pattern: str) -> bool:
    """True when `pattern`'s words appear, in order and adjacent, among `command`'s words."""
    words, needle = _tokens(command), _tokens(pattern)
    if not needle:
        return False
    return any(words[i:i + len(needle)] == needle for i in range(len(words) - len(needle) + 1))


def _first_match(command: str, directives: list[Directive], indexes: dict) -> Directive | None:
    """The first directive (in order) whose argument `command_matches` the command. Patterns are
    indexed by their words, so each of the command's word runs is one lookup: a file with
    thousands of rules sharing a first word (`make t1` ... `make t5000`) stays linear."""
    key = id(directives)
    if key not in indexes or indexes[key][0] != len(directives):
        first: dict[tuple[str, ...], int] = {}
        for position, directive in enumerate(directives):
            needle = _tokens(directive.argument or "")
            if needle:
                first.setdefault(needle, position)
        indexes[key] = (len(directives), first, sorted({len(n) for n in first}))
    _, first, lengths = indexes[key]
    words = _tokens(command)
    found = [position for size in lengths for i in range(len(words) - size + 1)
             if (position := first.get(words[i:i + size])) is not None]
    return directives[min(found)] if found else None


def _relative_to(source: str, path: str, exists: path_base.Exists) -> list[str]:
    """`path` as written in `source`, made repository-relative (`path_base.spellings`)."""
    return path_base.spellings(path_base.file_directory(source), path, exists)


def _document_spellings(source: str, name: str, exists: path_base.Exists) -> list[str]:
    """A document a file names. A bare name (`CONTRIBUTING.md`, `README.md`) in a nested file is that
    directory's own: a vendored package's "read CONTRIBUTING.md" never means the repository root's."""
    if "/" in name.strip("/") or path_base.file_directory(source) in ("", "."):
        return _relative_to(source, name, exists)
    return [posixpath.normpath(posixpath.join(path_base.file_directory(source), name))]


class _Builder:
    def __init__(self, read_document: Callable[[str], str | None], skip: Callable[[Directive], bool],
                 loaded: set[str], exists: path_base.Exists):
        self.plan = Plan(exists=exists)
        self.read_document = read_document
        self.skip = skip
        self.seen = set(loaded)

    def add_file(self, path: str, text: str, depth: int = 0) -> None:
        for directive in parse(text, path):
            if self.skip(directive):
                self.plan.skipped.append(directive)
                continue
            self.plan.followed.append(directive)
            self._apply(directive, depth)

    def _apply(self, d: Directive, depth: int) -> None:
        plan, where = self.plan, self.plan.command_directory(d.argument or "", d.source)
        if d.kind == "read":
            where = plan.directory_of(d.source)
            target = next(iter(_document_spellings(d.source, d.argument or "", plan.exists)), None)
            if target and target not in self.seen and depth < MAX_DOCUMENT_DEPTH:
                self.seen.add(target)
                text = self.read_document(target)
                if text is not None:
                    plan.documents.append(target)
                    plan.document_directories[target] = where
                    self.add_file(target, text, depth + 1)
        elif d.kind == "run":
            if plan.first_run(d.argument or "", where) is None:  # a step said twice runs once
                plan.run.append(Command(d.argument or "", where, d.source, d.line))
        elif d.kind == "test_command" and (depth == 0 or plan.test is None):
            # a document the file points to may name a test command; the file's own one wins
            plan.test = Command(d.argument or "", where, d.source)
        elif d.kind == "verify":
            plan.verify = True
        elif d.kind == "forbid_command":
            plan.forbidden.append(d)
        elif d.kind == "approve_command":
            plan.approval_commands.append(d)
        elif d.kind in ("protect_path", "approve_edit"):
            globs_of = plan.protected_globs if d.kind == "protect_path" else plan.approval_globs
            globs_of += _relative_to(d.source, d.argument or "", plan.exists)


def build_plan(files: list[tuple[str, str]], read_document: Callable[[str], str | None],
               skip: Callable[[Directive], bool] = lambda d: False,
               exists: path_base.Exists = lambda path: False) -> Plan:
    """Read `files` ((path, text), root first) and the documents they name, into one plan;
    `exists` tells whether a repository-relative path exists (see `path_base`)."""
    builder = _Builder(read_document, skip, {path for path, _ in files}, exists)
    for path, text in files:
        builder.add_file(path, blank_front_matter(text))  # a rule file's front matter says when, not what
    return builder.plan
