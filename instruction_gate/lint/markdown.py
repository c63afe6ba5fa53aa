"""A small line-oriented Markdown reader: enough structure for lint rules and mutations.

Offsets are character offsets into the decoded text; lines are 1-based. Fenced code is
tracked so prose rules skip it while command rules can still read it.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from functools import lru_cache

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:\s+|$)")
_ITEM = re.compile(r"^(\s*)(?:[-*+]|\d{1,9}[.)])\s+")
#: A backtick run is taken whole (atomic, and never from its middle), as CommonMark reads it: a
#: backtracking run made a line of 20,000 backticks take minutes.
_CODE_SPAN = re.compile(r"(?<!`)((?>`+))(?!`)(.+?)(?<!`)\1(?!`)")
#: The label is at most 999 characters (CommonMark's limit) and the target holds no parenthesis: either
#: unbounded, `[x]([x]([x](…` or `[[[[…` would be rescanned to the end of the line from every `[`.
_LINK = re.compile(r"!?\[(?:[^\]\\]|\\.){0,999}\]\(\s*<?([^()\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_REFERENCE_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`*\"'(])")


@dataclass(frozen=True)
class Line:
    number: int  #: 1-based
    start: int  #: offset of the first character
    text: str  #: without the line break
    in_code: bool  #: inside a fenced block (fence lines included)


@dataclass(frozen=True)
class Block:
    """A heading, list item, paragraph or fenced code block."""

    kind: str  #: "heading", "item", "paragraph" or "code"
    start: int
    end: int  #: exclusive; includes the final line break
    line: int  #: line number of the first line
    level: int = 0  #: heading level (1-6) or item indentation


@dataclass(frozen=True)
class Section:
    """A heading and everything up to the next heading of the same or a higher level."""

    title: str
    level: int
    start: int
    end: int
    line: int


#: A line as git and GitHub count them: up to a line feed. (`str.splitlines` also breaks at a lone CR,
#: vertical tab, form feed and U+2028, and every finding after one would point a line too far.)
_PHYSICAL_LINE = re.compile(r"[^\n]*\n|[^\n]+$")


@lru_cache(maxsize=64)
def lines(text: str) -> tuple[Line, ...]:
    out: list[Line] = []
    offset, fence = 0, ""
    for number, raw in enumerate(_PHYSICAL_LINE.findall(text), start=1):
        body = raw.rstrip("\r\n")
        match = _FENCE.match(body)
        if fence:
            out.append(Line(number, offset, body, True))
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence) \
                    and not body.strip().strip(fence[0]):
                fence = ""
        else:
            if match:
                fence = match.group(1)
            out.append(Line(number, offset, body, bool(match)))
        offset += len(raw)
    return tuple(out)


def fence_languages(text: str) -> dict[int, str]:
    """Line number -> info word of the fenced block holding it (lower case; "" when none given),
    for every line inside a fence, fence lines included."""
    out: dict[int, str] = {}
    fence, language = "", ""
    for line in lines(text):
        if not line.in_code:
            fence = ""
            continue
        match = _FENCE.match(line.text)
        if not fence and match:
            fence = match.group(1)
            language = line.text[match.end():].strip().split(" ")[0].strip("{}.").lower()
        elif fence and match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence) \
                and not line.text.strip().strip(fence[0]):
            out[line.number] = language
            fence = ""
            continue
        out[line.number] = language
    return out


@lru_cache(maxsize=8)
def _newlines(text: str) -> list[int]:
    return [m.start() for m in re.finditer("\n", text)]


def line_of(text: str, offset: int) -> int:
    """1-based line number of a character offset (a binary search: rules ask once per finding
    or directive, and counting from the start each time made the lint quadratic)."""
    return bisect.bisect_left(_newlines(text), offset) + 1


def code_spans(line_text: str) -> list[tuple[int, str]]:
    """Inline code spans as (0-based column, content)."""
    return [(m.start(2), m.group(2).strip()) for m in _CODE_SPAN.finditer(line_text)]


def without_code_spans(line_text: str) -> str:
    """The line with code spans blanked out (same length, so columns stay valid)."""
    return _CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line_text)


def mask_in_code_spans(text: str, characters: str, fill: str = "_") -> str:
    """`text` with `characters` inside code spans replaced by `fill` (same length, offsets stay valid)."""
    table = str.maketrans(characters, fill * len(characters))
    return _CODE_SPAN.sub(lambda m: m.group(0).translate(table), text)


def links(line_text: str) -> list[tuple[int, str]]:
    """Link and image targets, plus reference definitions, as (0-based column, target)."""
    prose = without_code_spans(line_text)
    found = [(m.start(1), m.group(1)) for m in _LINK.finditer(prose)]
    definition = _REFERENCE_DEFINITION.match(prose)
    if definition and not prose.lstrip().startswith("[^"):  # `[^1]: text` is a footnote, not a link
        found.append((definition.start(1), definition.group(1)))
    return found


@lru_cache(maxsize=64)  # rules ask again for every reference; the text is the key, so results stay fresh
def blocks(text: str) -> tuple[Block, ...]:
    """Top-level structure; nested list items are blocks of their own."""
    out: list[Block] = []
    current: list = []  # [kind, start, line, level]

    def close(end: int) -> None:
        if current:
            out.append(Block(current[0], current[1], end, current[2], current[3]))
            current.clear()

    all_lines = lines(text)
    for line in all_lines:
        end_with_break = all_lines[line.number].start if line.number < len(all_lines) else len(text)
        if line.in_code:
            if not current or current[0] != "code":
                close(line.start)
                current[:] = ["code", line.start, line.number, 0]
            continue
        if current and current[0] == "code":
            close(line.start)
        if not line.text.strip():
            close(line.start)
            continue
        heading = _HEADING.match(line.text)
        item = _ITEM.match(line.text)
        if heading:
            close(line.start)
            out.append(Block("heading", line.start, end_with_break, line.number, len(heading.group(1))))
        elif item:
            close(line.start)
            current[:] = ["item", line.start, line.number, len(item.group(1))]
        elif not current:
            current[:] = ["paragraph", line.start, line.number, 0]
    close(len(text))
    return tuple(out)


def sections(text: str) -> list[Section]:
    heads = [b for b in blocks(text) if b.kind == "heading"]
    out = []
    for index, head in enumerate(heads):
        end = next((h.start for h in heads[index + 1:] if h.level <= head.level), len(text))
        title = text[head.start:head.end].strip().lstrip("#").strip()
        out.append(Section(title, head.level, head.start, end, head.line))
    return out


@lru_cache(maxsize=256)  # an operator asks once per directive in the block: cached, a long block stays linear
def sentences(text: str, start: int, end: int) -> tuple[tuple[int, int], ...]:
    """Sentence spans (offsets) inside a paragraph; each span keeps its trailing space. A full
    stop inside a code span (`git commit -m "Fix. Add"`) ends no sentence."""
    spans, cursor = [], start
    for match in _SENTENCE_END.finditer(mask_in_code_spans(text[start:end], ".!?")):
        spans.append((cursor, start + match.end()))
        cursor = start + match.end()
    spans.append((cursor, end))
    return tuple((a, b) for a, b in spans if text[a:b].strip())
