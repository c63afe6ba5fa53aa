"""IG008 text hidden from rendered views, and IG009 invisible or bidirectional characters.

A reviewer reads the rendered Markdown; the agent reads the raw bytes. Anything only the
agent can see is a place to smuggle instructions past review.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from typing import Iterator

from instruction_gate.lint import markdown
from instruction_gate.lint.context import LintContext
from instruction_gate.lint.directives import directives
from instruction_gate.lint.model import Finding

_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
_HIDDEN_ELEMENT = re.compile(r"<[a-zA-Z][^>]*(?:\shidden(?:[\s=>/])|display\s*:\s*none|visibility\s*:\s*hidden"
                             r"|font-size\s*:\s*0)[^>]*>", re.IGNORECASE)
_COMMENT_LINK = re.compile(r"^ {0,3}\[(?://|comment|_)\]:\s*(?:#|<>)\s*(.*)$", re.IGNORECASE)

#: Bidirectional controls (Trojan Source) and characters that render as nothing.
_BIDI = set(range(0x202A, 0x202F)) | set(range(0x2066, 0x206A)) | {0x200E, 0x200F, 0x061C}
_INVISIBLE = {0x00AD, 0x034F, 0x180E, 0x200B, 0x200C, 0x200D, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064,
              0xFEFF, 0x115F, 0x1160, 0x3164, 0xFFA0}
_TAGS = range(0xE0000, 0xE0080)  # Unicode tag characters can spell whole hidden sentences


def _kind(code: int) -> str | None:
    if code in _BIDI:
        return "bidirectional control"
    if code in _INVISIBLE or 0xFE00 <= code <= 0xFE0F:
        return "invisible character"
    if code in _TAGS:
        return "Unicode tag character"
    # ESC (terminal escape sequences such as `ESC[8m` conceal text), backspace and a carriage return
    # inside a line overwrite what a terminal shows; tab and line breaks are layout
    # (a CR ending a CRLF line is stripped with the line end; one left inside a line is a lone CR)
    if (code < 0x20 and code not in (0x09, 0x0A)) or code == 0x7F or 0x80 <= code <= 0x9F or code in (0x2028, 0x2029):
        return "control character"
    return None


def _emoji_base(char: str) -> bool:
    """A pictograph or symbol an emoji presentation sequence may follow (or a keycap's 0-9 # *)."""
    return char in "0123456789#*" or (ord(char) >= 0x2000 and unicodedata.category(char)[0] in "SM")


def _part_of_an_emoji(text: str, index: int) -> bool:
    """Variation selectors, joiners and flag tags that build a visible emoji are not hidden text:
    ⚠️ is U+26A0 U+FE0F, 👩‍💻 joins two pictographs with U+200D, a subdivision flag spells its
    region in tag characters after U+1F3F4."""
    code = ord(text[index])
    before = text[index - 1] if index else ""
    if code in (0xFE0E, 0xFE0F):
        return bool(before) and _emoji_base(before)
    if code == 0x200D:
        after = text[index + 1] if index + 1 < len(text) else ""
        return bool(before and after) and (_emoji_base(before) or ord(before) in (0xFE0F, *range(0x1F3FB, 0x1F400))) \
            and _emoji_base(after)
    if code in _TAGS:
        start = index
        while start and ord(text[start - 1]) in _TAGS:
            start -= 1
        end = index
        while end + 1 < len(text) and ord(text[end + 1]) in _TAGS:
            end += 1
        return start > 0 and ord(text[start - 1]) == 0x1F3F4 and ord(text[end]) == 0xE007F and end - start < 7
    return False


#: Words of text written for the agent: commands, links, or talk of instructions and roles.
_ADDRESSING = re.compile(r"`|https?://|~/|/etc/|\.ssh|\b(?:you|your|agent|assistant|ai|llm|model|"
                         r"ignore\s+(?:all|any|previous|prior|the|these|above|earlier|your)|instructions?|"
                         r"prompt|system|execute|run|always|never|must|do not|don't|secrets?|tokens?|keys?|passwords?|"
                         r"credentials?|upload|send|post|curl|wget|download|delete|remove|push|exfiltrate)\b",
                         re.IGNORECASE)


def _addresses_the_agent(body: str) -> bool:
    """A comment that could steer an agent: it gives a directive, names a command or link, or
    speaks to the agent. Tag-like markers and bare metadata cannot, so they are not findings."""
    return bool(body.strip()) and (bool(directives(body)) or bool(_ADDRESSING.search(body)))


def check_hidden(ctx: LintContext) -> Iterator[Finding]:
    for source, text in sorted(ctx.texts.items()):
        code_lines = {ln.number for ln in markdown.lines(text) if ln.in_code}
        # `<!--frsh:island-->` in a code span renders as written: it shows a marker, it hides nothing
        for match in _COMMENT.finditer(markdown.mask_in_code_spans(text, "<")):
            number = markdown.line_of(text, match.start())
            body = match.group(0)[4:].removesuffix("-->")
            if number in code_lines or not _addresses_the_agent(body):
                continue  # markers and metadata (`<!-- rule:232 -->`, `<!-- toc -->`) hide no instruction
            snippet = " ".join(match.group(0)[4:].removesuffix("-->").split())[:60]
            yield Finding("IG008", source, number,
                          f"HTML comment hidden from the rendered file but read by the agent: \"{snippet}\".",
                          f"comment:{snippet}")
        for line in markdown.lines(text):
            if line.in_code:
                continue
            for pattern, what in ((_HIDDEN_ELEMENT, "hidden HTML element"), (_COMMENT_LINK, "comment-style link")):
                match = pattern.search(line.text)
                if match:
                    yield Finding("IG008", source, line.number,
                                  f"{what.capitalize()} hides text from the rendered file but not from the agent.",
                                  f"{what}:{line.text.strip()[:80]}", match.start() + 1)


def hidden_characters(lines: tuple[markdown.Line, ...]) -> Iterator[tuple[int, list[tuple[int, str]]]]:
    """(line number, [(column, character)]) of each line holding characters a reviewer cannot see."""
    for line in lines:
        if line.number == 1 and line.text.startswith("\ufeff"):
            line_text = " " + line.text[1:]  # a leading byte-order mark is harmless
        else:
            line_text = line.text
        found = [(i, ch) for i, ch in enumerate(line_text) if _kind(ord(ch)) and not _part_of_an_emoji(line_text, i)]
        if found:
            yield line.number, found


def check_unicode(ctx: LintContext) -> Iterator[Finding]:
    for source, text in sorted(ctx.texts.items()):
        lines = markdown.lines(text)
        for number, found in hidden_characters(lines):
            yield Finding("IG009", source, number, _unicode_message([c for _, c in found]),
                          f"unicode:{lines[number - 1].text.strip()}", found[0][0] + 1)


#: Distinct characters named in one IG009 message; the others are counted.
_NAMED = 6


def _unicode_message(chars: list[str]) -> str:
    """Every character counted, and the count adds up: each named kind with its own count, the
    rest as a number (five characters are never reported under four names)."""
    counts = Counter(chars)  # in the order they first appear on the line
    kinds = list(dict.fromkeys(_kind(ord(c)) or "control character" for c in chars))
    what = f"{kinds[0]}(s)" if len(kinds) == 1 else f"hidden character(s) ({', '.join(kinds)})"
    named = [(c, n) for c, n in counts.items()][:_NAMED]
    parts = [f"U+{ord(c):04X} {unicodedata.name(c, _kind(ord(c)) or 'control character')}" + (f" ×{n}" if n > 1 else "")
             for c, n in named]
    rest = len(chars) - sum(n for _, n in named)
    if rest:
        parts.append(f"and {rest} more ({len(counts) - len(named)} distinct)")
    return f"{len(chars)} {what} that reviewers cannot see: {', '.join(parts)}."
