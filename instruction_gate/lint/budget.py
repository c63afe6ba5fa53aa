"""IG004 chains over an agent's byte cap, and IG005 overrides that shadow a file."""

from __future__ import annotations

import posixpath
from typing import Iterator

from instruction_gate.agents.codex.discovery import CODEX_NAMES
from instruction_gate.lint import markdown
from instruction_gate.lint.context import LintContext
from instruction_gate.lint.model import Finding


def _line_at_byte(text: str, byte_offset: int) -> int:
    prefix = text.encode("utf-8")[:byte_offset].decode("utf-8", errors="ignore")
    return markdown.line_of(text, len(prefix))


def check_caps(ctx: LintContext) -> Iterator[Finding]:
    """One finding per file where a cut starts, naming every directory whose chain it cuts."""
    cuts: dict[tuple[str, str], dict] = {}
    for chain in ctx.chains:
        cap = ctx.policy.byte_caps.get(chain.agent)
        if cap is None or chain.total_bytes <= cap:
            continue
        loaded = {f.path: f.bytes_loaded for f in chain.files}
        cut = [f for f in chain.whole if loaded.get(f.path, 0) < f.size]
        entry = cuts.setdefault((chain.agent, cut[0].path), {
            "cap": cap, "kept": loaded.get(cut[0].path, 0), "dirs": [], "dropped": [], "lost": 0})
        entry["dirs"].append(f"`{chain.directory or '.'}`")
        entry["dropped"] += [f.path for f in cut[1:] if f.path not in entry["dropped"]]
        entry["lost"] = max(entry["lost"], sum(f.size - loaded.get(f.path, 0) for f in cut))
    for (agent, path), entry in sorted(cuts.items()):
        text = ctx.texts.get(path) or (ctx.tree.read(path) or b"").decode("utf-8", "replace")
        line = _line_at_byte(text, entry["kept"])
        dropped = f"; dropped whole: {', '.join(entry['dropped'])}" if entry["dropped"] else ""
        yield Finding("IG004", path, line,
                      f"{agent} stops reading at its {entry['cap']}-byte cap: {path} is cut from line {line} "
                      f"in {', '.join(entry['dirs'])} (up to {entry['lost']} bytes never reach the agent{dropped}).",
                      f"cap:{agent}:{path}")


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
