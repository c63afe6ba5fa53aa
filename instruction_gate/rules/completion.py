"""Whether a command that started also ran to completion, from its text and exit code alone.

A required command asks for work to be done: `pytest` that could not import the project's
conftest (exit 4) or was killed by a timeout ran no test, though it started. Two kinds of exit
code say so. A signal (exit 128 + N as a shell reports it, or -N as Python does) or GNU
`timeout`'s 124 stopped the command before its end; pytest's own 2 (interrupted), 3 (internal
error), 4 (usage or collection error) and 5 (no tests collected) say the tests never ran. A
test failure (pytest exit 1) is a completed run. No exit code (the adapter does not report one)
is no evidence, and counts as completed.

A command line's exit code is its last command's: `cd pkg && pytest -q` exits with pytest's
code, or with an earlier step's when that step failed and pytest never started; either way the
pytest at the end did not complete. A pattern that the earlier steps alone already match
(`make build` in `make build && pytest -q`) is left alone: nothing says those steps did not finish.
A signal stops the whole command line, so it counts against every pattern the line matches.
"""

from __future__ import annotations

import re
import shlex
import signal
from pathlib import PurePath

from instruction_gate.rules.command_match import command_matches, joined

#: pytest's exit codes for a session that ran no test to its verdict (pytest's `ExitCode`).
PYTEST_NOT_RUN = {2: "interrupted", 3: "internal error", 4: "usage or collection error", 5: "no tests collected"}
#: GNU `timeout`: the command it started ran out of time.
TIMEOUT_EXIT = 124
_SIGNAL_BASE = 128

_PYTHON = re.compile(r"python(\d+(\.\d+)?)?")
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh"})
#: Project runners whose `run` starts the program after it (`uv run pytest`, `poetry run pytest`).
_RUNNERS = frozenset({"uv", "poetry", "pdm", "pipenv", "hatch", "rye"})
#: Runner options that take a value as the next word (`uv run --with pytest-cov pytest`).
_RUNNER_VALUES = frozenset({"--with", "--with-editable", "--with-requirements", "--python", "-p", "--extra",
                            "--group", "--only-group", "--project", "--directory", "-C", "-P", "--package",
                            "--env-file", "--index", "--index-url", "--extra-index-url", "-e", "--env"})
#: Programs that start the rest of their arguments: (options taking a value, leading operands).
_WRAPPERS = {"env": ({"-u", "--unset", "-C", "--chdir", "-S"}, 0), "time": (set(), 0), "nohup": (set(), 0),
             "exec": (set(), 0), "command": (set(), 0), "nice": ({"-n", "--adjustment"}, 0),
             "stdbuf": ({"-i", "-o", "-e"}, 0), "timeout": ({"-s", "--signal", "-k", "--kill-after"}, 1)}
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


def incomplete_reason(command: str, exit_code: int | None, pattern: str | None = None) -> str | None:
    """Why `command` (as the match for `pattern`, when given) started but did not complete, or
    None when it completed or nothing says otherwise."""
    if exit_code is None:
        return None
    if exit_code < 0 or exit_code >= _SIGNAL_BASE:
        return _signal_reason(exit_code)
    text = joined(command)
    start, last = last_command(text)
    if pattern is not None and command_matches(pattern, text[:start]):
        return None
    words = _words(last)
    if exit_code == TIMEOUT_EXIT and "timeout" in _unwrapped(words)[1]:
        return "timed out: `timeout` exit 124"
    if exit_code in PYTEST_NOT_RUN and runs_pytest(words):
        runner = next((w for w in _unwrapped(words)[0][:1] if PurePath(w).name in _RUNNERS), None)
        if runner:  # `uv run` exits 2 itself when it cannot sync (no network): the code is either's
            return (f"exit {exit_code}: pytest ({PYTEST_NOT_RUN[exit_code]}), or `{PurePath(runner).name} run` "
                    "failing before pytest started")
        return f"pytest exit {exit_code}: {PYTEST_NOT_RUN[exit_code]}"
    return None


def _signal_reason(exit_code: int) -> str:
    number = -exit_code if exit_code < 0 else exit_code - _SIGNAL_BASE
    try:
        name = signal.Signals(number).name
    except ValueError:
        return f"exit {exit_code}, in the range a shell reports for a killed command"
    return f"killed by {name}" + ("" if exit_code < 0 else f" (exit {exit_code})")


def last_command(text: str) -> tuple[int, str]:
    """(offset, text) of the last simple command of a command line: after the last `;`, `&&`,
    `||`, `|`, `&`, line break or parenthesis outside quotes and comments. Redirections such as
    `2>&1` are not separators."""
    start, i, end, word_start = 0, 0, len(text), True
    last = (0, text)
    while i < end:
        char = text[i]
        if char == "\\":
            i, word_start = i + 2, False
            continue
        if char in "'\"":
            i, word_start = _after_quote(text, i), False
            continue
        if char == "#" and word_start:
            newline = text.find("\n", i)
            i = end if newline < 0 else newline
            continue
        redirection = char == "&" and ((i and text[i - 1] in "<>") or text.startswith(">", i + 1))
        if char in ";|&\n()" and not redirection:
            if text[start:i].strip():
                last = (start, text[start:i])
            i = start = i + 1
            word_start = True
            continue
        word_start = char in " \t\r"
        i += 1
    if text[start:end].strip():
        last = (start, text[start:end])
    return last


def _after_quote(text: str, i: int) -> int:
    """The offset after the quoted string opening at `i` (a backslash escapes inside `"…"`)."""
    quote, i = text[i], i + 1
    while i < len(text) and text[i] != quote:
        i += 2 if quote == '"' and text[i] == "\\" else 1
    return i + 1


def _words(segment: str) -> list[str]:
    try:
        return shlex.split(segment, comments=True)
    except ValueError:
        return segment.split()


def _program(words: list[str]) -> list[str]:
    """The words from the program a command starts: variables set before it (`CI=1`) skipped."""
    i = 0
    while i < len(words) and _ASSIGNMENT.match(words[i]):
        i += 1
    return words[i:]


def _unwrapped(words: list[str]) -> tuple[list[str], list[str]]:
    """The command after the wrappers that start it (`env X=1`, `timeout 60`, `nice -n 5`,
    `time`), and those wrappers' names."""
    words, wrappers = _program(words), []
    while words and PurePath(words[0]).name in _WRAPPERS:
        wrappers.append(PurePath(words[0]).name)
        valued, operands = _WRAPPERS[wrappers[-1]]
        i = 1
        while i < len(words) and (words[i].startswith("-") or _ASSIGNMENT.match(words[i])):
            i += 2 if words[i] in valued else 1
        words = _program(words[i + operands:])
    return words, wrappers


def runs_pytest(words: list[str]) -> bool:
    """Whether a simple command (as words) starts pytest: `pytest`, `py.test`, `python -m pytest`,
    a path to either, through `uv run`/`poetry run`-style runners, wrappers or `sh -c '…'`."""
    words = _unwrapped(words)[0]
    if not words:
        return False
    name = PurePath(words[0]).name
    if name in ("pytest", "py.test"):
        return True
    if _PYTHON.fullmatch(name):
        return _python_module(words[1:]) == "pytest"
    if name in _RUNNERS and words[1:2] == ["run"]:
        rest, i = words[2:], 0
        while i < len(rest) and rest[i].startswith("-"):
            i += 2 if rest[i] in _RUNNER_VALUES else 1
        return runs_pytest(rest[i:])
    if name in _SHELLS and len(words) >= 3 and words[1] in ("-c", "-lc"):
        return runs_pytest(_words(last_command(words[2])[1]))
    return False


def _python_module(args: list[str]) -> str | None:
    """The module `python [options] -m MODULE` runs, or None (a script, `-c`, no `-m`)."""
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "-m":
            return args[i + 1] if i + 1 < len(args) else None
        if arg.startswith("-m"):
            return arg[2:]
        if arg in ("-X", "-W"):
            i += 2
        elif arg.startswith("-") and not arg.startswith("-c"):
            i += 1
        else:
            return None
    return None
