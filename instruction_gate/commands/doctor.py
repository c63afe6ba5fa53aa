"""`instruction-gate doctor`: does this adapter understand the agent CLI installed here?

Runs the user's CLI through its shipped adapter against the scripted loopback provider (no
model, no key, no network) and checks what the adapter reports against what the provider
saw: the event format (a command with its exit code, the tool-call count), discovery (the
instruction files and bytes that reached the model, in order), usage (tokens equal to what
the provider sent) and failure classes (a provider 500 and 401 are infrastructure). Exit 0
when every check holds, 1 when one does not (the adapter would corrupt verdicts with this
CLI version), 3 when the CLI cannot be found or is not the
agent's (missing, not executable, `--version` not what that CLI prints). `--repo` warns about
agent project configuration the adapters refuse or ignore.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from instruction_gate import git
from instruction_gate.agents.conformance import (LiveRun, claude_memory, codex_instructions, copilot_block_files,
                                                 copilot_instructions, gemini_context, gemini_imports,
                                                 opencode_instructions, run_live)
from instruction_gate.agents.scripted_provider import Step
from instruction_gate.commands import doctor_setup
from instruction_gate.console import say
from instruction_gate.errors import EXIT_NOT_EVALUATED, ConfigError

_FILES = {"AGENTS.md": "Root rules for Codex.\n", "CLAUDE.md": "Root memory.\n@docs/style.md\n",
          "docs/style.md": "Style.\n", "pkg/AGENTS.md": "Package rules.\n", "pkg/CLAUDE.md": "Package memory.\n",
          "pkg/app.py": "x = 1\n"}
_TOOL = {"codex": "shell", "claude": "Bash", "gemini": "run_shell_command", "opencode": "bash", "copilot": "bash"}
#: Agents whose shell tool takes a `description`, and which report only the agent loop's calls.
_DESCRIBED = ("opencode", "copilot")
#: A program only on the PATH the harness hands the agent (like a check environment's bin/).
_PROBE = "ig-doctor-path-probe"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--agent", choices=sorted(_TOOL), help="which adapter and CLI to check")
    parser.add_argument("--binary", help="the CLI executable (default: the agent's name on PATH)")
    parser.add_argument("--repo", type=Path, help="also warn about agent project configuration in this repository "
                                                  "(.gemini/settings.json, opencode.json) that gate runs do not use")


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str


def _repo(root: Path) -> Path:
    repo = root / "repo"
    for rel, text in _FILES.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    git.git("init", "-q", cwd=repo)
    return repo


def _sent_sources(agent: str, run: LiveRun, repo: Path) -> list[str]:
    """The repository files whose text reached the model, in order, as the provider saw them."""
    if not run.requests:
        return []
    def rel(path: str) -> str:
        return Path(path).resolve().relative_to(repo.resolve()).as_posix()

    if agent == "claude":
        return [rel(p) for p, _ in claude_memory(run.requests[0])]
    if agent == "opencode":
        return [rel(p) for p, _ in opencode_instructions(run.requests[0])]
    if agent == "copilot":  # a block names no path: the probe file whose text it is, then its imports
        texts = {text: path for path, text in _FILES.items()}
        return [texts.get(text, f"unrecognised: {text[:80]!r}") if path is None else rel(path)
                for block in copilot_instructions(run.requests[0]).blocks for path, text in copilot_block_files(block)]
    if agent == "gemini":  # each context file, then the files inlined into it
        return [rel(f) for p, text in gemini_context(run.requests[0]) for f in (p, *gemini_imports(p, text))]
    sent = codex_instructions(run.requests[0]) or ""
    chain = ["AGENTS.md", "pkg/AGENTS.md"]
    return chain if sent == "\n\n".join((repo / p).read_text() for p in chain) else [f"unrecognised: {sent[:80]!r}"]


def _checks(agent: str, binary: str, root: Path) -> list[Check]:
    repo = _repo(root)
    options = {"binary": binary}
    if agent == "claude":
        options.update({"max_retries": "0", "request_timeout_seconds": "10"})
    if agent == "opencode":
        options["stall_seconds"] = "5"  # its five retries back off for a minute without retry-after

    # Copilot unpacks its program into a cache on first use: once for all the checks, not per run.
    cache = {"COPILOT_PKG_CACHE_HOME": str(root / "copilot-cache")} if agent == "copilot" else {}

    def live(name: str, script: list[Step], timeout: float = 45, env_extra: dict[str, str] | None = None,
             **kwargs) -> LiveRun:
        return run_live(agent, Path(binary), repo, script, root / name, options=options, timeout=timeout,
                        env_extra={**cache, **(env_extra or {})}, **kwargs)

    def shell(command: str) -> dict[str, str]:
        return {"command": command, **({"description": command} if agent in _DESCRIBED else {})}

    checks: list[Check] = []
    run = live("format", [Step("tool", name=_TOOL[agent], args=shell("exit 3"), input_tokens=150,
                               output_tokens=11),
                          Step("text", text="Finished.", input_tokens=170, output_tokens=13)], cwd="pkg")
    result = run.result
    checks.append(Check("event format", result.get("status") == "completed" and result.get("tool_calls") == 1
                        and [(e.get("command"), e.get("exit_code")) for e in run.of_type("tool")] == [("exit 3", 3)],
                        f"status {result.get('status')}, tool calls {result.get('tool_calls')}, "
                        f"commands {run.commands()}"))
    sent = _sent_sources(agent, run, repo)
    checks.append(Check("discovery", result.get("instruction_sources") == sent,
                        f"adapter reported {result.get('instruction_sources')}, the model received {sent}"))
    cached = agent == "claude"  # Anthropic's input_tokens exclude cache reads; the adapter's include them
    # OpenCode leaves its title call out of the usage it reports: the agent loop's calls only (Copilot too).
    counted = run.requests if agent in _DESCRIBED else run.answered
    expected = (sum(r.step.input_tokens + (r.step.cached_tokens if cached else 0) for r in counted),
                sum(r.step.output_tokens for r in counted))
    reported = (result.get("input_tokens"), result.get("output_tokens"))
    checks.append(Check("usage", reported == expected, f"adapter reported {reported}, the provider sent {expected}"))
    checks.append(_path_check(root, lambda script, env: live("path", script, env_extra=env), _TOOL[agent], shell))
    for status, reason in ((500, "provider_error"), (401, "auth_failed")):
        # Copilot retries a 5xx for about 16 s: still retrying at a shorter deadline, classified by the status.
        timeout = 12 if agent == "copilot" and status == 500 else 45
        failed = live(f"status-{status}", [Step("status", status=status, times=0, retry_after_ms=10)],
                      timeout=timeout).result
        got = (failed.get("failure_class"), failed.get("failure_reason"))
        checks.append(Check(f"HTTP {status}", got == ("infrastructure", reason),
                            f"classified as {got}, expected ('infrastructure', {reason!r})"))
    return checks


def _path_check(root: Path, live: Callable[[list[Step], dict[str, str]], LiveRun], tool: str,
                shell: Callable[[str], dict[str, str]]) -> Check:
    """Does a command the agent runs find a program on the PATH the harness gave it?"""
    bin_dir = root / "env" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / _PROBE).write_text("#!/bin/sh\nexit 0\n")
    (bin_dir / _PROBE).chmod(0o755)
    path = os.pathsep.join([str(bin_dir), os.environ.get("PATH", os.defpath)])
    run = live([Step("tool", name=tool, args=shell(_PROBE)), Step("text", text="Done.")], {"PATH": path})
    codes = [e.get("exit_code") for e in run.of_type("tool")]
    hint = "" if codes == [0] else (" (127: the agent's shell reset PATH, so a check environment's bare `python` "
                                    "or `pytest` would not be found; see adapters/README.md)")
    return Check("shell PATH", codes == [0], f"a program first on the agent's PATH exited {codes}{hint}")


def run(args: argparse.Namespace) -> int:
    if args.agent is None and args.repo is None:
        raise ConfigError("doctor: pass --agent (check a CLI), --repo (check a repository), or both")
    if args.repo is not None:
        if not args.repo.is_dir():
            raise ConfigError(f"doctor: --repo {args.repo}: not a directory")
        warnings = doctor_setup.repo_warnings(args.repo)
        for warning in warnings:
            say(f"warning: {warning}", flush=True)
        say(f"doctor: {args.repo}: " + (f"{len(warnings)} project configuration file(s) the gate's runs do not "
                                          "use as a local run would" if warnings else "no agent project configuration"),
              flush=True)
        if args.agent is None:
            return 0
    # An absolute path: the adapter runs in the probe repository.
    found = doctor_setup.find_binary(args.agent, args.binary)
    binary = found.path
    problem = found.problem or (doctor_setup.version_problem(args.agent, binary, Path.cwd()) if binary else "")
    if problem or binary is None:
        say(f"doctor: {problem}", flush=True)
        return EXIT_NOT_EVALUATED
    with tempfile.TemporaryDirectory(prefix="ig-doctor-") as tmp:
        checks = _checks(args.agent, binary, Path(tmp))
    for check in checks:
        say(f"{'ok  ' if check.ok else 'FAIL'} {check.name}: {check.detail}")
    failed = [c.name for c in checks if not c.ok]
    say(f"doctor: {args.agent} at {binary}: " + (f"the adapter does not understand this CLI ({', '.join(failed)})"
                                                  if failed else "the adapter understands this CLI"))
    return 1 if failed else 0


