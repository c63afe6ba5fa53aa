"""Clauses of a block's text, with backticked spans replaced by numbered slots, and the slot lists in them."""

from __future__ import annotations

import re

from instruction_gate.reference_agent.phrases import CODE, GAP_STOP, GAP_WORD, SENTENCE_END, SLOT, SLOT_RE


def object_gap(gap: str) -> bool:
    words = GAP_WORD.findall(gap)
    return len(words) <= 6 and not (set(words) & GAP_STOP) and "".join(GAP_WORD.sub("", gap).split()) == ""


_NOTE = re.compile(r"^\s*\([^()\x00]{1,40}\)")
_LIST_JOIN = re.compile(r"^\s*(?:,|and|or|nor|&|then|plus|\+|/|,\s*and|,\s*or|,\s*then)?\s*$")


def split(text: str) -> list[tuple[str, list[str]]]:
    """Split text into clauses with backticked spans replaced by numbered slots."""
    codes: list[str] = []

    def slot(match: re.Match[str]) -> str:
        codes.append(match.group(1).strip())
        return SLOT.format(len(codes) - 1)

    masked = CODE.sub(slot, text)
    return [(c, codes) for c in SENTENCE_END.split(masked) if c and c.strip()]


def slot_list(low: str, position: int, codes: list[str], alternatives: bool = True) -> list[str]:
    """The command slots right after `position`: a list joined by commas/and/then, nothing else. Without
    `alternatives`, "`X` or `Y`" is one command said two ways: only the first is kept."""
    found, cursor = [], position
    for match in SLOT_RE.finditer(low, position):
        gap = low[cursor:match.start()]
        # "`pnpm run lint` (SwiftLint), `pnpm run format`": a note on the item before does not end the list
        if not (object_gap(gap) if not found else _LIST_JOIN.match(_NOTE.sub(" ", gap))):
            break
        if found and not alternatives and re.search(r"\bor\b", gap):
            break
        found.append(codes[int(match.group(1))])
        cursor = match.end()
    return found


def slots_after(clause: str, position: int, codes: list[str]) -> list[str]:
    return [codes[int(m.group(1))] for m in SLOT_RE.finditer(clause, position)]


def readable(clause: str, codes: list[str]) -> str:
    return SLOT_RE.sub(lambda m: f"`{codes[int(m.group(1))]}`", clause).strip()


def located(text: str) -> list[tuple[str, list[str], int]]:
    """`split` of a block's joined text, each with the offset in `text` where it starts."""
    result, position = [], 0
    for clause, codes in split(text):
        said = readable(clause, codes)
        found = text.find(said[:20], position) if said else -1
        offset = found if found >= 0 else position
        result.append((clause, codes, offset))
        position = max(position, offset + 1)  # a clause said again on the next line starts past this one
    return result
