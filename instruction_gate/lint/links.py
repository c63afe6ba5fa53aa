"""IG003: relative Markdown links that point to missing files, and instruction files that are
symlinks leading outside the repository. `@imports` are IG003 too: see `import_rules`."""

from __future__ import annotations

import re
from typing import Iterator
from urllib.parse import unquote

from instruction_gate.lint import markdown
from instruction_gate.lint.chains import instruction_files
from instruction_gate.lint.context import LintContext
from instruction_gate.lint.model import Finding
from instruction_gate.untrusted import quote

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")


def _target_path(target: str) -> str | None:
    """The file part of a relative link target, or None for URLs, anchors and mail links."""
    if _SCHEME.match(target) or target.startswith(("#", "//")):
        return None
    path = unquote(re.split(r"[#?]", target, maxsplit=1)[0])
    return path or None


def _missing(ctx: LintContext, source: str, reference: str) -> bool:
    resolved = ctx.resolve(source, reference)
    return resolved is not None and not ctx.exists(resolved)


def _outside_links(ctx: LintContext) -> Iterator[Finding]:
    """Instruction files that are symlinks leading outside the repository: an agent started in a
    checkout would load whatever is there, text no reviewer sees in the pull request."""
    for path in instruction_files(ctx.tree):
        target = ctx.tree.link_target(path)
        if target is not None and ctx.tree.read(path) is None and (
                target.startswith("/") or ctx.resolve(path, target) is None):
            yield Finding("IG003", path, 1, f"`{quote(path)}` is a symlink to `{quote(target)}`, outside the "
                          "repository: the agent would load text no reviewer sees in this pull request.",
                          f"symlink:{path}:{target}")


def check(ctx: LintContext) -> Iterator[Finding]:
    yield from _outside_links(ctx)
    for source, text in sorted(ctx.texts.items()):
        for line in markdown.lines(text):
            if line.in_code:
                continue
            for column, target in markdown.links(line.text):
                path = _target_path(target)
                if path and _missing(ctx, source, path):
                    yield Finding("IG003", source, line.number,
                                  f"Relative link to `{target}` points to a missing file.",
                                  f"link:{path}", column + 1)
