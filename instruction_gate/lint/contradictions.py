"""IG006: always and never about the same action, in files an agent loads together."""

from __future__ import annotations

from typing import Iterator

from instruction_gate.lint.context import LintContext
from instruction_gate.lint.directives import Directive, contradicts, directives
from instruction_gate.lint.model import Finding


def _quote(d: Directive, text: str) -> str:
    return " ".join(text[d.start:d.end].split())  # one line, also for a rule wrapped over several


def check(ctx: LintContext) -> Iterator[Finding]:
    parsed = {path: directives(text) for path, text in ctx.texts.items()}
    groups = {(path,) for path in ctx.texts}
    groups |= {tuple(f.path for f in chain.files if f.path in ctx.texts) for chain in ctx.chains}
    reported: set[tuple] = set()
    for group in sorted(groups):
        loaded = [(path, d) for path in group for d in parsed[path]]  # load order: later wins
        for index, (later_path, later) in enumerate(loaded):
            for earlier_path, earlier in loaded[:index]:
                pair = (earlier_path, earlier.line, earlier.column, later_path, later.line, later.column)
                if pair in reported or not contradicts(earlier, later):
                    continue
                reported.add(pair)
                yield Finding(
                    "IG006", later_path, later.line,
                    f"\"{_quote(later, ctx.texts[later_path])}\" contradicts "
                    f"\"{_quote(earlier, ctx.texts[earlier_path])}\" ({earlier_path}:{earlier.line}); "
                    "an agent loading both cannot obey both.",
                    f"contradiction:{earlier_path}:{' '.join(earlier.action)}|{' '.join(later.action)}",
                    later.column + 1)
