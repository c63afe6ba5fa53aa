"""The directive grammar: which sentences of an instruction file the reference agent obeys.

One directive per sentence (or clause split at `;` / `but`). Commands, paths and globs are
always in backticks; documents may also be bare `NAME.md` words. Matching is case-insensitive.
The grammar is documented in `adapters/README.md` ("The reference agent (offline)").
"""

from __future__ import annotations

import bisect
import re
import shlex
from dataclasses import dataclass
from typing import Literal

from instruction_gate.lint import markdown

DirectiveKind = Literal["run", "test_command", "verify", "forbid_command", "protect_path",
                        "approve_command", "approve_edit", "read"]


@dataclass(frozen=True)
class Directive:
    """One instruction the reference agent understood."""

    kind: DirectiveKind
    argument: str | None  #: command, glob or document path as written (None for `verify`)
    source: str  #: repository-relative path of the file the directive came from
    line: int  #: 1-based line in that file
    text: str  #: the sentence it was read from, for reports


_CODE = re.compile(r"`([^`\n]+)`")
_SLOT = "\x00{}\x00"
_SLOT_RE = re.compile(r"\x00(\d+)\x00")
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\s+but\s+|\s+—\s+")
#: Letters only around the word: emphasis (`_never_`, `**never**`) does not hide it.
_NEGATION = re.compile(r"(?<![a-z0-9])(?:never|do not|don't|must not|should not|may not|avoid|forbidden|prohibited|"
                       r"not allowed|not permitted)(?![a-z0-9])")
_POSTFIX = re.compile(r"\b(?:is|are)\s+(?:forbidden|prohibited|not allowed|not permitted)\b")
_RUN_VERB = re.compile(r"\b(?:run|runs|execute|invoke|call)\b")
_FORBID_VERB = re.compile(r"\b(?:run|runs|running|execute|executing|invoke|invoking|call|calling|use|using)\b")
_USE_FOR = re.compile(r"\buse\s+\x00\d+\x00\s+(?:to|for)\b")
_EDIT_VERB = re.compile(r"\b(?:edit|modify|change|touch|write to|delete|editing|modifying|changing|touching)\b")
_APPROVAL = re.compile(r"\bask\s+(?:for\s+|a\s+human\s+for\s+)?(?:approval|permission|confirmation)\s+before\b")
_READ = re.compile(r"\b(?:read|follow|consult|review)\b")
_TESTS = re.compile(r"\b(?:tests?|test suite|testing)\b")
_FINISHING = re.compile(
    r"\bbefore\s+(?:finishing|you\s+finish|handing\s+(?:off|over)|committing|you\s+commit|"
    r"submitting|you\s+are\s+done|opening\s+a\s+pull\s+request|declaring\s+(?:the\s+task\s+)?done)\b")
_BARE_DOC = re.compile(r"(?<![\w/.`-])((?:[\w-]+/)*[\w-]+\.(?:md|rst|txt))\b")


#: A word after a command that makes the tests the occasion, not the command's purpose:
#: "Run `pip install -e .` before running the tests" sets up; it does not run them.
_OCCASION = re.compile(r"\b(?:before|after|prior to|once|when|whenever|until)\b")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
#: Code, not a command: a statement keyword first, or a call / block / comparison inside.
_CODE_STATEMENT = re.compile(r"(?:assert|import|from|def|class|return|raise|async|await|const|let|var|function|fn|"
                             r"pub|use|impl|struct|type|interface|export|if|for|while|with)\b")
_CODE_SHAPE = re.compile(r"\w\(|[{};]|==|!=|=>|->|\)\s*$")
#: Files named alone are documents or data, not programs (`uv.lock`, `pyproject.toml`).
_DATA_FILE = re.compile(r"(?i)\.(?:lock|toml|json|jsonc|ya?ml|cfg|ini|md|mdx|rst|txt|csv|xml|html?|css|env|sql|"
                        r"proto|snap|log)$")
#: Source files: a program when given as a path (`scripts/check.py`), a mention when named alone.
_SOURCE_FILE = re.compile(r"(?i)\.(?:py|ts|tsx|js|mjs|cjs|jsx|rs|go|java|kt|rb|c|h|cpp|hpp|cs|swift)$")
#: Programs that are commands when named alone (one word in backticks).
_LONE_PROGRAMS = frozenset({
    "pytest", "make", "tox", "nox", "just", "ruff", "mypy", "pyright", "black", "isort", "flake8", "pylint",
    "npm", "pnpm", "yarn", "bun", "deno", "jest", "vitest", "eslint", "prettier", "tsc", "biome", "cargo",
    "go", "gofmt", "golangci-lint", "gradle", "mvn", "bazel", "cmake", "ctest", "ninja", "rake", "rspec",
    "bundle", "composer", "phpunit", "dotnet", "swift", "mix", "uv", "poetry", "hatch", "pdm", "pre-commit",
    "prek", "lefthook", "turbo", "nx", "lerna", "zig", "stack", "cabal", "dune", "sbt", "lein", "tflint",
})


#: Programs whose arguments may look like code (`python -c 'print(1)'`): known commands anyway.
_SHELL_PROGRAMS = _LONE_PROGRAMS | frozenset({
    "python", "python3", "node", "npx", "pnpx", "uvx", "pipx", "pip", "pip3", "git", "gh", "docker", "kubectl",
    "terraform", "helm", "sh", "bash", "zsh", "rm", "cp", "mv", "curl", "wget", "ls", "cat", "echo", "sudo",
    "apt", "apt-get", "brew", "rustup", "cargo-nextest", "coverage", "alembic", "django-admin",
})


def is_command(code: str) -> bool:
    """Whether text in backticks is something to run, not a flag, a path, a variable or code.

    `PYTHONWARNDEFAULTENCODING=1`, `--fail-under=0`, `tests/`, `uv.lock`, `strict-no-cover` and
    `assert isinstance(x, T)` are not; `make test`, `./scripts/test`, `CI=1 npm test` are.
    """
    try:
        tokens = shlex.split(code.strip())
    except ValueError:
        return False
    while tokens and _ASSIGNMENT.match(tokens[0]):  # `CI=1 npm test`: the command follows
        tokens = tokens[1:]
    if not tokens:
        return False
    first = tokens[0]
    if first in _SHELL_PROGRAMS or first.startswith(("./", "../")) and not first.endswith("/"):
        return True
    if first.startswith(("-", "<", "[", "@", "#", "$")) or first.endswith("/") or \
            _CODE_STATEMENT.match(code.strip()) or _CODE_SHAPE.search(code):
        return False
    if _DATA_FILE.search(first) or _SOURCE_FILE.search(first) and "/" not in first:
        return False
    if len(tokens) == 1 and "/" not in first:
        return False  # one unknown word: a name (`strict-no-cover`, `tests`), not a program to run
    return bool(re.fullmatch(r"[\w.+~/-]+", first))


def _commands(codes: list[str]) -> list[str]:
    return [c for c in codes if is_command(c)]


def _clauses(line: str) -> list[tuple[str, list[str]]]:
    """Split a line into clauses with backticked spans replaced by numbered slots."""
    codes: list[str] = []

    def slot(match: re.Match[str]) -> str:
        codes.append(match.group(1).strip())
        return _SLOT.format(len(codes) - 1)

    masked = _CODE.sub(slot, line)
    return [(c, codes) for c in _SENTENCE_END.split(masked) if c.strip()]


def _slots_after(clause: str, position: int, codes: list[str]) -> list[str]:
    return [codes[int(m.group(1))] for m in _SLOT_RE.finditer(clause, position)]


def _readable(clause: str, codes: list[str]) -> str:
    return _SLOT_RE.sub(lambda m: f"`{codes[int(m.group(1))]}`", clause).strip()


def _parse_clause(clause: str, codes: list[str]) -> list[tuple[DirectiveKind, str | None]]:
    low = clause.lower()
    approval = _APPROVAL.search(low)
    if approval:
        targets = _slots_after(low, approval.end(), codes)
        kind: DirectiveKind = "approve_edit" if _EDIT_VERB.search(low, approval.end()) else "approve_command"
        return [(kind, t) for t in targets]
    negation = _NEGATION.search(low)
    if negation:
        if verb := _FORBID_VERB.search(low, negation.end()):
            return [("forbid_command", t) for t in _commands(_slots_after(low, verb.end(), codes))]
        if (verb := _FORBID_VERB.search(low[:negation.start()])) and _POSTFIX.search(low, verb.end()):
            # "Using `make deploy` is prohibited": the prohibition follows what it forbids
            return [("forbid_command", t) for t in _commands(_slots_after(low[:negation.start()], verb.end(), codes))]
        if verb := _EDIT_VERB.search(low, negation.end()):
            return [("protect_path", t) for t in _slots_after(low, verb.end(), codes)]
        return []  # a negated sentence never becomes a positive directive
    found: list[tuple[DirectiveKind, str | None]] = []
    if read := _READ.search(low):
        docs = [c for c in _slots_after(low, read.end(), codes) if _BARE_DOC.fullmatch(c)]
        docs += _BARE_DOC.findall(_SLOT_RE.sub(" ", clause[read.end():]))
        found += [("read", d) for d in dict.fromkeys(docs)]
        if found:
            return found
    commands: list[str] = []
    if verb := _RUN_VERB.search(low):
        commands = _commands(_slots_after(low, verb.end(), codes))
    elif use := _USE_FOR.search(low):
        commands = _commands(_slots_after(low, use.start(), codes)[:1])
    finishing = bool(_FINISHING.search(low))
    tests = _TESTS.search(low)
    occasion = _OCCASION.search(low, _SLOT_RE.search(low).end()) if commands and _SLOT_RE.search(low) else None
    if commands and tests and occasion and occasion.start() < tests.start():
        found += [("run", c) for c in commands]  # a step before/after the tests, not the test command
    elif commands and tests:
        found.append(("test_command", commands[0]))
        found += [("run", c) for c in commands[1:]]
        if finishing:
            found.append(("verify", None))
    elif commands:
        found += [("run", c) for c in commands]
    elif finishing and _TESTS.search(low) and _RUN_VERB.search(low):
        found.append(("verify", None))
    return found


def parse(text: str, source: str) -> list[Directive]:
    """Every directive in `text`, in document order. Fenced code blocks are ignored; a sentence
    hard-wrapped over several lines of a paragraph or list item is read whole, and its directives
    carry the line where its clause starts."""
    directives: list[Directive] = []
    all_lines = markdown.lines(text)
    for block in markdown.blocks(text):
        if block.kind == "code":
            continue
        last = markdown.line_of(text, max(block.start, block.end - 1))
        block_lines = all_lines[block.line - 1:last] if block.kind != "heading" else all_lines[block.line - 1:block.line]
        joined, starts = "", []
        for index, line in enumerate(block_lines):
            prose = _MARKER.sub("", line.text) if index == 0 else line.text.strip()
            starts.append(len(joined))
            joined += prose + " "
        for clause, codes, offset in _located_clauses(joined):
            number = block_lines[bisect.bisect_right(starts, offset) - 1].number
            for kind, argument in _parse_clause(clause, codes):
                directives.append(Directive(kind, argument, source, number, _readable(clause, codes)))
    return directives


_MARKER = re.compile(r"^\s*(?:[-*+]|\d+[.)]|#+)\s*")


def _located_clauses(text: str) -> list[tuple[str, list[str], int]]:
    """`_clauses` of a block's joined text, each with the offset in `text` where it starts."""
    located, position = [], 0
    for clause, codes in _clauses(text):
        readable = _readable(clause, codes)
        found = text.find(readable[:20], position) if readable else -1
        offset = found if found >= 0 else position
        located.append((clause, codes, offset))
        position = max(position, offset)
    return located
