"""IG003: relative Markdown links that point to missing files, and instruction files that are
symlinks to anything but a reviewed file of the revision (outside the repository, into `.git/`,
to an ignored or absent file). `@imports` are IG003 too: see `import_rules`."""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Iterator
from urllib.parse import unquote

from instruction_gate.lint import markdown
from instruction_gate.lint.chains import AGENT_FILE_NAMES, instruction_files
from instruction_gate.lint.context import LintContext
from instruction_gate.lint.model import Finding
from instruction_gate.lint.tree import directories, resolve
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


def _unreviewed_link(ctx: LintContext, path: str, target: str) -> str | None:
    """Why what the symlink at `path` leads to is no text a reviewer sees, or None. An agent
    follows the link in a checkout and loads whatever is there as instructions."""
    if target.startswith("/") or ctx.resolve(path, target) is None or (
            resolved := resolve(path, ctx.tree.link_target)).problem == "outside":
        return "outside the repository: the agent would load text no reviewer sees in this pull request"
    real = resolved.path
    if real is None:
        return "which leads back to itself (a symlink loop): no agent can open it, so it loads no instructions"
    if ".git" in real.split("/"):
        return (f"which leads to `{quote(real)}` inside `.git/`: git's own files (configuration, remotes, hooks) "
                "would be the agent's instructions, never shown in a pull request")
    if ctx.ignored.match_file(real):
        return (f"which leads to `{quote(real)}`, ignored by .gitignore: a local file (credentials, build "
                "output) would be the agent's instructions, never shown in a pull request")
    if real not in ctx.tree.files():
        return (f"which leads to `{quote(real)}`, no file of this revision: whatever puts one there at run "
                "time (a setup step, a tool, the agent) writes instructions no reviewer sees")
    return None


def _unreviewed_links(ctx: LintContext) -> Iterator[Finding]:
    """Instruction files that are symlinks to anything but a file of the revision."""
    for path in instruction_files(ctx.tree):
        target = ctx.tree.link_target(path)
        if target is not None and (why := _unreviewed_link(ctx, path, target)):
            yield Finding("IG003", path, 1, f"`{quote(path)}` is a symlink to `{quote(target)}`, {why}.",
                          f"symlink:{path}:{target}")


#: Folders agents read instruction files from (scoped rules, skills): a link there replaces them all.
INSTRUCTION_FOLDERS = (".github", ".github/instructions", ".github/skills", ".cursor", ".cursor/rules", ".claude",
                       ".claude/rules", ".claude/skills", ".agents", ".agents/skills", ".codex/skills", ".gemini",
                       ".gemini/skills")


def _linked_folders(ctx: LintContext) -> Iterator[Finding]:
    """An instruction folder that is a symlink to anything but a folder of the revision: every rule
    or skill under it is text no reviewer sees (a file link is `_unreviewed_links`' case)."""
    for path in sorted(ctx.tree.files()):
        target = ctx.tree.link_target(path)
        if target is None or not any(path == f or path.endswith("/" + f) for f in INSTRUCTION_FOLDERS):
            continue
        resolved = resolve(path, ctx.tree.link_target)
        if target.startswith("/") or ctx.resolve(path, target) is None or resolved.problem == "outside":
            why = "outside the repository: every rule or skill the agents read there is text no reviewer sees"
        elif resolved.path is None:
            why = "which leads back to itself (a symlink loop): no agent reads a rule or skill there"
        else:
            continue  # a folder of the revision: its files are linted where they are
        yield Finding("IG003", path, 1, f"The instruction folder `{quote(path)}` is a symlink to `{quote(target)}`, "
                      f"{why}.", f"folder-link:{path}:{target}")


def _unloadable_names(ctx: LintContext) -> Iterator[Finding]:
    """An instruction file's name held by something no agent reads (a directory, a named pipe, a
    device): the author's instructions reach no agent, and nothing else says so."""
    tree = ctx.tree
    paths = [p for p in instruction_files(tree) if tree.link_target(p) is None]
    paths += [d for d in directories(tree.files()) if d and PurePosixPath(d).name in AGENT_FILE_NAMES]
    for path in sorted(set(paths)):
        kind = tree.kind(path)
        if kind not in (None, "file", "symlink", "submodule"):
            yield Finding("IG003", path, 1, f"`{quote(path)}` is a {kind}, not a file: no agent loads it, so the "
                          "instructions meant to be there reach no agent.", f"not-a-file:{path}")


def check(ctx: LintContext) -> Iterator[Finding]:
    yield from _unreviewed_links(ctx)
    yield from _linked_folders(ctx)
    yield from _unloadable_names(ctx)
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
