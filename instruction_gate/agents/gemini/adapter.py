"""The Gemini CLI adapter: `gemini -p PROMPT --output-format stream-json`, continued with
`--resume SESSION_ID`, under a private `GEMINI_CLI_HOME` whose settings the harness writes
(`gemini_home.py`): API-key auth, the context file names, no telemetry, hooks or skills."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from instruction_gate.agents.cli_agent import StreamParser, stall_limit
from instruction_gate.agents.discovery import LoadedFile
from instruction_gate.agents.gemini.discovery import gemini_sources, start_failure
from instruction_gate.agents.failures import Failure
from instruction_gate.agents.gemini.home import GeminiHome, workspace_context_files, workspace_hazards
from instruction_gate.agents.gemini.stream import GeminiStream
from instruction_gate.agents.options import OptionSpec, Options
from instruction_gate.agents.protocol import AdapterRequest
from instruction_gate.untrusted import read_instruction_bytes

#: The CLI's own default (10 attempts with backoff from 5 s) outlasts most task deadlines.
DEFAULT_RETRIES = 2
#: AGENTS.md first: a repository gated on AGENTS.md must reach the agent; GEMINI.md as usual.
DEFAULT_CONTEXT_FILES = ("AGENTS.md", "GEMINI.md")
APPROVAL_MODES = ("yolo", "auto_edit", "default", "plan")
OPTIONS = (
    OptionSpec("binary", "Gemini CLI executable (default: gemini on the agent's PATH)"),
    OptionSpec("model", "model passed as --model (default: the CLI's auto routing)"),
    OptionSpec("approval_mode", "passed as --approval-mode: yolo (default), auto_edit, default, plan; "
                                "headless, a tool needing approval is refused"),
    OptionSpec("context_files", f"context.fileName, comma-separated (default {','.join(DEFAULT_CONTEXT_FILES)})"),
    OptionSpec("max_turns", "model.maxSessionTurns: model turns per process"),
    OptionSpec("max_retries", f"API retries per request, as general.maxAttempts - 1 (default {DEFAULT_RETRIES})"),
    OptionSpec("stall_seconds", "silence while waiting on the model that counts as a hung provider when the "
                                "deadline kills the CLI (default: a quarter of the deadline, 30-600 s)"),
    OptionSpec("price_per_mtok", "USD per million tokens as INPUT,CACHED_INPUT,OUTPUT, to report "
                                 "provider_cost_usd (Gemini CLI prints no cost)"),
    OptionSpec("workspace_settings", "refuse (default): fail a run whose workspace has .gemini/settings.json "
                                     "or .gemini/.env; trust: let the CLI load them"),
    OptionSpec("sandbox", "true: pass --sandbox (the CLI's own container sandbox; default false)"),
    OptionSpec("extra_args", "more arguments for `gemini`, split like a shell would"),
    OptionSpec("timeout_seconds", "the adapter's own limit, if below the runner's"),
)


@dataclass(frozen=True)
class GeminiAgent:
    """How to call Gemini CLI for one run."""

    home: GeminiHome
    binary: str = "gemini"
    model: str | None = None
    approval_mode: str = "yolo"
    sandbox: bool = False
    trust_workspace_settings: bool = False
    stall_seconds: float | None = None
    prices_per_mtok: tuple[float, float, float] | None = None
    extra_args: tuple[str, ...] = ()
    agent_name: str = "gemini-cli"

    @classmethod
    def from_options(cls, options: Options, request: AdapterRequest) -> "GeminiAgent":
        home = GeminiHome.create(request.agent_env,
                                 context_files=options.names("context_files", DEFAULT_CONTEXT_FILES),
                                 max_attempts=1 + options.integer("max_retries", DEFAULT_RETRIES),  # type: ignore[operator]
                                 max_turns=options.integer("max_turns"))
        trust = options.choice("workspace_settings", ("refuse", "trust"), "refuse") == "trust"
        return cls(home=home, binary=options.text("binary", "gemini"), model=options.text("model"),  # type: ignore[arg-type]
                   approval_mode=options.choice("approval_mode", APPROVAL_MODES, "yolo"),
                   sandbox=bool(options.flag("sandbox", False)), trust_workspace_settings=trust,
                   stall_seconds=options.number("stall_seconds"), prices_per_mtok=options.prices("price_per_mtok"),
                   extra_args=options.words("extra_args"))

    def installed_version(self, binary: str) -> str | None:
        """The npm package's version when `binary` is its `bundle/gemini.js` (a start of node
        costs about a second; `--version` prints the same)."""
        bundle = Path(os.path.realpath(binary)).parent
        data = read_instruction_bytes(bundle.parent / "package.json", 64 * 1024) if bundle.name == "bundle" else None
        try:
            package = json.loads(data or b"null")
        except json.JSONDecodeError:
            return None
        if isinstance(package, dict) and package.get("name") == "@google/gemini-cli":
            return str(package.get("version")) if package.get("version") else None
        return None

    def process_env(self, agent_env: dict[str, str], timeout: float | None) -> dict[str, str]:
        return self.home.env(agent_env)

    def refuse_turn(self, request: AdapterRequest) -> Failure | None:
        """The agent's failure when the workspace holds files that would reconfigure the CLI (a
        candidate, or the agent itself, must not change its tools, hooks or context files), or
        when the CLI would stop before any request."""
        hazards = [] if self.trust_workspace_settings else workspace_hazards(request.repo_root, request.workspace)
        if hazards:
            return Failure("agent_error", f"workspace files would reconfigure Gemini CLI: {', '.join(hazards)} "
                                          "(adapter option workspace_settings=trust to allow)")
        if crash := start_failure(request.repo_root, request.workspace, self.context_files(request)):
            return Failure("agent_error", crash)
        return None

    def context_files(self, request: AdapterRequest) -> tuple[str, ...]:
        """The configured context file names: a trusted workspace's settings over the adapter's."""
        trusted = workspace_context_files(request.workspace) if self.trust_workspace_settings else None
        return trusted or self.home.context_files

    def turn_argv(self, binary: str, index: int, prompt: str, session_id: str | None) -> list[str]:
        self.home.write_settings()  # afresh: the agent can write to its own home
        # --prompt=TEXT: one argument, so a prompt starting with "-" is never read as a flag.
        argv = [binary, f"--prompt={prompt}", "--output-format", "stream-json",
                "--approval-mode", self.approval_mode,
                # No MCP server and no extension, whatever the user's or workspace's settings.
                "--allowed-mcp-server-names", "instruction-gate-none", "--extensions", "none"]
        argv += ["--resume", str(session_id)] if index > 0 else []
        argv += ["--model", self.model] if self.model else []
        argv += ["--sandbox"] if self.sandbox else []
        return argv + list(self.extra_args)

    def turn_stdin(self, prompt: str) -> str | None:
        return ""  # -p appends stdin to the prompt: give it nothing to wait for

    def new_parser(self, request: AdapterRequest) -> StreamParser:
        return GeminiStream(request.repo_root, self.home.path, stall_seconds=stall_limit(self.stall_seconds, request),
                            prices_per_mtok=self.prices_per_mtok)

    def instruction_files(self, request: AdapterRequest, parser: StreamParser) -> list[LoadedFile]:
        if parser.session_id is None:
            return []  # the CLI never started a session (refused, not found, no key): nothing was sent
        return gemini_sources(request.repo_root, request.workspace, file_names=self.context_files(request),
                              home=self.home.path, touched_paths=parser.touched_paths)
