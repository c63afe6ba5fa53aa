"""Drive a headless agent CLI through every turn of a task and report one result.

An agent is described by a `CliAgent` (how to call it) and a `StreamParser` (how to read
its stdout). The turn loop, timeouts, version probe and result are shared by all of them.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any, Protocol

from instruction_gate import proc
from instruction_gate.agents.discovery import LoadedFile, outside_repository
from instruction_gate.agents.failures import Failure, launch_failure
from instruction_gate.agents.protocol import AdapterRequest, EventWriter, Usage, adapter_version, result_event
from instruction_gate.console import say

#: Seconds kept back from the runner's timeout so the adapter can still kill the agent
#: and print its result before the runner kills the adapter.
MIN_TIMEOUT_MARGIN = 2.0
MAX_TIMEOUT_MARGIN = 15.0
VERSION_PROBE_SECONDS = 20.0
#: TERM -> KILL grace for the agent's process group; shorter than the runner's own grace,
#: so a TERM to the adapter still lets it kill the agent before the adapter is KILLed.
AGENT_KILL_GRACE = 1.0


def count(value: Any) -> int:
    """A token or item count as reported, or 0 when absent or not a non-negative integer."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


class StreamParser:
    """Turns one agent CLI's stdout lines into protocol events, across all turns of a run.

    Subclasses implement `handle` (one decoded JSON object) and `end_process` (the CLI
    exited: flush leftovers and decide whether the turn failed). Unknown event types and
    fields are ignored; lines that are not JSON objects are only counted.
    """

    def __init__(self, repo_root: Path):
        self.repo_root = Path(os.path.realpath(repo_root))
        # The agent may print paths through the root as given or through its real path.
        self._roots = tuple(dict.fromkeys([Path(os.path.normpath(os.path.abspath(repo_root))), self.repo_root]))
        self.turn = 0
        self.tool_calls = 0
        self.usage = Usage()
        self.cost_usd: float | None = None
        self.final_message: str | None = None
        self.malformed_lines = 0
        self.session_id: str | None = None
        self.model: str | None = None
        self.touched_paths: list[str] = []  #: files the agent read or edited, repo-relative
        #: Names of the skills the agent invoked, from its own stream; None: the adapter cannot tell.
        self.skills_invoked: list[str] | None = None

    def feed(self, line: bytes) -> list[dict[str, Any]]:
        text = line.decode("utf-8", errors="replace").strip()
        if not text:
            return []
        try:
            obj = json.loads(text)
        except json.JSONDecodeError:
            obj = None
        if not isinstance(obj, dict):
            self.malformed_lines += 1
            return []
        return self.handle(obj)

    def begin_turn(self, index: int) -> None:
        self.turn = index

    def sent_prompt(self, prompt: str) -> None:
        """The prompt the CLI is about to get (a CLI that expands skill mentions in it overrides this)."""

    def invoked_skill(self, name: Any) -> None:
        """A skill whose body reached the model, by the name invoked (recorded once, in order)."""
        if self.skills_invoked is None:
            self.skills_invoked = []
        if isinstance(name, str) and name.strip() and name.strip() not in self.skills_invoked:
            self.skills_invoked.append(name.strip())

    def handle(self, obj: dict[str, Any]) -> list[dict[str, Any]]:
        raise NotImplementedError

    def end_process(self, result: proc.ProcResult) -> tuple[list[dict[str, Any]], Failure | None]:
        raise NotImplementedError

    def timeout_failure(self, detail: str) -> Failure:
        """The failure of a CLI killed at the adapter's deadline (called after `end_process`,
        so the state of the killed process is still there). Agents whose streams show a
        provider stall override this: a hung provider is not the agent's fault."""
        return Failure("timeout", detail)

    def relpath(self, path: Any) -> str:
        """A path as the agent printed it, made repository-relative when it lies inside."""
        text = str(path)
        candidate = Path(text)
        if not candidate.is_absolute():
            return candidate.as_posix()
        normal = Path(os.path.normpath(candidate))
        for root in self._roots:
            if normal.is_relative_to(root):
                return normal.relative_to(root).as_posix()
        return text

    def tool_command(self, name: str, args: dict[str, Any], shell_tool: str,
                     path_keys: tuple[str, ...]) -> tuple[str, str | None]:
        """(command text, path) of one tool call: the shell tool's command line as given,
        else `name target` (the path it names, repository-relative, or its pattern, URL or
        query)."""
        path = next((args[k] for k in path_keys if isinstance(args.get(k), str)), None)
        if name == shell_tool and isinstance(args.get("command"), str):
            return args["command"], path
        target = self.relpath(path) if path is not None else next(
            (str(args[k]) for k in ("pattern", "url", "query") if k in args), "")
        return f"{name} {target}".strip(), path

    def touch(self, path: Any) -> None:
        rel = self.relpath(path)
        if rel not in self.touched_paths:
            self.touched_paths.append(rel)


class CliAgent(Protocol):
    """How to call one agent CLI headlessly."""

    agent_name: str  #: provenance `agent_name`
    binary: str  #: executable name or path
    model: str | None  #: requested model, if any

    def turn_argv(self, binary: str, index: int, prompt: str, session_id: str | None) -> list[str]:
        """Arguments for turn `index`; later turns continue `session_id`."""

    def turn_stdin(self, prompt: str) -> str | None:
        """What to write to the CLI's stdin for a turn (None: nothing)."""

    def new_parser(self, request: AdapterRequest) -> StreamParser:
        """A fresh parser for one run."""

    def instruction_files(self, request: AdapterRequest, parser: StreamParser) -> list[LoadedFile]:
        """The instruction files that reached the agent during this run."""

    def process_env(self, agent_env: dict[str, str], timeout: float | None) -> dict[str, str]:
        """The CLI's environment: `agent_env` plus the agent's own settings (retry budget,
        request timeout) sized to the adapter's deadline `timeout` (seconds, or None)."""

    # Optional: `refuse_turn(request) -> Failure | None`, checked before each turn starts,
    # `installed_version(binary) -> str | None`, which spares the `--version` probe, and
    # `lazy_instruction_sources(request, parser) -> list[str]`: the instruction files that reached
    # the model only after the start (repository-relative), as the CLI's stream reports them.


def resolve_binary(binary: str, agent_env: dict[str, str]) -> str | None:
    """Absolute path of the CLI: a path as given, else the agent's PATH, then the adapter's."""
    if os.sep in binary:
        return binary if os.access(binary, os.X_OK) else None
    return shutil.which(binary, path=agent_env.get("PATH")) or shutil.which(binary)


def probe_version(binary: str, request: AdapterRequest) -> str | None:
    result = proc.run([binary, "--version"], request.workspace, env=request.agent_env,
                      timeout=VERSION_PROBE_SECONDS, tail_bytes=4096)
    lines = [line.strip() for line in result.stdout.splitlines() if line.strip()]
    return lines[0] if result.ok and lines else None


def stall_limit(option: float | None, request: AdapterRequest) -> float:
    """Seconds of silence from the model that count as a hung provider when the deadline kills
    the CLI: the option, else a quarter of the runner's limit kept within 30-600 s."""
    if option is not None:
        return option
    limit = request.timeout_seconds
    return 600.0 if limit is None else min(600.0, max(30.0, limit / 4))


def agent_timeout(request: AdapterRequest, override: float | None) -> float | None:
    """The adapter's own deadline: the runner's limit minus a margin, or the option if smaller."""
    limit = request.timeout_seconds
    if limit is not None:
        limit -= min(MAX_TIMEOUT_MARGIN, max(MIN_TIMEOUT_MARGIN, 0.1 * limit))
    candidates = [t for t in (limit, override) if t is not None and t > 0]
    return min(candidates) if candidates else None


def run_cli_agent(agent: CliAgent, request: AdapterRequest, writer: EventWriter,
                  timeout_override: float | None = None) -> dict[str, Any]:
    """Run every turn, stream events to `writer`, emit and return the result event."""
    parser = agent.new_parser(request)
    binary = resolve_binary(agent.binary, request.agent_env)
    # Optional: an agent that can read its version from the installed package skips the probe.
    installed = getattr(agent, "installed_version", None)
    version = ((installed(binary) if installed else None) or probe_version(binary, request)) if binary else None
    failure: Failure | None = None if binary else Failure("cli_not_found", f"{agent.binary!r} not on PATH")
    timeout = agent_timeout(request, timeout_override)
    deadline = None if timeout is None else time.monotonic() + timeout
    env = agent.process_env(request.agent_env, timeout)
    for index, prompt in enumerate(request.turns if binary else ()):
        writer.emit({"type": "turn", "index": index})
        parser.begin_turn(index)
        if index > 0 and not parser.session_id:
            failure = Failure("agent_error", "no session id to continue")
            break
        # Optional: an agent may refuse to start its CLI in the workspace as it now stands.
        refusal = getattr(agent, "refuse_turn", None)
        outside = outside_repository(request.repo_root, request.workspace)  # every agent: no traceback, no run
        failure = Failure("agent_error", f"{outside}: the agent would work and load instructions there") \
            if outside else refusal(request) if refusal else None
        if failure is not None:
            break
        parser.sent_prompt(prompt)
        remaining = None if deadline is None else max(0.1, deadline - time.monotonic())
        result = proc.run(agent.turn_argv(binary, index, prompt, parser.session_id),  # type: ignore[arg-type]
                          request.workspace, env=env, stdin=agent.turn_stdin(prompt),
                          timeout=remaining, grace=AGENT_KILL_GRACE, reap_orphans=True,
                          on_stdout_line=lambda line: writer.emit_all(parser.feed(line)))
        events, failure = parser.end_process(result)
        writer.emit_all(events)
        if result.start_error:
            failure = Failure("cli_not_found", result.start_error)
        elif (broken := launch_failure(result.exit_code, result.stdout, result.stderr)) is not None:
            failure = broken
        elif result.timed_out:
            failure = parser.timeout_failure(f"killed after {remaining:.0f}s")
        if failure is not None:
            break
    if failure is not None and failure.detail:
        say(f"{agent.agent_name}: {failure.reason}: {failure.detail}", file=sys.stderr)
    if parser.malformed_lines:
        say(f"{agent.agent_name}: ignored {parser.malformed_lines} malformed output lines", file=sys.stderr)
    lazy = getattr(agent, "lazy_instruction_sources", None)
    # Out of the repository no file can be named: the run was refused before the agent started.
    files = [] if outside_repository(request.repo_root, request.workspace) else agent.instruction_files(request, parser)
    event = result_event(
        failure=failure, tool_calls=parser.tool_calls, usage=parser.usage,
        provider_cost_usd=parser.cost_usd, instruction_files=files,
        final_message=parser.final_message,
        provenance={"agent_name": agent.agent_name, "model": parser.model or agent.model,
                    "harness_version": version, "adapter_version": adapter_version(agent.agent_name)},
        skills_invoked=parser.skills_invoked,
        lazy_instruction_sources=lazy(request, parser) if lazy else lazy_sources(agent, request, parser, files))
    writer.emit(event)
    return event


def lazy_sources(agent: CliAgent, request: AdapterRequest, parser: StreamParser, files: list[LoadedFile]) -> list[str]:
    """For agents without their own `lazy_instruction_sources`: the reported instruction files
    that reached the model only after the start, i.e. those the agent's discovery does not give
    for a run that has touched nothing yet (a fresh parser of the same session)."""
    if not files:
        return []
    start = agent.new_parser(request)
    start.session_id = parser.session_id
    at_start = {f.path for f in agent.instruction_files(request, start)}
    return [f.path for f in files if f.bytes_loaded > 0 and f.path not in at_start]
