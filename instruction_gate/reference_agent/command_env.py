"""`NAME=value cmd`: the environment assignments written before a command, and which apply.

Instructions often set a variable for one command ("Run `CI=1 npm test`"). A variable can also
make a program load code from elsewhere (`PYTHONPATH`, `NODE_OPTIONS`, `LD_PRELOAD`,
`PYTEST_ADDOPTS=-p plugin`, `GIT_SSH_COMMAND`, `PATH` itself), and instruction files are
untrusted. So only the variables below are applied: each changes output, locale or strictness,
none names a program, a module, a plugin, a path to search or options to parse. Any other name
refuses the whole command, with the reason. `PYTHONWARNINGS` is left out: a warning category
in it names a module Python imports.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from instruction_gate.reference_agent.command_policy import refusal

#: Variables a command in the instructions may set; documented in README.md ("command policy").
HARMLESS = frozenset({
    "CI", "NO_COLOR", "FORCE_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "TERM", "COLUMNS", "LINES",
    "TZ", "LANG", "LANGUAGE", "LC_ALL",
    "PYTHONWARNDEFAULTENCODING", "PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED", "PYTHONHASHSEED",
    "PYTHONUTF8", "PYTHONIOENCODING", "PYTHONFAULTHANDLER", "PYTHONDEVMODE",
    "RUST_BACKTRACE", "RUST_LOG", "CARGO_TERM_COLOR", "NODE_ENV",
})
_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(.*)", re.DOTALL)


@dataclass(frozen=True)
class Invocation:
    """What the executor does with one command: start `argv` with `env` laid over the agent's
    environment, or nothing (`refused` says why)."""

    argv: tuple[str, ...]
    env: dict[str, str] = field(default_factory=dict)
    refused: str | None = None


def prepare(command: str, repo_root: Path, cwd: Path, allow_any: bool = False,
            instruction_names: frozenset[str] = frozenset()) -> Invocation:
    """Split `command` into its leading assignments and the program, and judge both."""
    try:
        tokens = shlex.split(command)
    except ValueError as exc:
        return Invocation((command,), refused=f"cannot parse: {exc}")
    env: dict[str, str] = {}
    while tokens and (match := _ASSIGNMENT.fullmatch(tokens[0])):
        env[match.group(1)] = match.group(2)
        tokens = tokens[1:]
    argv = tuple(tokens)
    if not argv:
        return Invocation(argv, env, refused="only variable assignments, no command" if env else "empty command")
    if allow_any:
        return Invocation(argv, env)
    unsafe = next((name for name in env if name not in HARMLESS), None)
    if unsafe is not None:
        return Invocation(argv, env, refused=f"{unsafe}=…: not among the variables the reference agent sets before a "
                                              "command (CI, NO_COLOR, TERM, …); others can make a program load code "
                                              "from elsewhere")
    return Invocation(argv, env, refused=refusal(list(argv), repo_root, cwd, instruction_names))


def describe(env: dict[str, str]) -> str:
    """`CI=1 NO_COLOR=1`, as a shell would read it back."""
    return " ".join(f"{name}={shlex.quote(value)}" for name, value in env.items())
