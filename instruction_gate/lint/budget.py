"""IG004 chains over an agent's byte cap, and IG005 overrides that shadow a file."""

from __future__ import annotations

import posixpath
from typing import Iterator

from instruction_gate.agents.discovery import CODEX_NAMES
from instruction_gate.lint import markdown
from instruction_gate.lint.context import LintContext
from instruction_gate.lint.model import Finding


def _line_at_byte(text: str, byte_offset: int) -> int:
    prefix = text.encode("utf-8")[:byte_offset].decode("utf-8", errors="ignore")
    return markdown.line_of(text, len(prefix))


def check_caps(ctx: LintContext) -> Iterator[Finding]:
    seen: set[tuple[str, str]] = set()
    for chain in ctx.chains:
        cap = ctx.policy.byte_caps.get(chain.agent)
        if cap is None or chain.total_bytes <= cap:
            continue
        loaded = {f.path: f.bytes_loaded for f in chain.files}
        cut = [f for f in chain.whole if loaded.get(f.path, 0) < f.size]
        first = cut[0]
        if (chain.agent, first.path) in seen:
            continue  # deeper directories repeat the same cut: report it once, where it starts
        seen.add((chain.agent, first.path))
        kept = loaded.get(first.path, 0)
        text = ctx.texts.get(first.path) or (ctx.tree.read(first.path) or b"").decode("utf-8", "replace")
        line = _line_at_byte(text, kept) if text else 1
        lost = sum(f.size - loaded.get(f.path, 0) for f in cut)
        dropped = [f.path for f in cut[1:]]
        where = f"`{chain.directory or '.'}`"
        message = (f"{chain.agent} loads {chain.total_bytes} bytes of instructions in {where}, over its "
                   f"{cap}-byte cap: {first.path} is cut from line {line} ({lost} bytes never reach the agent"
                   + (f"; also dropped: {', '.join(dropped)}" if dropped else "") + ").")
        yield Finding("IG004", first.path, line, message, f"cap:{chain.agent}:{first.path}")


def check_overrides(ctx: LintContext) -> Iterator[Finding]:
    override, plain = CODEX_NAMES
    for source in sorted(ctx.texts):
        if posixpath.basename(source) != override or not ctx.texts[source].strip():
            continue
        shadowed = posixpath.join(posixpath.dirname(source), plain)
        if shadowed in ctx.tree.files():
            yield Finding("IG005", source, 1,
                          f"{source} shadows {shadowed}: Codex loads only the override in this directory, "
                          f"so none of {shadowed}'s rules reach it.", f"shadow:{shadowed}")
