"""IG003: relative Markdown links and Claude `@imports` that point to missing files, and
`@imports` the real CLI does not load: outside the repository, with trailing punctuation,
resolving outside the importing file's directory (never expanded in headless mode), or
deeper than Claude Code's import hop limit."""

from __future__ import annotations

import re
from typing import Iterator
import posixpath
from urllib.parse import unquote

from instruction_gate.agents.discovery import CLAUDE_IMPORT_HOPS, claude_imports
from instruction_gate.lint import markdown
from instruction_gate.lint.chains import instruction_files
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
        if not source.endswith(("CLAUDE.md", "CLAUDE.local.md")):
            continue
        yield from _import_findings(ctx, source, text)


_PUNCTUATION = ".,;:!?)]}'\""


def _import_findings(ctx: LintContext, source: str, text: str) -> Iterator[Finding]:
    for ref in claude_imports(text):
        base = ref.rstrip(_PUNCTUATION) or ref
        number = next((ln.number for ln in markdown.lines(text) if f"@{ref}" in ln.text), 1)
        if _path_alias(ctx, base):
            continue  # `@/components/Button`: a TypeScript path alias for a module of this tree
        if not is_path_text(ref):
            problem = ("names no file an agent can load (it holds a NUL or another control character); "
                       "agents skip it")
        elif _outside(ctx, source, base):
            problem = ("imports a file outside the repository: the agent would load text no reviewer "
                       "sees in this pull request")
        elif _missing(ctx, source, base):
            problem = "points to a missing file"
        elif base != ref:
            yield Finding("IG003", source, number,
                          f"Import `@{quote(ref)}` is not loaded: Claude Code reads the trailing `{ref[len(base):]}` as "
                          f"part of the path. End the import with a space or a line break: `@{base}`.",
                          f"import:{ref}")
            continue
        elif not _inside(posixpath.dirname(source), ctx.resolve(source, base) or ""):
            problem = (f"resolves outside {posixpath.dirname(source) or 'the repository root'}/: headless "
                       f"Claude Code (`claude -p`) expands only imports inside its working directory, which "
                       f"is at or below this file's, so it stays literal text")
        else:
            continue
        yield Finding("IG003", source, number, f"Import `@{quote(base)}` {problem}.", f"import:{base}")
    yield from _too_deep(ctx, source, text)


def _path_alias(ctx: LintContext, ref: str) -> bool:
    """`@/lib/utils` (ref `/lib/utils`): the `@/` alias bundlers map to a source root, naming a module
    that is in this tree below some directory (`src/lib/utils.ts`), with or without its extension.
    An absolute path to anything else (`@/etc/hosts`) is still an import from outside."""
    if not ref.startswith("/") or ref.startswith("//") or len(ref) < 2:
        return False
    tail = ref.rstrip("/")
    return any(("/" + d).endswith(tail) for d in ctx.dirs) or any(
        ("/" + f).endswith(tail) or ("/" + f).rsplit(".", 1)[0].endswith(tail) for f in ctx.tree.files())


def _inside(directory: str, path: str) -> bool:
    return not directory or path.startswith(directory + "/")


def _too_deep(ctx: LintContext, source: str, text: str) -> Iterator[Finding]:
    """Imports that reach a file only past the hop limit (breadth first: the shortest chain)."""
    depth = {source: 0}
    queue = [(source, text)]
    while queue:
        path, body = queue.pop(0)
        for ref in claude_imports(body):
            target = ctx.resolve(path, ref)
            if target is None or target in depth or not ctx.exists(target):
                continue
            depth[target] = depth[path] + 1
            if depth[target] > CLAUDE_IMPORT_HOPS:
                yield Finding("IG003", source, 1,
                              f"`{target}` is {depth[target]} imports away from this file; Claude Code follows "
                              f"{CLAUDE_IMPORT_HOPS}, so it never loads.", f"import-depth:{target}")
                continue
            data = ctx.tree.read(target)
            if data is not None:
                queue.append((target, data.decode("utf-8", errors="replace")))


def _outside(ctx: LintContext, source: str, ref: str) -> bool:
    """An import of the home directory, an absolute path or a path leaving the repository.
    Decided from the text alone: whatever is there on this machine is never read."""
    return ref.startswith(("~", "/")) or ctx.resolve(source, ref) is None
