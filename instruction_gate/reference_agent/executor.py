"""Run the commands the instructions ask for: shell-free, from an allowlist, with honest exit codes.

Instruction files are untrusted (a candidate may write anything in them), so the reference agent
runs only the commands `command_policy` allows. The workspace's own scripts come from the trusted
base tree and may run. A command is cut into steps first (`command_chain`: `A && B`, a leading
`cd DIR &&`); each step is judged just before it would start, as a step-by-step agent would, so
the steps before a refused one have run and nothing after it does.
"""

from __future__ import annotations

import shlex
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from instruction_gate import proc
from instruction_gate.reference_agent.command_chain import Step, split
from instruction_gate.reference_agent.command_env import prepare

#: Exit codes recorded for commands that did not run, as a shell would report them.
EXIT_REFUSED, EXIT_NOT_FOUND, EXIT_TIMED_OUT = 126, 127, 124
#: A `cd` to a directory that does not exist, as a shell reports it.
EXIT_CD_FAILED = 1


@dataclass(frozen=True)
class Execution:
    """What running (or refusing) one step produced."""

    argv: tuple[str, ...]
    exit_code: int
    output: str  #: combined tail of stdout and stderr, what the agent "reads"
    refused: str | None = None  #: why the step was not started
    command: str = ""  #: the step as written
    cwd: Path | None = None  #: where it ran (or would have)


@dataclass(frozen=True)
class Executed:
    """The steps of one command that were attempted, in order; never empty. The command's exit
    code is the last attempted step's, as a shell reports `A && B`."""

    steps: tuple[Execution, ...]

    @property
    def exit_code(self) -> int:
        return self.steps[-1].exit_code

    @property
    def refused(self) -> str | None:
        return self.steps[-1].refused

    @property
    def argv(self) -> tuple[str, ...]:
        return self.steps[-1].argv

    @property
    def output(self) -> str:
        return self.steps[-1].output


def execute(command: str, repo_root: Path, cwd: Path, env: Mapping[str, str], timeout: float,
            allow_any: bool = False, tail_bytes: int = 4096,
            instruction_names: frozenset[str] = frozenset()) -> Executed:
    """Run `command` step by step (each with its leading `NAME=value` assignments applied as
    `command_env` allows) until a step exits non-zero or is refused; `timeout` is for the whole
    command. A step that cannot start fails with 127, a refused one with 126, and a command with
    shell syntax the agent cannot follow is refused whole."""
    chain = split(command, repo_root, cwd, allow_any)
    if chain.refused:
        return Executed((Execution((command,), EXIT_REFUSED, "", chain.refused, command, cwd),))
    deadline = time.monotonic() + timeout
    done: list[Execution] = []
    for step in chain.steps:
        done.append(_run(step, repo_root, env, max(0.1, deadline - time.monotonic()), allow_any, tail_bytes,
                         instruction_names))
        if done[-1].exit_code != 0:
            break
    return Executed(tuple(done))


def _run(step: Step, repo_root: Path, env: Mapping[str, str], timeout: float, allow_any: bool, tail_bytes: int,
         instruction_names: frozenset[str]) -> Execution:
    if step.failure:
        return Execution(tuple(shlex.split(step.text)), EXIT_CD_FAILED, step.failure, command=step.text, cwd=step.cwd)
    invocation = prepare(step.text, repo_root, step.cwd, allow_any, instruction_names)
    argv = invocation.argv
    if invocation.refused:
        return Execution(argv or (step.text,), EXIT_REFUSED, "", invocation.refused, step.text, step.cwd)
    result = proc.run(list(argv), step.cwd, env={**env, **invocation.env}, timeout=timeout, tail_bytes=tail_bytes)
    if result.exit_code is None and not result.timed_out:
        return Execution(argv, EXIT_NOT_FOUND, result.start_error or "could not start", None, step.text, step.cwd)
    exit_code = EXIT_TIMED_OUT if result.timed_out else int(result.exit_code or 0)
    return Execution(argv, exit_code, (result.stdout + result.stderr)[-tail_bytes:], None, step.text, step.cwd)
