"""Emphasis markers taken out of Markdown prose, the way a reader sees the words.

"**Always** run `make test`", "Do **not** edit `dist/`" and "_Never_ push" say what they say
without the stars: the grammar reads the plain words. Delimiter runs follow CommonMark's
flanking rules (an underscore inside a word, as in `snake_case`, is no emphasis; a star between
spaces is a star), openers and closers pair up like brackets, and a pair is taken out only
around words: `**/*.md` written bare keeps its stars, and so does a label ("**Build:** `X`"), whose
emphasis says it names a command rather than orders it. Code spans are left as written.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass

_CODE_SPAN = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)")
_RUN = re.compile(r"\*+|_+")
_WORD = re.compile(r"\w+")


@dataclass
class _Run:
    lo: int  #: the first delimiter of the run not yet paired (a closer pairs from its start)
    hi: int  #: one past the last one not yet paired (an opener pairs from its end)
    char: str
    can_open: bool
    can_close: bool


def _kind(ch: str) -> str:
    if not ch or ch.isspace():
        return "space"
    return "word" if ch.isalnum() else "punct"


def _runs(text: str) -> list[_Run]:
    code = [m.span() for m in _CODE_SPAN.finditer(text)]
    code_starts = [start for start, _ in code]
    found = []
    for match in _RUN.finditer(text):
        inside = bisect.bisect_right(code_starts, match.start()) - 1
        if inside >= 0 and match.start() < code[inside][1]:
            continue
        before = _kind(text[match.start() - 1] if match.start() else "")
        after = _kind(text[match.end()] if match.end() < len(text) else "")
        left = after != "space" and (after != "punct" or before != "word")
        right = before != "space" and (before != "punct" or after != "word")
        if match.group()[0] == "_":  # "snake_case": an underscore between letters is part of the word
            can_open, can_close = left and (not right or before == "punct"), right and (not left or after == "punct")
            # "__init__.py" written bare is a file name to the agent reading the raw text
            can_close = can_close and not re.match(r"\.\w", text[match.end():match.end() + 2])
        else:
            can_open, can_close = left, right
        found.append(_Run(match.start(), match.end(), match.group()[0], can_open, can_close))
    return found


def strip(text: str) -> tuple[str, Sequence[int]]:
    """`text` without its emphasis markers, and for each kept character its offset in `text`.

    Linear in the text: each delimiter pairs at most once, with the nearest opener of its kind."""
    runs = _runs(text) if "*" in text or "_" in text else []
    if not runs:
        return text, range(len(text))
    removed = bytearray(len(text))
    words = [m.span() for m in _WORD.finditer(text)]
    word_starts, word_ends = [a for a, _ in words], [b for _, b in words]
    openers: dict[str, list[_Run]] = {"*": [], "_": []}
    for run in runs:
        stack = openers[run.char]
        while run.can_close and run.lo < run.hi and stack:
            opener = stack[-1]
            last = bisect.bisect_left(word_starts, run.lo) - 1  # the last word starting before the closer
            if last < 0 or word_ends[last] <= opener.hi or text[run.lo - 1] == ":" or text[run.hi:run.hi + 1] == ":":
                break  # "**/*": stars around no word are no emphasis; "**Test:** `X`" is a label, kept as written
            n = 2 if run.hi - run.lo >= 2 and opener.hi - opener.lo >= 2 else 1
            removed[opener.hi - n:opener.hi] = b"\x01" * n
            removed[run.lo:run.lo + n] = b"\x01" * n
            opener.hi -= n
            run.lo += n
            if opener.lo == opener.hi:
                stack.pop()
        if run.can_open and run.lo < run.hi:
            stack.append(run)
    if not any(removed):
        return text, range(len(text))
    kept = [i for i, gone in enumerate(removed) if not gone]
    return "".join(text[i] for i in kept), kept
