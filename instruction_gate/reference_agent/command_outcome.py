"""What the executor would do with one command, in the words `explain` prints.

Judged by the functions the executor itself uses (`command_chain.split`, then
`command_env.prepare` per step), so `explain` never says "runs it" about a command the agent
would refuse or pass mangled to a program. Steps after the first are judged as the files stand
now; the executor judges each one again just before it starts.
"""

from __future__ import annotations

import os
from pathlib import Path

from instruction_gate.untrusted import quote
from instruction_gate.reference_agent.command_chain import split
from instruction_gate.reference_agent.command_env import describe, prepare

#: How the outcome of a command the policy (or the missing shell) stops begins.
REFUSED = "refused by the command policy"


def command_outcome(command: str, repo_root: Path, where: str, instruction_names: frozenset[str] = frozenset(),
                    when: str = "") -> str:
    """What the executor does with `command` started in `where` (repository-relative), judged by the
    same functions it uses (`command_chain.split`, then `command_env.prepare` per step). The outcome
    starts with its kind: "runs it", "partly runs it" (steps before a refused one), "refused by the
    command policy", or "fails" (a leading `cd` to no directory)."""
    chain = split(command, repo_root, repo_root / where)
    if chain.refused:
        return f"{REFUSED}: {chain.refused}"
    judged = [(step, prepare(step.text, repo_root, step.cwd, instruction_names=instruction_names)) for step in chain.steps]
    stop = next((i for i, (step, invocation) in enumerate(judged) if step.failure or invocation.refused), None)
    steps = len(judged)
    if stop is not None and judged[stop][0].failure:
        return f"fails: `{quote(judged[stop][0].text)}`: {judged[stop][0].failure}; nothing after it runs (exit 1)"
    if stop is not None:
        step, invocation = judged[stop]
        which = f"step {stop + 1} of {steps}, `{quote(step.text)}`: " if steps > 1 else ""
        if stop == 0:
            return f"{REFUSED}: {which}{invocation.refused}"
        ran = ", then ".join(f"`{quote(s.text)}`" for s, _ in judged[:stop])
        return (f"partly runs it{' ' + when if when else ''}: {ran} {_directory(step.cwd, repo_root)}, then stops: "
                f"{which}{REFUSED}: {invocation.refused}")
    how = ", ".join(filter(None, [when, _directory(judged[0][0].cwd, repo_root)]))
    if steps > 1:
        listed = ", then ".join(f"`{quote(s.text)}`" for s, _ in judged)
        return f"runs it {how} as {steps} steps, each once the one before exits 0: {listed}"
    env = judged[0][1].env
    return f"runs it {how}" + (f" with {describe(env)}" if env else "")


def _directory(cwd: Path, repo_root: Path) -> str:
    where = os.path.relpath(cwd, repo_root).replace(os.sep, "/")
    return f"in {'the repository root' if where == '.' else quote(where) + '/'}"


def command_cwd(command: str, where: str, repo_root: Path) -> str:
    """Where the command's steps run: its directory, or the one its leading `cd DIR &&` enters."""
    steps = split(command, repo_root, repo_root / where).steps
    return os.path.relpath(steps[-1].cwd, repo_root).replace(os.sep, "/") if steps else where

