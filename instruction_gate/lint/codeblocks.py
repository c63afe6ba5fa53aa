"""Code blocks of a Markdown file as CommonMark reads them: fenced and indented.

`markdown.lines` marks only fences indented at most three spaces, which is what the lint needs. An
edit must also keep clear of a fence nested deeper in a list item and of a four-space indented
block, so mutation operators ask here: one answer for every operator on where code is.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from functools import lru_cache

from instruction_gate.lint import markdown
from instruction_gate.lint.references import CODE_LANGUAGES

#: A fence of any indentation: deeper than three spaces it opens a fence inside a list item, and
#: outside a list the line is indented code anyway. A backtick fence's info has no backtick.
_OPEN = re.compile(r"^\s*(`{3,}(?!.*`)|~{3,})(.*)$")
_ITEM = re.compile(r"^\s{0,3}(?:[-*+]|\d{1,9}[.)])(?:\s|$)")
_HEADING = re.compile(r"^ {0,3}#{1,6}(?:\s|$)")
#: Box-drawing characters: a directory tree or diagram, a picture of structure and not commands.
_DRAWING = re.compile("[\u2500-\u257f]")


@dataclass(frozen=True)
class CodeBlock:
    start: int  #: offset of the first line (the opening fence, when fenced)
    end: int  #: exclusive, after the last line's break
    first_line: int
    last_line: int
    language: str  #: the fence's info word, lower case; "" when none or indented
    fenced: bool

    def holds(self, start: int, end: int) -> bool:
        """Whether the span [start, end) touches this block."""
        return start < self.end and self.start < max(end, start + 1)


def _indent(text: str) -> int:
    return len(text.expandtabs(4)) - len(text.expandtabs(4).lstrip())


@lru_cache(maxsize=64)
def code_blocks(text: str) -> tuple[CodeBlock, ...]:
    """Every fenced and indented code block, in order. An indented block starts after a blank
    line (it cannot interrupt a paragraph) outside a list (there indentation continues an item)."""
    lines = markdown.lines(text)
    ends = [ln.start for ln in lines[1:]] + [len(text)]
    out: list[CodeBlock] = []
    fence, language, first, indented = "", "", 0, False
    blank_before, in_list = True, False
    for index, line in enumerate(lines):
        body = line.text
        if fence:
            stripped = body.strip()
            if stripped.startswith(fence[0] * len(fence)) and not stripped.strip(fence[0]):
                out.append(CodeBlock(lines[first].start, ends[index], first + 1, index + 1, language, True))
                fence = ""
            continue  # blank_before stays True: a block may follow a closed fence directly
        if indented and body.strip() and _indent(body) < 4:
            last = max(i for i in range(first, index) if lines[i].text.strip())
            out.append(CodeBlock(lines[first].start, ends[last], first + 1, last + 1, "", False))
            indented = False
        opening = _OPEN.match(body)
        if not indented and body.strip() and _indent(body) >= 4 and blank_before and not in_list:
            indented, first = True, index
        elif opening and not indented:
            fence, first = opening.group(1), index
            language = opening.group(2).strip().split(" ")[0].strip("{}.").lower()
            blank_before = True  # what follows the fence may open a block of its own
            continue
        if body.strip() and not indented:
            if _ITEM.match(body):
                in_list = True
            elif _HEADING.match(body) or (blank_before and _indent(body) < 2):
                in_list = False
        blank_before = not body.strip()
    if fence:  # unclosed: code runs to the end of the file
        out.append(CodeBlock(lines[first].start, len(text), first + 1, len(lines), language, True))
    elif indented:
        last = max(i for i in range(first, len(lines)) if lines[i].text.strip())
        out.append(CodeBlock(lines[first].start, ends[last], first + 1, last + 1, "", False))
    return tuple(out)


def in_code(text: str, start: int, end: int | None = None) -> bool:
    """Whether the span [start, end) (or the offset `start`) touches a code block.

    A binary search: operators ask once per rule, and scanning every block each time made them
    quadratic on a long file. Blocks are in order and never overlap, so only the last one that
    starts before the span ends can touch it."""
    blocks = code_blocks(text)
    stop = max(start + 1 if end is None else end, start + 1)
    before = bisect.bisect_left(_block_starts(text), stop)
    return before > 0 and blocks[before - 1].holds(start, stop)


@lru_cache(maxsize=64)
def _block_starts(text: str) -> list[int]:
    return [block.start for block in code_blocks(text)]


def is_example(text: str, block: CodeBlock) -> bool:
    """Whether the block shows code rather than commands to run: a programming language's code,
    or a tree or diagram drawn with box-drawing characters (a picture of a directory layout)."""
    return block.language in CODE_LANGUAGES or bool(_DRAWING.search(text, block.start, block.end))


def not_commands(text: str) -> frozenset[int]:
    """Line numbers where a reference found in code is no command to run: inside code examples
    (see `is_example`), and inside code that `markdown.lines` reads as prose (an indented block, a
    fence nested deeper than three spaces), where a backtick is a literal, not a code span."""
    fenced = {line.number for line in markdown.lines(text) if line.in_code}
    return frozenset(n for b in code_blocks(text) for n in range(b.first_line, b.last_line + 1)
                     if is_example(text, b) or n not in fenced)
