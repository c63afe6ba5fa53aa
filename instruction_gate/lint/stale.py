"""IG001 unknown commands and IG002 missing scripts and files referenced in code."""

from __future__ import annotations

import bisect
import posixpath
import re
from typing import Callable, Iterator

from instruction_gate.lint import generated, illustrations, markdown, projects
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
    else:
        reason = f"{config} defines no such {_NOUN[ref.kind]}"
    return Finding("IG001", source, ref.line, f"Unknown {_WHAT[ref.kind]} `{ref.name}`: {reason}.",
                   f"{ref.kind}:{ref.option or ''}:{ref.name}", ref.column + 1)


def _path_finding(ctx: LintContext, ref: Reference, source: str) -> Finding | None:
    if "/" not in ref.name.strip("/"):
        bare = ref.name.rstrip("/")
        if bare in ctx.basenames or bare in ctx.dirs or any(d.rsplit("/", 1)[-1] == bare for d in ctx.dirs):
            return None  # a bare name found anywhere counts: prose often names files loosely
    relative = ctx.resolve(source, ref.name)
    from_root = ctx.resolve("", ref.name)
    if relative is None and from_root is None:
        return None  # outside the repository: not ours to check
    if any(p is not None and ctx.exists(p) for p in (relative, from_root)):
        return None
    if any(p is not None and ctx.is_ignored(p) for p in (relative, from_root)):
        return None  # build output or a tool's directory, listed in .gitignore
    if from_root is not None and _under_a_subdirectory(ctx, from_root):
        return None  # `src/loc/strings.ts` of the extension: named relative to a subproject the text is about
    directory = posixpath.dirname(source)
    looked = f"{directory}/ and the repository root" if directory else "the repository root"
    return Finding("IG002", source, ref.line, f"Referenced path `{ref.name}` does not exist (looked in {looked}).",
                   f"path:{ref.name}", ref.column + 1)


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


#: Prose about branches names them in code spans: `feature/new-cli-command` is not a path.
_BRANCH = re.compile(r"\bbranch(?:es)?\b", re.IGNORECASE)
#: Bare header names (`stdarg.h`) are the system's or a dependency's, found by the compiler.
_HEADER = re.compile(r"^[\w\-.]+\.(h|hh|hpp|hxx)$")


#: Prose about repositories names them as owner/name: `acme/widgets` is a repository, not a path.
_REPOSITORY = re.compile(r"\b(?:repo|repos|repository|repositories|fork|forks|upstream|github|gitlab|"
                         r"organi[sz]ations?|org|package|packages|crate|crates|module|"
                         r"docker|podman|images?|containers?)\b", re.IGNORECASE)  # an image: `owner/tool`
_OWNER_NAME = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
#: A file extension named alone (`.py`, `.md`) speaks of a kind of file, not of a file.
_BARE_EXTENSION = re.compile(r"^\*?(?:\.[A-Za-z0-9]{1,6}){1,2}$")
#: A git ref (`refs/heads/main`, `refs/tags/v1.2`): a name in the repository's history, not a file.
_GIT_REF = re.compile(r"^refs/(?:heads|tags|remotes|pull|notes)/")
#: A name with an arity (`GenServer.call/3`, `dbg/1`): a function, not a path.
_ARITY = re.compile(r"/\d+$")
#: Example paths: `tests/specs/my_feature/`, `src/your_module.py`, `foo/bar`, `path/to/test.py`.
_EXAMPLE_SEGMENT = re.compile(r"(?:^|/)path/to/|(?:^|/)(?:my|your|some|example|sample)[_-]\w+|(?:^|/)(?:foo|bar|baz|xxx)(?:/|\.|$)|(?:^|/|_)(?:foo|baz|xxx)[_-]|_(?:foo|baz|xxx)\."
                              r"|(?i:(?:^|/)(?:kebab-case|camel-?case|pascal-?case|snake_case)(?![a-z0-9]))")  # a naming style


#: A sentence placing a file in another repository.
_OTHER_REPOSITORY = re.compile(r"\b(?:in|from|of)\s+(?:that|the\s+other|another|the\s+upstream|their)\s+"
                               r"(?:repo|repository|project)\b", re.IGNORECASE)
#: A sentence about naming: a bare file name in it shows the style (`snake_case` (e.g., `abstract_operator.cpp`)).
_NAMING = re.compile(r"(?i)\b(?:snake_case|kebab-case|camel-?case|pascal-?case|naming(?:\s+conventions?)?)\b")
#: A sentence about a running server or browser: `.html` paths in it are URLs, not files.
_SERVED = re.compile(r"\b(?:dev\s+server|server|browser|localhost|url)\b", re.IGNORECASE)


#: Words that introduce an illustration: a missing path after them is an example, not a stale reference.
_EXAMPLE_INTRO = re.compile(r"\b(?:e\.g\.|eg\.|for\s+example|for\s+instance|such\s+as|like)(?:\s|$)", re.IGNORECASE)
_CLAUSE_END = re.compile(r"(?<!e\.g)(?<!i\.e)[.!?;]\s")


def _clause_before(prose: str, offset: int) -> str:
    """The sentence that holds `offset`, up to it ("e.g." and "i.e." do not end a sentence)."""
    before = prose[:max(offset, 0)]
    ends = [m.end() for m in _CLAUSE_END.finditer(before)]
    return before[ends[-1] if ends else 0:]


def _sentence_around(prose: str, offset: int) -> str:
    starts = [0] + [m.end() for m in re.finditer(r"[.!?;]\s", prose[:max(offset, 0)])]
    end = re.search(r"[.!?;](?:\s|$)", prose[max(offset, 0):])
    return prose[starts[-1]:offset + end.end() if end else len(prose)]


#: A piece of a file name (`_test.rb`, `-config.json`): a suffix the text describes, not a file.
_NAME_FRAGMENT = re.compile(r"^[_-][\w.-]+$")
#: "(NOT `spec/`)", "instead of `lib/old.rb`": a contrast naming the path as what the project does not use.
_NEGATED = re.compile(r"(?i)(?:\(\s*(?:not|no)|\binstead\s+of|\brather\s+than)\W*$")


#: `Rails/AssertNot`, `Style/StringLiterals`: a namespaced name in PascalCase (a RuboCop cop, a module).
_PASCAL_PATH = re.compile(r"^[A-Z][a-z0-9]+\w*(?:/[A-Z][a-z0-9]+\w*)+$")


def _identifier_path(ref: Reference, ctx: LintContext) -> bool:
    """A name shaped like a path that names code, not a file: a namespaced PascalCase name, or in a Go
    module a package import path (`testify/mock`, `x/tools/go/packages`), next to a composer.json a
    Composer package (`symfony/mcp-bundle`). Only when its first segment
    names nothing in the repository, so a stale path of this tree is still a stale path."""
    name = ref.name
    if "/" not in name or name.endswith("/") or name.startswith((".", "/")) or "." in name.rsplit("/", 1)[-1]:
        return False
    first = name.split("/", 1)[0]
    if first in ctx.dirs or first in ctx.basenames or any(d.rsplit("/", 1)[-1] == first for d in ctx.dirs):
        return False
    if name.islower() and name.count("/") == 1 and "composer.json" in ctx.basenames:
        return True  # Composer names every package vendor/name: `symfony/mcp-bundle`
    return bool(_PASCAL_PATH.match(name)) or (name.islower() and "go.mod" in ctx.basenames)


def _not_a_path(ref: Reference, text: str, lines: tuple[markdown.Line, ...], ctx: LintContext) -> bool:
    if _HEADER.match(ref.name) or _BARE_EXTENSION.match(ref.name) or _ARITY.search(ref.name) or \
            _EXAMPLE_SEGMENT.search(ref.name) or _NAME_FRAGMENT.match(ref.name) or _identifier_path(ref, ctx) or \
            (_GIT_REF.match(ref.name) and "refs" not in ctx.dirs):
        return True
    line = lines[ref.line - 1]
    if illustrations.code_name(ref.name, ctx.dirs) or illustrations.illustration(ref.name, lines, ref.line - 1, ref.column) or \
            illustrations.quoted_value(ref.name, line.text, ref.column, ctx.dirs):
        return True
    if lines[ref.line - 1].in_code:
        return False
    offset = lines[ref.line - 1].start + ref.column
    found = markdown.blocks(text)
    index = bisect.bisect_right([b.start for b in found], offset) - 1
    block = found[index] if index >= 0 and found[index].start <= offset < found[index].end else None
    prose = text[block.start:block.end] if block is not None else ""
    if _BRANCH.search(prose) and "." not in ref.name.rsplit("/", 1)[-1]:
        return True
    sentence = _sentence_around(prose, offset - (block.start if block is not None else 0))
    if _OTHER_REPOSITORY.search(sentence):
        return True  # "see `docs/x.md` in that repo": another repository's file
    if "/" not in ref.name and _NAMING.search(sentence):
        return True  # a file name showing a naming style, not a file of this tree
    before = _clause_before(prose, offset - (block.start if block is not None else 0))
    if _EXAMPLE_INTRO.search(before):
        return True  # "e.g. for layouts, it's `layouts/page.html`": an illustration, not this repository's file
    if _NEGATED.search(before.rstrip("` ")):
        return True  # "(NOT `spec/` - Rails uses Minitest)": named as what the repository does not have
    if generated.made_by_a_tool(prose, offset - (block.start if block is not None else 0), ref.name):
        return True
    if generated.made_by_the_reader(before):
        return True  # "Include a `RELEASE.md` file": the reader is told to write it, so it is absent until then  # "Creates `commands.gen.ts`", "`names.json` is generated by `make names`": made on demand
    if ref.name.endswith((".html", ".htm")) and _SERVED.search(sentence):
        return True  # a page a running server serves, named by its URL path
    # owner/name in prose about repositories, when no such first directory exists anywhere
    first = ref.name.split("/", 1)[0]
    return "." not in ref.name.rsplit("/", 1)[-1] and bool(_OWNER_NAME.match(ref.name) and _REPOSITORY.search(prose) and first not in ctx.dirs
                and first not in ctx.basenames)


def check(ctx: LintContext) -> Iterator[Finding]:
    for source, text in sorted(ctx.texts.items()):
        seen = set()
        lines = markdown.lines(text)
        for ref in references(text):
            if ref.kind != "path" and _FORBIDDING.search(lines[ref.line - 1].text[:ref.column]):
                continue
            if ref.kind == "path" and _not_a_path(ref, text, lines, ctx):
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
