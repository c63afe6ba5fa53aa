"""IG003 for `@imports`, IG011 over the read cap and IG012 mentions an agent takes for imports.

Which agents follow imports, how deep and within what scope comes from the registry
(`agents.loading`); the walk itself is `lint.imports`. One finding per reference and kind of
problem names every agent it affects.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Iterator

from instruction_gate.agents.loading import LOADERS
from instruction_gate.lint import markdown
from instruction_gate.lint.context import LintContext
from instruction_gate.lint.imports import Import, home_directory
from instruction_gate.lint.model import Finding
from instruction_gate.untrusted import INSTRUCTION_CAP_BYTES, quote


def _who(agents: list[str]) -> tuple[str, str]:
    """The agents' names, and "s" for a verb whose subject is one of them."""
    labels = [loader.label for agent, loader in LOADERS.items() if agent in agents]
    return " and ".join(labels), "" if len(labels) > 1 else "s"


def _failure_note(agents: list[str]) -> str:
    noisy = [a for a in agents if LOADERS[a].imports.failure_text]
    if not noisy:
        return ""
    who, s = _who(noisy)
    return f" {who} put{s} an import-failure text in its place, which the model reads."


def _place(ctx: LintContext, path: str, ref: str) -> tuple[int, int, bool]:
    """Line and column of the first `@ref` outside fenced code, and whether that line is prose."""
    text = ctx.texts.get(path, "")
    return next(((ln.number, ln.text.index(f"@{ref}") + 1, _prose(ln.text)) for ln in markdown.lines(text)
                 if not ln.in_code and f"@{ref}" in ln.text), (1, 1, True))


_LIST_ITEM = re.compile(r"\s*(?:[-*+]|\d+[.)])\s")


def _prose(line: str) -> bool:
    """Not a line of an indented code block (four spaces or more, no list marker): CSS's `@import`
    or `@source` shown that way is an example of code, not a mention or an import written wrongly."""
    indent = len(line) - len(line.lstrip(" "))
    return indent < 4 or bool(_LIST_ITEM.match(line))


def _message(found: Import, agents: list[str]) -> str:
    who, s = _who(agents)
    ref, base = quote(found.ref), quote(found.base)
    if found.problem == "punctuation":
        return (f"Import `@{ref}` is not loaded: {who} read{s} the trailing `{found.ref[len(found.base):]}` as part of "
                f"the path. End the import with a space or a line break: `@{base}`.")
    if found.problem == "directive":
        return (f"`@{ref}` is not import syntax: {who} import{s} the file written right after the `@` "
                f"(`@docs/notes.md`), so this asks for a file named `{ref}`.")
    problem = {
        "control": f"names no file an agent can load (it holds a NUL or another control character); {who} skip{s} it",
        "outside": "imports a file outside the repository: the agent would load text no reviewer sees in this pull "
                   "request",
        "loop": "leads into a symlink loop: no agent can open it",
        "missing": "points to a missing file",
        "scope": f"resolves outside {home_directory(found.root) or 'the repository root'}/: {who} expand{s} only "
                 "imports inside the working directory, which is at or below this file's, so it stays literal text",
    }[found.problem]
    shown = ref if found.problem == "control" else base
    return f"Import `@{shown}` {problem}." if found.problem == "scope" else f"Import `@{shown}` {problem} ({who})."


def check_imports(ctx: LintContext) -> Iterator[Finding]:
    groups: dict[tuple, list[Import]] = defaultdict(list)
    for found in ctx.imports:
        if found.problem == "depth":
            groups[("depth", found.root, found.target)].append(found)
        elif found.problem not in (None, "mention"):
            groups[(found.problem, found.source, found.ref)].append(found)
    for key, group in groups.items():
        agents = [f.agent for f in group]
        first = group[0]
        if key[0] == "depth":
            limits = "; ".join(f"{LOADERS[a].label} follows {LOADERS[a].imports.max_depth}" for a in dict.fromkeys(agents))
            yield Finding("IG003", _root(ctx, first), 1, f"`{first.target}` is {first.depth} imports away from this "
                          f"file; {limits}, so it never loads.", f"import-depth:{first.target}")
            continue
        note = _failure_note(agents) if first.problem != "scope" else ""
        key_ref = first.ref if first.problem in ("control", "punctuation", "directive") else first.base
        line, column, prose = _place(ctx, first.source, first.ref)
        if first.problem == "directive" and not prose:
            continue
        yield Finding("IG003", first.source, line, _message(first, agents) + note, f"import:{key_ref}", column)


def _root(ctx: LintContext, found: Import) -> str:
    """Where a depth finding goes: the file the agent loaded by name, at its link target if linked."""
    return found.root if found.root in ctx.texts else next(
        (i.source for i in ctx.imports if i.root == found.root and i.depth == 1), found.root)


def check_mentions(ctx: LintContext) -> Iterator[Finding]:
    """IG012: `@name` with no path shape where an agent replaces a failed import with an error text."""
    groups: dict[tuple[str, str], list[Import]] = defaultdict(list)
    for found in ctx.imports:
        if found.problem == "mention" and LOADERS[found.agent].imports.failure_text:
            groups[(found.source, found.ref)].append(found)
    for (source, ref), group in groups.items():
        who, s = _who([f.agent for f in group])
        base = quote(group[0].base)
        line, column, prose = _place(ctx, source, ref)
        if not prose:
            continue
        yield Finding("IG012", source, line,
                      f"`@{base}` names no file, yet {who} tr{'ies' if s else 'y'} to import it and put{s} an "
                      f"import-failure text in its place, which the model reads. If it is a mention, write it in "
                      f"backticks or without the `@`.", f"mention:{group[0].base}", column)


def check_read_cap(ctx: LintContext) -> Iterator[Finding]:
    """IG011: a file over the harness's read cap; the agents read it whole, the harness does not."""
    for path, size in sorted(ctx.sizes.items()):
        if size > INSTRUCTION_CAP_BYTES and path in ctx.texts:
            yield Finding("IG011", path, 1,
                          f"`{quote(path)}` is {size} bytes, over the {INSTRUCTION_CAP_BYTES // (1024 * 1024)} MiB "
                          "the harness reads of an instruction file: agents that load it whole see text the lint, "
                          "the reference agent and the report never read. Split or shorten it.",
                          f"read-cap:{path}")
