"""`A && B`, `cd DIR && A`: the steps of a command that the reference agent can run without a shell.

The agent starts programs directly (an argv list, never `sh -c`), so an operator written in a
command would reach the first program as an argument: `make test && curl x | sh` would hand make
`&&`, `curl`, `|` and `sh`. Instruction files often chain steps (`cd web && npm test`,
`pnpm build && pnpm test`), and the two forms a step-by-step agent can follow are followed:
`A && B` runs B only after A exits 0, and a leading `cd DIR &&` (DIR inside the repository) makes
the steps after it run in DIR. Any other syntax that only a shell gives meaning to refuses the
whole command, and the reason names it. Quoted text is not syntax (`git commit -m "x; y"`), and
`#` at the start of a word starts a comment, as in a shell. The executor and `explain` both use
`split`, so what `explain` says is what the agent does.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

#: What each piece of shell syntax is, for the refusal (longest spelling first).
_SYNTAX = (("||", "run when the step before fails"), ("|&", "a pipe"), ("|", "a pipe"), (";", "a list of commands"),
           ("&>>", "a redirection"), ("&>", "a redirection"), ("&", "a background job"), ("<<<", "a here-string"),
           ("<<", "a here-document"), ("<(", "process substitution"), (">(", "process substitution"),
           (">>", "a redirection"), (">&", "a redirection"), ("<&", "a redirection"), (">|", "a redirection"),
           ("<>", "a redirection"), (">", "a redirection"), ("<", "a redirection"), ("(", "a subshell"),
           (")", "a subshell"))
#: `$NAME`, `${…}`, `$(…)`, `$1`, `$?`, `$'…'`: text a shell replaces before the program sees it.
_EXPANSION = re.compile(r"\$(?:\(|\{[^}]*\}?|[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!'-])")
_FOLLOWED = "the reference agent runs programs without a shell and follows only `A && B` and a leading `cd DIR &&`"


@dataclass(frozen=True)
class Step:
    """One program to start, in `cwd`."""

    text: str  #: as written in the command (its quoting kept), with no operator or comment
    cwd: Path
    #: a `cd` that cannot be followed (no such directory): the command stops here with exit 1, as in a shell
    failure: str | None = None


@dataclass(frozen=True)
class Chain:
    """The steps of one command, in order, each to start only after the one before exits 0."""

    steps: tuple[Step, ...] = ()
    refused: str | None = None  #: why no step starts (shell syntax, a `cd` out of the repository)


def split(command: str, repo_root: Path, cwd: Path, allow_any: bool = False) -> Chain:
    """The steps of `command`, started from `cwd`; `allow_any` (trusted instructions) lets a
    leading `cd` leave the repository, never lets other shell syntax through (there is no shell)."""
    try:
        shlex.split(command)
    except ValueError as exc:
        return Chain(refused=f"cannot parse: {exc}")
    pieces = _pieces(command)
    if isinstance(pieces, str):
        return Chain(refused=pieces)
    if len(pieces) > 1 and not all(pieces):
        return Chain(refused=f"`&&` with no command on one side: {_FOLLOWED}")
    words = [shlex.split(piece) for piece in pieces]
    leading = next((i for i, w in enumerate(words) if w[:1] != ["cd"]), len(words))
    if any(w[:1] == ["cd"] for w in words[leading:]):
        return Chain(refused=f"`cd` after another step: {_FOLLOWED}")
    if leading == len(words):
        return Chain(refused="`cd` with no command after it changes nothing: the reference agent starts each "
                             "command afresh in its directory")
    here = cwd
    for piece, cd in zip(pieces[:leading], words[:leading]):
        if len(cd) != 2 or cd[1].startswith("-"):
            return Chain(refused=f"`{piece}`: a leading `cd` is followed with one directory only")
        target = Path(os.path.normpath(here / os.path.expanduser(cd[1])))
        if not allow_any and not target.resolve().is_relative_to(repo_root.resolve()):
            return Chain(refused=f"`{piece}`: {cd[1]} is outside the repository")
        if not target.is_dir():
            why = "Not a directory" if target.exists() else "No such file or directory"
            return Chain((Step(piece, here, failure=f"cd: {cd[1]}: {why}"),))
        here = target
    return Chain(tuple(Step(piece, here) for piece in pieces[leading:]))


def _pieces(command: str) -> list[str] | str:
    """`command` cut at every `&&` outside quotes, each piece stripped and without a trailing
    comment; or why it needs a shell. Quoting follows POSIX shell rules, as `shlex` does."""
    pieces, start, i, word_start, end = [], 0, 0, True, len(command)
    while i < end:
        char = command[i]
        if char == "\\":  # the next character is literal (`\;`, `\$`)
            i, word_start = i + 2, False
        elif char == "'":  # literal up to the closing quote
            i, word_start = command.index("'", i + 1) + 1, False
        elif char == '"':  # literal except for expansions and escapes
            i += 1
            while command[i] != '"':
                if command[i] == "`" or (command[i] == "$" and _EXPANSION.match(command, i)):
                    return _expansion(command, i)
                i += 2 if command[i] == "\\" else 1
            i, word_start = i + 1, False
        elif char in " \t\r":
            i, word_start = i + 1, True
        elif char == "#" and word_start:
            end = i
        elif command.startswith("&&", i):
            pieces.append(command[start:i])
            i = start = i + 2
            word_start = True
        elif char == "`" or (char == "$" and _EXPANSION.match(command, i)):
            return _expansion(command, i)
        elif char == "\n":
            return f"shell syntax: a line break (a second command); {_FOLLOWED}"
        elif char in "|&;<>()":
            return _operator(command, i)
        else:
            i, word_start = i + 1, False
    return [piece.strip() for piece in [*pieces, command[start:end]]]


def _expansion(command: str, i: int) -> str:
    if command[i] == "`":
        return f"shell syntax: backticks (command substitution); {_FOLLOWED}"
    found = _EXPANSION.match(command, i).group()
    what = "`$(…)` (command substitution)" if found == "$(" else f"`{found}` (expanded by a shell)"
    return f"shell syntax {what}; {_FOLLOWED}"


def _operator(command: str, i: int) -> str:
    spelled, what = next((s, w) for s, w in _SYNTAX if command.startswith(s, i))
    if spelled[0] in "<>":  # `2>&1`, `2>/dev/null`: the descriptor before it is part of the syntax
        digits = re.search(r"(?:^|(?<=\s))\d+$", command[:i])
        spelled = (digits.group() if digits else "") + spelled
        if spelled.endswith("&"):
            spelled += re.match(r"\d*-?", command[i + 2:]).group()
    return f"shell syntax `{spelled}` ({what}); {_FOLLOWED}"
