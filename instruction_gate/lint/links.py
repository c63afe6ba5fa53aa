"""IG003: relative Markdown links and Claude `@imports` that point to missing files, and
`@imports` of files outside the repository."""

from __future__ import annotations

import re
from typing import Iterator
from urllib.parse import unquote

from instruction_gate.agents.discovery import claude_imports
from instruction_gate.lint import markdown
from instruction_gate.lint.context import LintContext
from instruction_gate.lint.model import Finding
from instruction_gate.untrusted import is_path_text, quote

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


def check(ctx: LintContext) -> Iterator[Finding]:
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
        if not source.endswith(("CLAUDE.md", "CLAUDE.local.md")):
            continue
        for ref in claude_imports(text):
            if not is_path_text(ref):
                problem = ("names no file an agent can load (it holds a NUL or another control character); "
                           "agents skip it")
            elif _outside(ctx, source, ref):
                problem = ("imports a file outside the repository: the agent would load text no reviewer "
                           "sees in this pull request")
            elif _missing(ctx, source, ref):
                problem = "points to a missing file"
            else:
                continue
            number = next((ln.number for ln in markdown.lines(text) if f"@{ref}" in ln.text), 1)
            yield Finding("IG003", source, number, f"Import `@{quote(ref)}` {problem}.", f"import:{ref}")


def _outside(ctx: LintContext, source: str, ref: str) -> bool:
    """An import of the home directory, an absolute path or a path leaving the repository.
    Decided from the text alone: whatever is there on this machine is never read."""
    return ref.startswith(("~", "/")) or ctx.resolve(source, ref) is None
