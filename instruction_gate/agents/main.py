"""Entry point shared by the `adapters/<agent>` scripts: options, request, run, result."""

from __future__ import annotations

import signal
import sys
from typing import Callable, NamedTuple, NoReturn

from instruction_gate.agents.claude import adapter as claude
from instruction_gate.agents.codex import adapter as codex
from instruction_gate.agents.copilot import adapter as copilot
from instruction_gate.agents.gemini import adapter as gemini
from instruction_gate.agents.opencode import adapter as opencode
from instruction_gate.agents.cli_agent import CliAgent, run_cli_agent
from instruction_gate.agents.options import OptionSpec, Options, merged_options, parse_adapter_flags
from instruction_gate.agents.protocol import AdapterRequest, EventWriter
from instruction_gate.errors import ConfigError
from instruction_gate.console import say
from instruction_gate.agents.undumpable import harden_adapter


class AgentKind(NamedTuple):
    options: tuple[OptionSpec, ...]
    build: Callable[[Options, AdapterRequest], CliAgent]  #: (options, request) -> agent


#: Short name -> how to build that agent; `adapters/<name>` scripts look themselves up here.
AGENTS: dict[str, AgentKind] = {
    "codex": AgentKind(codex.OPTIONS, codex.CodexAgent.from_options),
    "claude": AgentKind(claude.OPTIONS, claude.ClaudeAgent.from_options),
    "gemini": AgentKind(gemini.OPTIONS, gemini.GeminiAgent.from_options),
    "opencode": AgentKind(opencode.OPTIONS, opencode.OpenCodeAgent.from_options),
    "copilot": AgentKind(copilot.OPTIONS, copilot.CopilotAgent.from_options),
}


def _terminate(signum: int, frame: object) -> NoReturn:
    # Raising lets proc.run kill the agent's process group before this process exits.
    raise SystemExit(128 + signum)


def main(name: str, argv: list[str]) -> int:
    """Run adapter `name` on the request from stdin; 0 when a result event was written."""
    try:
        kind = AGENTS[name]
    except KeyError:
        say(f"unknown agent {name!r}; known: {', '.join(sorted(AGENTS))}", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, _terminate)
    harden_adapter(name)  # before any agent starts
    try:
        flags = parse_adapter_flags(f"adapters/{name}", kind.options, argv)
        request = AdapterRequest.parse(sys.stdin.read())
        options = merged_options(request.options, flags, kind.options, name)
        agent = kind.build(options, request)
        run_cli_agent(agent, request, EventWriter(), options.number("timeout_seconds"))
    except ConfigError as exc:
        say(f"{name}: {exc}", file=sys.stderr)
        return 2
    return 0
