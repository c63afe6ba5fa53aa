"""Commands and paths an instruction file references in code spans and fenced blocks."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from typing import Iterator

from instruction_gate.lint import markdown

_SEPARATORS = re.compile(r"\s*(?:&&|\|\||;|\|)\s*")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_PATHLIKE = re.compile(r"^(?:\.{1,2}/)*[\w@+\-.]+(?:/[\w@+\-.]+)*/?$")
_EXTENSION = re.compile(r"\.(py|sh|bash|zsh|js|mjs|cjs|ts|tsx|jsx|json|toml|ya?ml|ini|cfg|md|rst|txt|mk|"
                        r"lock|sql|rb|go|rs|java|kt|c|h|cpp|hpp|ps1|bat|patch|csv|html|css)$")
#: Wrappers that run the rest of the line as a command.
_PREFIXES = {("sudo",), ("env",), ("uv", "run"), ("poetry", "run"), ("pipenv", "run"), ("pdm", "run")}
_INTERPRETERS = {"python", "python3", "bash", "sh", "zsh", "node", "ruby", "perl", "source", "."}
_NODE_RUNNERS = {"npm", "yarn", "pnpm", "bun"}
#: Shorthands that run a package.json script of the same name.
_NODE_SHORTHANDS = {"test": "test", "t": "test"}
#: `run` targets the package manager itself provides (`npm run env` prints the script
#: environment), defined without any package.json entry.
_NODE_BUILTIN_RUN_TARGETS = {"npm": {"env"}, "pnpm": {"env"}, "yarn": {"env"}}


@dataclass(frozen=True)
class Reference:
    """One referenced command target or path."""

    kind: str  #: "make", "npm", "tox", "nox" or "path"
    name: str  #: target, script, environment, session, or the path as written
    line: int  #: 1-based
    column: int  #: 0-based character column of `name` in the line
    option: str | None = None  #: make's -C directory, or the `cd` directory a command's path is relative to


#: A first segment that is a host name (`ghcr.io/org/image`, `github.com/org/module`): an image or
#: module reference, not a path. The last label is a top-level domain, never a file extension.
_HOST_SEGMENT = re.compile(r"^[a-z0-9][a-z0-9\-]*(?:\.[a-z0-9\-]+)*\.[a-z]{2,6}(?::\d+)?$")


#: Characters a shell would take as syntax (an escape, a pipe, a list), in a span with no space:
#: `back\slash/notes.md` names a file of that spelling, not the `backslash/notes.md` a shell would
#: open, and `pipe|x/notes.md` is a directory `pipe|x`, not a pipe into `x/notes.md`.
_SHELL_SYNTAX_IN_NAME = re.compile(r"[\\|;&]")
_COMMAND_LIST = re.compile(r"&&|\|\||[|;&]\.{0,2}/")
_LITERAL_NAME = re.compile(r"^[^\s`'\"$*?<>(){}\[\]#!~=]+$")


def literal_path(snippet: str) -> bool:
    """A one-word span that is a path with shell syntax characters in its name: kept as written."""
    if not (_SHELL_SYNTAX_IN_NAME.search(snippet) and _LITERAL_NAME.match(snippet)):
        return False
    if _COMMAND_LIST.search(snippet):
        return False  # `make&&./run.sh`: written without spaces, still two commands
    return looks_like_path(_SHELL_SYNTAX_IN_NAME.sub("_", snippet))


def looks_like_path(token: str) -> bool:
    if not _PATHLIKE.match(token) or token.startswith(("-", "@")) or token in (".", ".."):
        return False
    if "..." in token:
        return False  # a placeholder: `it/...`, `src/.../mod.rs`
    first, slash, _ = token.partition("/")
    if slash and _HOST_SEGMENT.match(first) and not _EXTENSION.search(first):
        return False
    return "/" in token.strip("/") or bool(_EXTENSION.search(token)) or token.endswith("/")


#: Fenced blocks in these languages are code examples, not commands to run.
CODE_LANGUAGES = frozenset({
    "python", "py", "pycon", "javascript", "js", "jsx", "typescript", "ts", "tsx", "go", "rust", "rs", "java",
    "kotlin", "c", "cpp", "c++", "csharp", "cs", "ruby", "rb", "php", "swift", "elixir", "ex", "exs", "erlang",
    "scala", "haskell", "hs", "lua", "r", "sql", "json", "jsonc", "yaml", "yml", "toml", "ini", "xml", "html",
    "css", "scss", "diff", "patch", "markdown", "md", "mermaid", "text", "txt", "proto", "graphql", "dockerfile",
})


def snippets(text: str) -> Iterator[tuple[int, int, str]]:
    """(line number, column, code) for each code span and each line of fenced code (code
    examples in a programming language excepted: their lines are code, not commands)."""
    languages = markdown.fence_languages(text)
    for line in markdown.lines(text):
        if line.in_code and languages.get(line.number) in CODE_LANGUAGES:
            continue
        if line.in_code:
            if not line.text.lstrip().startswith(("```", "~~~", "#")):
                body = line.text.lstrip()
                column = len(line.text) - len(body)
                if body.startswith("$ "):
                    body, column = body[2:], column + 2
                yield line.number, column, body
        else:
            for column, code in markdown.code_spans(line.text):
                yield line.number, column, code


def _tokens(command: str) -> list[str]:
    try:
        return shlex.split(command, comments=True)
    except ValueError:
        return command.split()


def _strip_prefixes(argv: list[str]) -> list[str]:
    changed = True
    while changed and argv:
        changed = False
        while argv and _ASSIGNMENT.match(argv[0]):
            argv, changed = argv[1:], True
        for prefix in _PREFIXES:
            if tuple(argv[:len(prefix)]) == prefix:
                argv, changed = argv[len(prefix):], True
    return argv


def _option_values(argv: list[str], short: str, long: str) -> list[str]:
    """Values of `-e X`, `-eX`, `--env X`, `--env=X` (comma-separated values split, not inside braces)."""
    values = []
    for index, arg in enumerate(argv):
        if arg in (short, long) and index + 1 < len(argv):
            values.append(argv[index + 1])
        elif arg.startswith(long + "="):
            values.append(arg.split("=", 1)[1])
        elif arg.startswith(short) and len(arg) > len(short) and not arg.startswith("--"):
            values.append(arg[len(short):])
    return [v for value in values for v in re.split(r",(?![^{]*\})", value) if v]  # `py{311,312}-x` is one


def _make(argv: list[str]) -> Iterator[tuple[str, str, str | None]]:
    directory, skip_next = None, False
    for index, arg in enumerate(argv[1:], start=1):
        if skip_next:
            skip_next = False
            if argv[index - 1] == "-C":
                directory = arg
            continue
        if arg in ("-C", "-f", "-j", "-l", "-o", "-W", "-I", "--file", "--directory"):
            skip_next = True
        elif arg.startswith("--directory="):
            directory = arg.split("=", 1)[1]
        elif arg.startswith("-C") and len(arg) > 2:
            directory = arg[2:]
        elif not arg.startswith("-") and not _ASSIGNMENT.match(arg):
            yield "make", arg, directory


def _commands(argv: list[str]) -> Iterator[tuple[str, str, str | None]]:
    """(kind, name, option) for every checkable reference of one simple command."""
    argv = _strip_prefixes(argv)
    if not argv:
        return
    head, rest = argv[0], argv[1:]
    if head in ("make", "gmake"):
        # With a custom makefile (-f) targets cannot be checked against the default one.
        if "-f" not in argv and not any(a.startswith("--file") for a in argv):
            yield from _make(argv)
    elif head in _NODE_RUNNERS and rest:
        if rest[0] in ("run", "run-script") and len(rest) > 1 and not rest[1].startswith("-"):
            if rest[1] not in _NODE_BUILTIN_RUN_TARGETS.get(head, ()):
                yield "npm", rest[1], None
        elif rest[0] in _NODE_SHORTHANDS and head != "bun":
            yield "npm", _NODE_SHORTHANDS[rest[0]], None
    elif head == "tox":
        for env in _option_values(rest, "-e", "--env"):
            if env.upper() != "ALL":
                yield "tox", env, None
    elif head == "nox":
        for index, arg in enumerate(rest):
            if arg in ("-s", "-e", "--session", "--sessions"):
                for value in rest[index + 1:]:
                    if value.startswith("-"):
                        break
                    yield "nox", value, None
    elif head in _INTERPRETERS or head in ("pytest", "py.test"):
        yield from _interpreter(head, rest)
    elif "/" in head and looks_like_path(head):
        yield "path", head, None


def _interpreter(head: str, rest: list[str]) -> Iterator[tuple[str, str, str | None]]:
    if head.startswith("python") and rest[:2] == ["-m", "pytest"]:
        head, rest = "pytest", rest[2:]
    if head in ("pytest", "py.test"):
        for arg in rest:
            path = arg.split("::", 1)[0]
            if not arg.startswith("-") and looks_like_path(path):
                yield "path", path, None
        return
    if rest and rest[0] in ("-m", "-c", "-e"):
        return
    positional = next((a for a in rest if not a.startswith("-")), None)
    if positional and looks_like_path(positional):
        yield "path", positional, None


def _column(snippet: str, name: str, after: int) -> int:
    match = re.compile(rf"(?<![\w\-./]){re.escape(name)}(?![\w\-])").search(snippet, after)
    return match.start() if match else max(snippet.find(name), 0)


def references(text: str) -> list[Reference]:
    """Every command target and path referenced in code, in file order."""
    found: list[Reference] = []
    fenced = {line.number for line in markdown.lines(text) if line.in_code}
    directory, previous = None, 0  # `cd docs` earlier in the same fenced block, or in the same snippet
    for number, column, snippet in snippets(text):
        if number not in fenced or number != previous + 1:
            directory = None
        previous = number
        if looks_like_path(snippet) or literal_path(snippet):
            found.append(Reference("path", snippet, number, column,
                                   directory if not snippet.startswith(("/", "~")) else None))
            continue
        cursor, line_start_directory = 0, directory
        commands = _SEPARATORS.split(snippet)
        for command in commands:
            start = snippet.find(command, cursor)
            cursor = start + len(command) if start >= 0 else cursor
            argv = _tokens(command)
            if argv[:1] == ["cd"] and len(argv) == 2:
                directory = argv[1] if directory is None else f"{directory}/{argv[1]}"
                continue
            for kind, name, option in _commands(argv):
                offset = _column(snippet, name, max(start, 0))
                # `cd tests/integration && ./run_tests.py`: the script is looked up where the `cd` went
                after_cd = kind == "make" or (kind == "path" and not name.startswith(("/", "~")))
                found.append(Reference(kind, name, number, column + offset,
                                       option if option is not None else directory if after_cd else None))
        if number not in fenced:
            directory = None
        elif len(commands) > 1:
            directory = line_start_directory  # `cd actionview && bin/test` on each line: each starts at the root
    return found
