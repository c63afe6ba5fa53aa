"""Run the commands the instructions ask for: shell-free, from an allowlist, with honest exit codes.

Instruction files are untrusted (a candidate may write anything in them), so the reference agent
runs only known programs and refuses arguments that would execute text from an instruction file
or inline code. The workspace's own scripts come from the trusted base tree and may run.
"""

from __future__ import annotations

import fnmatch
import os
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from instruction_gate import proc

#: Programs the reference agent may start (by name, found on PATH).
ALLOWED_PROGRAMS = frozenset({
    "python", "python3", "pytest", "make", "git", "npm", "node", "ruff", "mypy", "tox",
    "ls", "cat", "echo", "true", "false",
})
#: Arguments that turn a program into an interpreter of text given inline or from another file.
INLINE_CODE_FLAGS = {
    "python": {"-c"}, "python3": {"-c"}, "node": {"-e", "--eval", "-p", "--print"},
    "make": {"-f", "--file", "--makefile", "-E", "--eval"}, "git": {"-c", "--config-env", "--exec-path"},
}
#: Instruction files may never be handed to a program: that would execute candidate text.
INSTRUCTION_FILE_GLOBS = ("AGENTS*.md", "CLAUDE*.md", "*.override.md")
#: Exit codes recorded for commands that did not run, as a shell would report them.
EXIT_REFUSED, EXIT_NOT_FOUND, EXIT_TIMED_OUT = 126, 127, 124


@dataclass(frozen=True)
class Execution:
    """What running (or refusing) one command produced."""

    argv: tuple[str, ...]
    exit_code: int
    output: str  #: combined tail of stdout and stderr, what the agent "reads"
    refused: str | None = None  #: why the command was not started


def refusal(argv: list[str], repo_root: Path, cwd: Path) -> str | None:
    """Why `argv` must not run, or None when it may."""
    if not argv:
        return "empty command"
    program = argv[0]
    name = os.path.basename(program)
    if "/" in program:
        target = (cwd / program).resolve()
        if not target.is_relative_to(repo_root.resolve()):
            return f"{program} is outside the repository"
    elif name not in ALLOWED_PROGRAMS:
        return f"{name} is not on the reference agent's allowlist"
    flags = INLINE_CODE_FLAGS.get(name, set())
    for arg in argv[1:]:
        if arg in flags or any(arg.startswith(f + "=") for f in flags if f.startswith("--")):
            return f"{arg} would run inline code"
        if any(fnmatch.fnmatch(os.path.basename(arg), g) for g in INSTRUCTION_FILE_GLOBS):
            return f"{arg} is an instruction file"
    return None


def execute(command: str, repo_root: Path, cwd: Path, env: Mapping[str, str], timeout: float,
            allow_any: bool = False, tail_bytes: int = 4096) -> Execution:
    """Run one command; a command that cannot start fails with 127, a refused one with 126."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        return Execution((command,), EXIT_REFUSED, "", refused=f"cannot parse: {exc}")
    why = None if allow_any and argv else refusal(argv, repo_root, cwd)
    if why:
        return Execution(tuple(argv), EXIT_REFUSED, "", refused=why)
    result = proc.run(argv, cwd, env=env, timeout=timeout, tail_bytes=tail_bytes)
    if result.exit_code is None and not result.timed_out:
        return Execution(tuple(argv), EXIT_NOT_FOUND, result.start_error or "could not start")
    exit_code = EXIT_TIMED_OUT if result.timed_out else int(result.exit_code or 0)
    return Execution(tuple(argv), exit_code, (result.stdout + result.stderr)[-tail_bytes:])
