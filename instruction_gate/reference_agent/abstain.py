"""Lines that look like instructions but gave the reference agent no directive: "not understood".

The grammar acts only on forms it recognises with confidence and abstains on the rest. So that a
user sees what the offline agent will ignore as well as what it will do, every other line of a
loaded file that looks like an instruction is listed with its line and what made it look so:

- a sentence or list item opening with a verb in the imperative ("Add a test for …", "Prefer …"),
  or holding a requirement word (must, never, always, should, do not, required, …);
- a command in a code span, a fenced block or a table that no directive was read from.

The detector is deliberately plain (a verb list and a few words) and cheap (one pass over blocks
already split by the grammar's own reader). Headings, prose without imperative force, code
examples and a lead whose block below was read are not listed.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from instruction_gate.lint import markdown
from instruction_gate.lint.references import CODE_LANGUAGES
from instruction_gate.reference_agent import clauses
from instruction_gate.reference_agent.blocks import split_comment
from instruction_gate.reference_agent.command_text import is_command
from instruction_gate.reference_agent.directives import Directive, block_prose
from instruction_gate.reference_agent.phrases import CODE, DESCRIPTIVE_START, SLOT_RE


@dataclass(frozen=True)
class Unread:
    """An instruction-looking line the reference agent took no directive from."""

    source: str  #: repository-relative path of the file
    line: int  #: 1-based line in that file
    text: str  #: the sentence (or command) as written, capped for reports
    why: str  #: what made it look like an instruction ("starts with `add`", "says `must`", "a command in a code block")


#: Verbs that open an order whatever follows them.
_ORDER_VERBS = frozenset("""
    run use add avoid keep ensure follow read write prefer install create call put place include remove delete
    edit modify mention ask verify validate fix execute make do never always try consider review refer import wrap
    leave let define declare implement apply move rename reuse restart regenerate generate stage squash rebase
    describe explain return throw raise handle pass bump pin upgrade downgrade type-check typecheck confirm submit
    cite annotate assert search grep inspect examine respect honor honour preserve maintain stick favor favour
    aim strive refrain skip ignore omit disable enable configure wait extract update please remember note
    don't dont
""".split())
#: Verbs that are as often nouns ("Build output goes to `dist/`", "Test files live in `tests/`"): an order
#: only when an object or an adverb follows ("Build the docs", "Test with `X`", "Commit often").
_NOUN_VERBS = frozenset("""
    build test format check change set start stop lint commit push open document log name store cache mock stub
    report match mirror target support sort group split link tag sign mark clean compile bundle deploy publish
    release copy replace merge drop limit comment look
""".split())
_OBJECT_NEXT = re.compile(r"^(?:the|a|an|all|any|every|each|your|this|these|those|it|them|new|existing|only|with|"
                          r"\x00\d+\x00|before|after|locally|first|again|often|up|out|down|back|off|on|in|against|"
                          r"using|via|from|to|that|every|one|both|early|small|changes?|code|files?|tests?|everything)\b")
#: Words that state a requirement anywhere in a sentence.
_REQUIREMENT = re.compile(r"\b(?:must(?:\s+not)?|mustn't|never|always|should(?:\s+not)?|shouldn't|do\s+not|don't|"
                          r"required|requires|mandatory|need\s+to|needs\s+to|have\s+to|has\s+to|make\s+sure|be\s+sure|"
                          r"is\s+not\s+allowed|are\s+not\s+allowed|forbidden|prohibited)\b")
#: What may stand before the verb: a label ("**Tests:**"), a checkbox, "and then", a condition closed by a comma.
_OPENING = re.compile(r"^[\W_]*(?:\[[ xX]\]\s*)?(?:[\w /()'-]{1,40}?:\s+(?=\S))?(?:(?:and|then|also|first|finally|next|now|"
                      r"so|just)\s+)*(?:(?:if|when|whenever|before|after|once|while|for|to)\b[^,:]{0,80}[,:]\s*)?")
#: A sentence about the commands it names, not an order: "The CLI runs `X`", "`tox` and `tox-uv` are declared …".
_DESCRIBED = re.compile(rf"{DESCRIPTIVE_START.pattern}|^\W*(?:\x00\d+\x00[\s+,/&]*(?:and\s+|or\s+)?)+"
                        r"(?:is|are|was|were|has|have|gets?|lives?|comes?|ships?)\b"
                        r"|^\W*(?:[\w-]+\s+){1,3}(?:runs|uses|executes|checks|calls|invokes|installs|builds|lints)\s")
_WORD = re.compile(r"[a-z][a-z'-]*")
_TEXT_CAP = 200


def _why(low: str) -> str | None:
    """Why a lower-cased clause (code spans as slots) looks like an instruction, or None."""
    rest = low[_OPENING.match(low).end():]
    if (word := _WORD.match(rest)) is not None:
        verb = word.group()
        after = rest[word.end():].lstrip(" *_")
        if verb in _ORDER_VERBS or (verb in _NOUN_VERBS and (not after or _OBJECT_NEXT.match(after))):
            return f"starts with `{verb}`"
    if requirement := _REQUIREMENT.search(SLOT_RE.sub(" ", low)):
        return f"says `{requirement.group()}`"
    return None


def _capped(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _TEXT_CAP else text[:_TEXT_CAP - 1] + "…"


def not_understood(text: str, source: str, directives: list[Directive]) -> list[Unread]:
    """The instruction-looking lines of `text` (a file as the grammar reads it) that no directive of
    `directives` (those read from it) stands on, one per line, in order."""
    taken = {d.line for d in directives if d.source == source}
    all_lines = markdown.lines(text)
    found: dict[int, Unread] = {}
    blocks = markdown.blocks(text)
    line_starts = [line.start for line in all_lines]
    # each block's last line, by a search of this text's own line starts (one pass, no cache lookups of the text)
    lasts = [bisect.bisect_right(line_starts, max(b.start, b.end - 1)) for b in blocks]
    leads_read = _leads_read(blocks, lasts, taken)
    for index, block in enumerate(blocks):
        last = lasts[index]
        if block.kind == "heading":
            continue
        if block.kind == "code":
            _code_lines(text, block, source, taken, found)
            continue
        block_lines = all_lines[block.line - 1:last]
        if text[block.start:block.end].lstrip().startswith("|"):
            _table_rows(block_lines, source, taken, found)
            continue
        if block_lines[0].text.lstrip().startswith("<"):
            continue  # an HTML block or comment: markup, not prose an agent is told
        joined, starts = block_prose(block_lines)
        located = clauses.located(joined)
        led = leads_read[index]
        for position, (clause, codes, offset) in enumerate(located):
            first = bisect.bisect_right(starts, offset) - 1
            end = located[position + 1][2] if position + 1 < len(located) else len(joined)
            through = max(first, bisect.bisect_right(starts, max(offset, end - 1)) - 1)
            numbers = [block_lines[i].number for i in range(first, through + 1)]
            if taken.intersection(numbers) or numbers[0] in found:
                continue
            low = clause.lower()
            if led and position == len(located) - 1 and low.rstrip(" *_").endswith(":"):
                continue  # "Run these before committing:" over a block the grammar read
            why = _why(low)
            if why is None and not _DESCRIBED.match(low) and \
                    any(is_command(codes[int(m.group(1))]) for m in SLOT_RE.finditer(clause)):
                why = "a command in a code span"
            if why is not None:
                found[numbers[0]] = Unread(source, numbers[0], _capped(clauses.readable(clause, codes)), why)
    return [found[number] for number in sorted(found)]


def _leads_read(blocks, lasts: list[int], taken: set[int]) -> list[bool]:
    """Per block, whether the fenced block or the run of list items right after it gave a directive
    (then its lead was understood). One backward pass: a file of many blocks stays linear."""
    gave = [bool(taken.intersection(range(b.line, last + 1))) for b, last in zip(blocks, lasts)]
    run = gave[:]  # an item: it or any item after it in the same run gave one
    for index in range(len(blocks) - 2, -1, -1):
        if blocks[index].kind == "item" and blocks[index + 1].kind == "item":
            run[index] = run[index] or run[index + 1]
    return [index + 1 < len(blocks) and (run[index + 1] if blocks[index + 1].kind == "item" else
                                          blocks[index + 1].kind == "code" and gave[index + 1])
            for index in range(len(blocks))]


def _code_lines(text: str, block: markdown.Block, source: str, taken: set[int], found: dict[int, Unread]) -> None:
    """Command lines of a fenced block (not a code example) that gave no directive."""
    body = text[block.start:block.end]
    if markdown.fence_languages(body).get(1) in CODE_LANGUAGES:
        return  # a code example, not commands
    for line in markdown.lines(body):
        stripped = line.text.strip()
        if not stripped or stripped.startswith(("```", "~~~", "#", "//")):
            continue
        command, _ = split_comment(stripped.removeprefix("$ "))
        number = block.line + line.number - 1
        if number not in taken and is_command(command):
            found[number] = Unread(source, number, _capped(command), "a command in a code block")


def _table_rows(block_lines, source: str, taken: set[int], found: dict[int, Unread]) -> None:
    """Table rows naming a command that gave no directive."""
    for line in block_lines[2:]:
        commands = [c.group(1).strip() for c in CODE.finditer(line.text) if is_command(c.group(1).strip())]
        if commands and line.number not in taken:
            found[line.number] = Unread(source, line.number, _capped(line.text.strip()), "a command in a table")
