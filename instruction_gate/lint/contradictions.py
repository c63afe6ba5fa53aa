"""IG006: always and never about the same action, in files an agent loads together.

Linear in the text, not quadratic in the directives: comparing every directive with every
earlier one let a pull request stall the lint with a few hundred kilobytes of repeated rules.
Directives are grouped by their action's token set (repeats collapse), and an earlier action is
only compared with a later one when they can contradict at all: they share a token of their
prefix (the rarest tokens, the standard prefix filter for a Jaccard threshold), or the
prohibition's rarest token is in the requirement (a prohibition covering it). Each directive is
reported once per distinct earlier action it contradicts, at that action's first occurrence.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from typing import Iterator

from instruction_gate.lint.context import LintContext
from instruction_gate.lint.directives import SAME_ACTION, Directive, contradicts, directives
from instruction_gate.lint.model import Finding

Key = tuple[bool, frozenset[str]]


def _quote(d: Directive, text: str) -> str:
    return " ".join(text[d.start:d.end].split())  # one line, also for a rule wrapped over several


def _prefix(ordered: list[str]) -> list[str]:
    """Tokens of which a set with Jaccard >= SAME_ACTION to this one must share at least one."""
    return ordered[:len(ordered) - math.ceil(SAME_ACTION * len(ordered)) + 1]


class _Seen:
    """Distinct earlier actions of one polarity, indexed for the two ways to contradict."""

    def __init__(self, rank: dict[str, tuple[int, str]]):
        self.rank = rank
        self.by_prefix: dict[str, list[Key]] = defaultdict(list)
        self.by_token: dict[str, list[Key]] = defaultdict(list)  # every token (requirements)
        self.by_rarest: dict[str, list[Key]] = defaultdict(list)  # rarest token (prohibitions)

    def order(self, tokens: frozenset[str]) -> list[str]:
        return sorted(tokens, key=self.rank.__getitem__)

    def add(self, key: Key) -> None:
        ordered = self.order(key[1])
        for token in _prefix(ordered):
            self.by_prefix[token].append(key)
        if key[0]:
            for token in ordered:
                self.by_token[token].append(key)
        elif ordered:
            self.by_rarest[ordered[0]].append(key)

    def candidates(self, key: Key) -> set[Key]:
        """Earlier opposite actions that may contradict `key` (a superset; `contradicts` decides)."""
        ordered = self.order(key[1])
        found = {k for token in _prefix(ordered) for k in self.by_prefix.get(token, ())}
        if key[0]:  # a requirement: earlier prohibitions whose tokens it contains
            found.update(k for token in ordered for k in self.by_rarest.get(token, ()))
        elif ordered:  # a prohibition: earlier requirements containing all of its tokens
            found.update(self.by_token.get(ordered[0], ()))
        return found


def _contradictions(loaded: list[tuple[str, Directive]]) -> Iterator[tuple[tuple[str, Directive], tuple[str, Directive]]]:
    """(earlier, later) pairs in load order, one per later directive and distinct earlier action."""
    frequency = Counter(token for key in {(d.positive, frozenset(d.action)) for _, d in loaded} for token in key[1])
    rank = {token: (count, token) for token, count in frequency.items()}
    seen = {True: _Seen(rank), False: _Seen(rank)}
    first: dict[Key, tuple[int, str, Directive]] = {}  # each distinct action's first occurrence
    for position, (path, directive) in enumerate(loaded):
        key = (directive.positive, frozenset(directive.action))
        for other in sorted(seen[not directive.positive].candidates(key), key=lambda k: first[k][0]):
            _, earlier_path, earlier = first[other]
            if contradicts(earlier, directive):
                yield (earlier_path, earlier), (path, directive)
        if key not in first:
            first[key] = (position, path, directive)
            seen[directive.positive].add(key)


def check(ctx: LintContext) -> Iterator[Finding]:
    parsed = {path: directives(text) for path, text in ctx.texts.items()}
    groups = {(path,) for path in ctx.texts}
    # A file a chain reaches twice (a second name for it, an import) is read once.
    groups |= {tuple(dict.fromkeys(f.path for f in chain.files if f.path in ctx.texts)) for chain in ctx.chains}
    # Scoped rules load on top of the chain they join (several at once when a task touches their files).
    groups |= {tuple(dict.fromkeys([*(f.path for f in chain.files), *(r.path for r in chain.scoped)]))
               for chain in ctx.chains if chain.scoped}
    groups = {tuple(p for p in group if p in ctx.texts) for group in groups}
    reported: set[tuple] = set()
    for group in sorted(groups):
        loaded = [(path, d) for path in group for d in parsed[path]]  # load order: later wins
        for (earlier_path, earlier), (later_path, later) in _contradictions(loaded):
            # One finding per pair of lines, whichever order an agent loads them in (OpenCode: nearest
            # first); a line is never reported against itself ("use `list`, avoid `List`").
            pair = frozenset({(earlier_path, earlier.line), (later_path, later.line)})
            if len(pair) == 1 or pair in reported:
                continue
            reported.add(pair)
            yield Finding(
                "IG006", later_path, later.line,
                f"\"{_quote(later, ctx.texts[later_path])}\" contradicts "
                f"\"{_quote(earlier, ctx.texts[earlier_path])}\" ({earlier_path}:{earlier.line}); "
                "an agent loading both cannot obey both.",
                f"contradiction:{earlier_path}:{' '.join(earlier.action)}|{' '.join(later.action)}",
                later.column + 1)
