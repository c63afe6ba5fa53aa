"""IG001 unknown commands and IG002 missing scripts and files referenced in code."""

from __future__ import annotations

import posixpath
import re
from typing import Callable, Iterator

from instruction_gate.lint import markdown, not_paths, projects
from instruction_gate.lint.context import LintContext
from instruction_gate.lint.model import Finding
from instruction_gate.lint.references import Reference, references


def _nearest(ctx: LintContext, source: str, names: tuple[str, ...]) -> str | None:
    for directory in ctx.ancestors(source):
        for name in names:
            candidate = posixpath.join(directory, name)
            if ctx.tree.read(candidate) is not None:
                return candidate
    return None


def _text(ctx: LintContext, path: str) -> str:
    return (ctx.tree.read(path) or b"").decode("utf-8", errors="replace")


def _lookup(ctx: LintContext, ref: Reference, source: str
            ) -> tuple[str | None, frozenset[str] | None, Callable[[str, frozenset[str]], bool]]:
    """(config file, defined names or None when unknowable, membership test) for a reference."""
    member = projects.defined
    if ref.kind == "make":
        if ref.option is not None:
            directory = ctx.resolve(source, ref.option)
            names = [posixpath.join(directory, n) for n in projects.MAKEFILE_NAMES] if directory is not None else []
            config = next((n for n in names if ctx.tree.read(n) is not None), None)
        else:
            config = _nearest(ctx, source, projects.MAKEFILE_NAMES)
        return config, projects.make_targets(_text(ctx, config)) if config else None, member
    if ref.kind == "npm":
        config = _nearest(ctx, source, ("package.json",))
        return config, projects.npm_scripts(_text(ctx, config)) if config else None, member
    if ref.kind == "tox":
        config = _nearest(ctx, source, ("tox.ini", "tox.toml"))
        if config is None:
            pyproject = _nearest(ctx, source, ("pyproject.toml",))
            if pyproject and "[tool.tox" in _text(ctx, pyproject):
                config = pyproject
        known = projects.tox_envs(_text(ctx, config), toml=not config.endswith(".ini")) if config else None
        return config, known, projects.tox_env_exists
    config = _nearest(ctx, source, ("noxfile.py",))
    return config, projects.nox_sessions(_text(ctx, config)) if config else None, projects.nox_session_exists


_RUNNER_FILES = {"make": "Makefile", "npm": "package.json", "tox": "tox configuration", "nox": "noxfile.py"}
_WHAT = {"make": "make target", "npm": "package.json script", "tox": "tox environment", "nox": "nox session"}
_NOUN = {"make": "target", "npm": "script", "tox": "environment", "nox": "session"}


def _defined_in_a_subproject(ctx: LintContext, ref: Reference) -> bool:
    """No runner file above the instruction file, but one elsewhere in the tree defines the name (or
    cannot be read): the command is meant for that subproject (`cd vscode && pnpm run test`)."""
    names = _SUBPROJECT_FILES[ref.kind]
    for path in ctx.tree.files():
        if posixpath.basename(path) in names:
            _, known, member = _lookup(ctx, ref, path)
            if known is None or member(ref.name, known):
                return True
    return False


def _member_script(ctx: LintContext, ref: Reference) -> bool:
    """An npm script in a JavaScript workspace (pnpm-workspace.yaml, or `workspaces` in the root
    package.json): run in whichever member package the agent is in, so any member may define it."""
    if ref.kind != "npm":
        return False
    return "pnpm-workspace.yaml" in ctx.tree.files() or '"workspaces"' in _text(ctx, "package.json")


_SUBPROJECT_FILES = {"make": projects.MAKEFILE_NAMES, "npm": ("package.json",), "tox": ("tox.ini", "tox.toml"),
                     "nox": ("noxfile.py",)}


def _command_finding(ctx: LintContext, ref: Reference, source: str) -> Finding | None:
    config, known, member = _lookup(ctx, ref, source)
    if config is None and ref.option is None and _defined_in_a_subproject(ctx, ref):
        return None
    if config is None:
        reason = f"no {_RUNNER_FILES[ref.kind]} found"
    elif known is None or member(ref.name, known):
        return None  # defined, or generated in ways a static reader cannot follow
    elif ref.kind == "make" and len(parts := _SHORTHAND.split(ref.name)) > 1 and all(member(p, known) for p in parts):
        return None  # `make lint/format/test`: shorthand for several targets that all exist
    elif ref.option is None and _member_script(ctx, ref) and _defined_in_a_subproject(ctx, ref):
        return None  # unknown at the root only: every member package is searched, and only then
    else:
        reason = f"{config} defines no such {_NOUN[ref.kind]}"
    return Finding("IG001", source, ref.line, f"Unknown {_WHAT[ref.kind]} `{ref.name}`: {reason}.",
                   f"{ref.kind}:{ref.option or ''}:{ref.name}", ref.column + 1)


def _path_finding(ctx: LintContext, ref: Reference, source: str) -> Finding | None:
    if "/" not in ref.name.strip("/"):
        bare = ref.name.rstrip("/")
        if bare in ctx.basenames or bare in ctx.dirs or any(d.rsplit("/", 1)[-1] == bare for d in ctx.dirs):
            return None  # a bare name found anywhere counts: prose often names files loosely
    written = posixpath.join(ref.option, ref.name) if ref.option else ref.name  # after a `cd`
    relative = ctx.resolve(source, written)
    from_root = ctx.resolve("", written)
    if relative is None and from_root is None:
        return None  # outside the repository: not ours to check
    if any(p is not None and ctx.exists(p) for p in (relative, from_root)):
        return None
    if any(p is not None and ctx.is_ignored(p) for p in (relative, from_root)):
        return None  # build output or a tool's directory, listed in .gitignore
    first = written.strip("/").split("/")[0]
    if not _anchored(ctx, ref.name, [ctx.resolve(source, first), ctx.resolve("", first)]):
        return None  # `acme/widget/v2`, `org/image`: its first directory is nowhere here, so not a path of ours
    if from_root is not None and _under_a_subdirectory(ctx, from_root):
        return None  # `src/loc/strings.ts` of the extension: named relative to a subproject the text is about
    directory = posixpath.dirname(source)
    looked = f"{directory}/ and the repository root" if directory else "the repository root"
    if ref.option:
        looked += f", after `cd {ref.option}`"
    return Finding("IG002", source, ref.line, f"Referenced path `{ref.name}` does not exist (looked in {looked}).",
                   f"path:{ref.name}", ref.column + 1)


def _anchored(ctx: LintContext, written: str, anchors: list[str | None]) -> bool:
    """Whether a missing path is one of this repository's, not the name of something else (`acme/widget`,
    `org/image`, `refs/heads/x`, a Go or Composer package): it is written as a path (`./x`, `../x`, a
    trailing `/`, a file extension), or its first directory exists, or existed in the base revision,
    where the path is read from (`anchors`: beside the instruction file, at the root). The
    instruction file's own directory anchors nothing: `pip/uv-add` in `docs/realtime/AGENTS.md` is
    anchored by a `docs/realtime/pip/`, not by `docs/`. A bare name is judged by its name alone."""
    if written.startswith(("./", "../", "/")) or written.endswith("/") or _FILE_SUFFIX.search(written):
        return True
    if "/" not in written.strip("/"):
        return True
    return any(a is not None and (ctx.exists(a) or a in ctx.earlier_dirs) for a in anchors)


#: A file extension on a last segment whose name has a letter (`.md`, `.rb`, `.tsx`), not a version
#: (`v1.2`) or a branch series (`release/3.x`, `release/v3.x`).
_FILE_SUFFIX = re.compile(r"(?:^|/)[^/]*[A-Za-z_][^/]*\.(?:[chmrdsvCHR]|[A-Za-z][A-Za-z0-9]{1,5})$")


def _under_a_subdirectory(ctx: LintContext, path: str) -> bool:
    """A path of two or more segments that exists below some directory (`ext/src/loc/strings.ts`)."""
    path = path.rstrip("/")
    if "/" not in path:
        return False
    tail = "/" + path
    return any(p.endswith(tail) for p in ctx.tree.files()) or any(d.endswith(tail) for d in ctx.dirs)


#: Separators of a shorthand naming several make targets at once (`lint/format/test`, `lint|test`).
_SHORTHAND = re.compile(r"[/|,]")

#: A command named only to forbid it ("Never run `npm test`") need not exist.
_FORBIDDING = re.compile(r"\b(never|don't|do not|must not|mustn't|should not|avoid|no longer|forbidden|prohibited|"
                         r"not allowed|may not)\b", re.IGNORECASE)


def check(ctx: LintContext) -> Iterator[Finding]:
    for source, text in sorted(ctx.texts.items()):
        seen = set()
        lines = markdown.lines(text)
        for ref in references(text):
            if ref.kind != "path" and _FORBIDDING.search(lines[ref.line - 1].text[:ref.column]):
                continue
            if ref.kind == "path" and not_paths.not_a_path(ref, text, lines, ctx):
                continue
            finding = (_path_finding if ref.kind == "path" else _command_finding)(ctx, ref, source)
            # an unknown command is one problem however often (and with whatever options: `make
            # test`, `make -C . test`) the file names it, as long as the reason is the same; a path,
            # once a line
            if finding is None:
                continue
            once = (finding.key, finding.line) if ref.kind == "path" else finding.message
            if once in seen:
                continue
            seen.add(once)
            yield finding
