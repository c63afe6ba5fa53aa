"""Run the commands the instructions ask for: shell-free, from an allowlist, with honest exit codes.

Instruction files are untrusted (a candidate may write anything in them), so the reference agent
runs only the commands `command_policy` allows. The workspace's own scripts come from the trusted
base tree and may run.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from instruction_gate import proc
from instruction_gate.reference_agent.command_env import prepare

#: Exit codes recorded for commands that did not run, as a shell would report them.
EXIT_REFUSED, EXIT_NOT_FOUND, EXIT_TIMED_OUT = 126, 127, 124


@dataclass(frozen=True)
class Execution:
    """What running (or refusing) one command produced."""

    argv: tuple[str, ...]
    exit_code: int
    output: str  #: combined tail of stdout and stderr, what the agent "reads"
    refused: str | None = None  #: why the command was not started


def execute(command: str, repo_root: Path, cwd: Path, env: Mapping[str, str], timeout: float,
            allow_any: bool = False, tail_bytes: int = 4096,
            instruction_names: frozenset[str] = frozenset()) -> Execution:
    """Run one command (leading `NAME=value` assignments applied as `command_env` allows); a command
    that cannot start fails with 127, a refused one with 126."""
    invocation = prepare(command, repo_root, cwd, allow_any, instruction_names)
    argv = invocation.argv
    if invocation.refused:
        return Execution(argv or (command,), EXIT_REFUSED, "", refused=invocation.refused)
    result = proc.run(list(argv), cwd, env={**env, **invocation.env}, timeout=timeout, tail_bytes=tail_bytes)
    if result.exit_code is None and not result.timed_out:
        return Execution(argv, EXIT_NOT_FOUND, result.start_error or "could not start")
    exit_code = EXIT_TIMED_OUT if result.timed_out else int(result.exit_code or 0)
    return Execution(argv, exit_code, (result.stdout + result.stderr)[-tail_bytes:])
