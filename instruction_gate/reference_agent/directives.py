"""The directive grammar: which sentences of an instruction file the reference agent obeys.

One directive per sentence (or clause split at `;` / `but`). Commands, paths and globs are
always in backticks; documents may also be bare `NAME.md` words. Matching is case-insensitive.
The grammar is documented in `adapters/README.md` ("The reference agent (offline)").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from instruction_gate.lint import markdown

DirectiveKind = Literal["run", "test_command", "verify", "forbid_command", "protect_path",
                        "approve_command", "approve_edit", "read"]


@dataclass(frozen=True)
class Directive:
    """One instruction the reference agent understood."""

    kind: DirectiveKind
    argument: str | None  #: command, glob or document path as written (None for `verify`)
    source: str  #: repository-relative path of the file the directive came from
    line: int  #: 1-based line in that file
    text: str  #: the sentence it was read from, for reports


_CODE = re.compile(r"`([^`\n]+)`")
_SLOT = "\x00{}\x00"
_SLOT_RE = re.compile(r"\x00(\d+)\x00")
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\s+but\s+|\s+—\s+")
_NEGATION = re.compile(r"\b(?:never|do not|don't|must not|should not|may not|avoid)\b")
_RUN_VERB = re.compile(r"\b(?:run|runs|execute|invoke|call)\b")
_FORBID_VERB = re.compile(r"\b(?:run|runs|execute|invoke|call|use)\b")
_USE_FOR = re.compile(r"\buse\s+\x00\d+\x00\s+(?:to|for)\b")
_EDIT_VERB = re.compile(r"\b(?:edit|modify|change|touch|write to|delete|editing|modifying|changing|touching)\b")
_APPROVAL = re.compile(r"\bask\s+(?:for\s+|a\s+human\s+for\s+)?(?:approval|permission|confirmation)\s+before\b")
_READ = re.compile(r"\b(?:read|follow|consult|review)\b")
_TESTS = re.compile(r"\b(?:tests?|test suite|testing)\b")
_FINISHING = re.compile(
    r"\bbefore\s+(?:finishing|you\s+finish|handing\s+(?:off|over)|committing|you\s+commit|"
    r"submitting|you\s+are\s+done|opening\s+a\s+pull\s+request|declaring\s+(?:the\s+task\s+)?done)\b")
_BARE_DOC = re.compile(r"(?<![\w/.`-])((?:[\w-]+/)*[\w-]+\.(?:md|rst|txt))\b")


def _clauses(line: str) -> list[tuple[str, list[str]]]:
    """Split a line into clauses with backticked spans replaced by numbered slots."""
    codes: list[str] = []

    def slot(match: re.Match[str]) -> str:
        codes.append(match.group(1).strip())
        return _SLOT.format(len(codes) - 1)

    masked = _CODE.sub(slot, line)
    return [(c, codes) for c in _SENTENCE_END.split(masked) if c.strip()]


def _slots_after(clause: str, position: int, codes: list[str]) -> list[str]:
    return [codes[int(m.group(1))] for m in _SLOT_RE.finditer(clause, position)]


def _readable(clause: str, codes: list[str]) -> str:
    return _SLOT_RE.sub(lambda m: f"`{codes[int(m.group(1))]}`", clause).strip()


def _parse_clause(clause: str, codes: list[str]) -> list[tuple[DirectiveKind, str | None]]:
    low = clause.lower()
    approval = _APPROVAL.search(low)
    if approval:
        targets = _slots_after(low, approval.end(), codes)
        kind: DirectiveKind = "approve_edit" if _EDIT_VERB.search(low, approval.end()) else "approve_command"
        return [(kind, t) for t in targets]
    negation = _NEGATION.search(low)
    if negation:
        if verb := _FORBID_VERB.search(low, negation.end()):
            return [("forbid_command", t) for t in _slots_after(low, verb.end(), codes)]
        if verb := _EDIT_VERB.search(low, negation.end()):
            return [("protect_path", t) for t in _slots_after(low, verb.end(), codes)]
        return []  # a negated sentence never becomes a positive directive
    found: list[tuple[DirectiveKind, str | None]] = []
    if read := _READ.search(low):
        docs = [c for c in _slots_after(low, read.end(), codes) if _BARE_DOC.fullmatch(c)]
        docs += _BARE_DOC.findall(_SLOT_RE.sub(" ", clause[read.end():]))
        found += [("read", d) for d in dict.fromkeys(docs)]
        if found:
            return found
    commands: list[str] = []
    if verb := _RUN_VERB.search(low):
        commands = _slots_after(low, verb.end(), codes)
    elif use := _USE_FOR.search(low):
        commands = _slots_after(low, use.start(), codes)[:1]
    finishing = bool(_FINISHING.search(low))
    if commands and _TESTS.search(low):
        found.append(("test_command", commands[0]))
        found += [("run", c) for c in commands[1:]]
        if finishing:
            found.append(("verify", None))
    elif commands:
        found += [("run", c) for c in commands]
    elif finishing and _TESTS.search(low) and _RUN_VERB.search(low):
        found.append(("verify", None))
    return found


def parse(text: str, source: str) -> list[Directive]:
    """Every directive in `text`, in document order. Fenced code blocks are ignored."""
    directives: list[Directive] = []
    for line in markdown.lines(text):
        if line.in_code:
            continue
        prose = re.sub(r"^\s*(?:[-*+]|\d+[.)]|#+)\s*", "", line.text)
        for clause, codes in _clauses(prose):
            for kind, argument in _parse_clause(clause, codes):
                directives.append(Directive(kind, argument, source, line.number, _readable(clause, codes)))
    return directives
