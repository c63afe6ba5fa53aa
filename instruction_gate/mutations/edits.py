"""Operators that alter content: truncate the tail, make a command stale, add a contradiction."""

from __future__ import annotations

import bisect
import re
from typing import Iterator

from instruction_gate.agents.scoped_rules import blank_front_matter
from instruction_gate.lint import codeblocks, markdown
from instruction_gate.lint.directives import directives
from instruction_gate.lint.references import references
from instruction_gate.mutations.clauses import whole_clause
from instruction_gate.mutations.model import Files, Mutant, TextEdit, decode, snippet, splice
from instruction_gate.mutations.structure import rule_spans

#: Prefix that turns a referenced command into one that does not exist. A prefix, not a suffix:
#: `test-renamed` would still match a task's required-command pattern `make test`.
STALE_PREFIX = "renamed-"
_ITEM_MARKER = re.compile(r"^(\s*(?:[-*+]|\d{1,9}[.)])\s+)")


def truncate_tail(files: Files, offset: int | None = None) -> Iterator[Mutant]:
    """Cut each file at byte `offset` (e.g. an agent's cap, 32 KiB for Codex), as that agent
    would; without an offset, cut in the middle at a line start. Files not longer than the
    offset are left alone (no mutant)."""
    for path, data in sorted(files.items()):
        cut = offset if offset is not None else _middle_line_start(data)
        if cut is None or len(data) <= cut:
            continue
        kept, lost = data[:cut], decode(data[cut:])
        line = kept.count(b"\n") + 1
        first_rule = next((snippet(lost[s:e]) for s, e, _ in rule_spans(lost)), snippet(lost))
        yield Mutant(f"truncate:{path}:{cut}", "truncate",
                     f"cut {path} after byte {cut} (line {line}): {len(data) - cut} bytes lost",
                     first_rule, {path: kept}, path, line)


def _middle_line_start(data: bytes) -> int | None:
    """The line start after the middle, moved back to the start of a code block it falls in: a
    cut of our choosing never leaves half an example (an agent's cap, given as offset, may)."""
    newline = data.find(b"\n", len(data) // 2)
    if not 0 <= newline < len(data) - 1:
        return None
    text = decode(data)
    if text.encode() != data:
        return newline + 1  # not UTF-8: character offsets would not map back to bytes
    at = len(data[:newline + 1].decode())  # the cut in characters, as code blocks count
    block = next((b for b in codeblocks.code_blocks(text) if b.start < at < b.end), None)
    return (len(text[:block.start].encode()) or None) if block else newline + 1


def stale_command(files: Files) -> Iterator[Mutant]:
    """Rename one referenced command (make target, script, tox env, nox session, script path)
    everywhere in its file, so the instructions point to something that does not exist. Code
    examples (a program's code, a drawn directory tree) are left as written: they show, not instruct."""
    for path, data in sorted(files.items()):
        text = decode(data)
        groups: dict[tuple[str, str], list] = {}
        skipped = codeblocks.not_commands(text)
        for ref in (r for r in references(blank_front_matter(text)) if r.line not in skipped):
            groups.setdefault((ref.kind, ref.name), []).append(ref)
        line_starts = {ln.number: ln.start for ln in markdown.lines(text)}
        for (kind, name), refs in groups.items():
            renamed = _stale_name(kind, name)
            splices: list[tuple[int, int, str]] = []
            for at in sorted({line_starts[ref.line] + ref.column for ref in refs}):
                if text.startswith(name, at) and (not splices or at >= splices[-1][1]):
                    splices.append((at, at + len(name), renamed))
            if not splices:
                continue
            first = refs[0]
            yield Mutant(f"stale-command:{path}:{kind}:{name}", "stale-command",
                         f"renamed {kind} `{name}` to `{renamed}` in {path}", _line(text, first.line),
                         {path: TextEdit(text, tuple(splices))}, path, first.line)


def _stale_name(kind: str, name: str) -> str:
    """`test` -> `renamed-test`; a path's last segment only: `scripts/check.sh` ->
    `scripts/renamed-check.sh` (directory and extension kept)."""
    if kind != "path":
        return STALE_PREFIX + name
    stripped = name.rstrip("/")
    directory, slash, last = stripped.rpartition("/")
    return f"{directory}{slash}{STALE_PREFIX}{last}{name[len(stripped):]}"


def _line(text: str, number: int) -> str:
    return snippet(markdown.lines(text)[number - 1].text)


_OPPOSITE = {True: "Never", False: "Always"}
#: "Avoid adding new `# noqa` comments": a rule about a gerund, whose opposite "Always adding …" is
#: no sentence; "Prefer adding …" is, and says the opposite.
_GERUND_OPPOSITE = {True: "Avoid", False: "Prefer"}
_GERUND = re.compile(r"[a-z]{2,}ing\b")


def _opposite(positive: bool, action: str) -> str:
    return (_GERUND_OPPOSITE if _GERUND.match(action) else _OPPOSITE)[positive]


def contradiction(files: Files) -> Iterator[Mutant]:
    """After each always/never directive, insert the opposite directive about the same action.

    The opposite goes after the whole block holding the directive, in that block's own form: an
    item of the same list (its marker and indentation, even when the directive sits on a
    continuation line), or a sentence of the same paragraph. A directive whose action says nothing
    outside code spans ("Always `test_parse_dates`." in a naming example) is no rule to invert, and
    neither is one that is no whole clause (see `whole_clause`); nothing is inserted into code.
    """
    for path, data in sorted(files.items()):
        text = decode(data)
        lines, blocks = markdown.lines(text), _Blocks(blank_front_matter(text))
        for directive in directives(text):
            block = blocks.holding(directive.line)
            if block is None or block.kind not in ("item", "paragraph") or \
                    codeblocks.in_code(text, block.start, block.end):
                continue
            sentence = blocks.sentence_start(block, directive.start)
            action = whole_clause(text[sentence:directive.start], directive.raw_action,
                                  text[directive.start:directive.end])
            if action is None or not _WORD.search(markdown.without_code_spans(action)):
                continue
            marker = _ITEM_MARKER.match(lines[block.line - 1].text) if block.kind == "item" else None
            action = action[:1].lower() + action[1:]  # an imperative's verb follows the new marker word
            inserted = f"{marker.group(1) if marker else ''}{_opposite(directive.positive, action)} {action}.\n"
            at = block.end
            inserted_at = ("" if at == 0 or text[at - 1] == "\n" else "\n") + inserted
            yield Mutant(f"contradiction:{path}:{directive.line}:{directive.column}", "contradiction",
                         f"inserted \"{inserted.strip()}\" after {path}:{directive.line}",
                         snippet(text[directive.start:directive.end]), {path: splice(text, at, at, inserted_at)},
                         path, directive.line)


#: A word of prose: an action made only of code spans and punctuation says nothing to invert.
_WORD = re.compile(r"[A-Za-z]{2,}")


class _Blocks:
    """The blocks of one text, found by line in a binary search: scanning every block (and every
    sentence of a long one) for every directive made the operator quadratic."""

    def __init__(self, text: str):
        self.text, self.blocks = text, markdown.blocks(text)
        self.first_lines = [block.line for block in self.blocks]
        self._sentence_starts: dict[int, list[int]] = {}

    def holding(self, line_number: int) -> markdown.Block | None:
        """The block (item, paragraph, heading or code) holding a line. Blocks are in order and
        do not overlap: only the last one starting at or before the line can hold it."""
        index = bisect.bisect_right(self.first_lines, line_number) - 1
        if index < 0:
            return None
        block = self.blocks[index]
        return block if line_number <= markdown.line_of(self.text, max(block.start, block.end - 1)) else None

    def sentence_start(self, block: markdown.Block, offset: int) -> int:
        """Where the sentence of `block` holding `offset` starts."""
        starts = self._sentence_starts.get(block.start)
        if starts is None:
            starts = self._sentence_starts[block.start] = [
                a for a, _ in markdown.sentences(self.text, block.start, block.end)]
        index = bisect.bisect_right(starts, offset) - 1
        return starts[index] if index >= 0 else block.start
