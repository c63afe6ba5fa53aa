"""The OpenCode adapter: `opencode run --format json`, continued with `--session ID`, under
private XDG directories and a configuration the harness writes (`opencode_home.py`): an
OpenAI-compatible provider at the harness's base URL, tools allowed, nothing shared."""

from __future__ import annotations

from dataclasses import dataclass

from instruction_gate.agents.cli_agent import StreamParser, stall_limit
from instruction_gate.agents.discovery import LoadedFile
from instruction_gate.agents.opencode.discovery import opencode_sources
from instruction_gate.agents.failures import Failure
from instruction_gate.agents.opencode.home import PROVIDER_ID, OpenCodeHome, workspace_hazards, workspace_instructions
from instruction_gate.agents.opencode.stream import OpenCodeStream
from instruction_gate.agents.options import OptionSpec, Options
from instruction_gate.agents.protocol import AdapterRequest

DEFAULT_MODEL = "gpt-4.1"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
OPTIONS = (
    OptionSpec("binary", "OpenCode executable (default: opencode on the agent's PATH)"),
    OptionSpec("model", f"model at the OpenAI-compatible provider (default {DEFAULT_MODEL}); "
                        "PROVIDER/MODEL: one of OpenCode's own providers instead"),
    OptionSpec("base_url", f"the provider's OpenAI-compatible base URL (default: $OPENAI_BASE_URL in "
                           f"agent_env, else {DEFAULT_BASE_URL}); the key is $OPENAI_API_KEY"),
    OptionSpec("max_steps", "the build agent's `steps`: after this many model calls OpenCode tells the "
                            "model to stop (advisory: tools stay offered)"),
    OptionSpec("compaction", "true: let OpenCode compact the conversation when the context fills "
                             "(default false: an overflow ends the run as the agent's error)"),
    OptionSpec("claude_fallback", "false: set OPENCODE_DISABLE_CLAUDE_CODE_PROMPT (no CLAUDE.md fallback; "
                                  "default true, as OpenCode ships)"),
    OptionSpec("stall_seconds", "a model call unanswered this long when the deadline kills the CLI counts "
                                "as a hung provider (default: a quarter of the deadline, 30-600 s)"),
    OptionSpec("price_per_mtok", "USD per million tokens as INPUT,CACHED_INPUT,OUTPUT: given to OpenCode as "
                                 "the model's cost table, so it reports provider_cost_usd"),
    OptionSpec("workspace_settings", "refuse (default): fail a run whose workspace has opencode.json, "
                                     "opencode.jsonc or .opencode/; trust: let the CLI load them"),
    OptionSpec("extra_args", "more arguments for `opencode run`, split like a shell would"),
    OptionSpec("timeout_seconds", "the adapter's own limit, if below the runner's"),
)


@dataclass(frozen=True)
class OpenCodeAgent:
    """How to call OpenCode for one run."""

    home: OpenCodeHome
    binary: str = "opencode"
    model: str | None = None
    trust_workspace_settings: bool = False
    stall_seconds: float | None = None
    extra_args: tuple[str, ...] = ()
    agent_name: str = "opencode"

    @classmethod
    def from_options(cls, options: Options, request: AdapterRequest) -> "OpenCodeAgent":
        name = options.text("model", DEFAULT_MODEL) or DEFAULT_MODEL
        own_provider = "/" in name  # e.g. anthropic/claude-sonnet-4-5: OpenCode's provider, its key
        base_url = None if own_provider else (
            options.text("base_url") or request.agent_env.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL)
        home = OpenCodeHome.create(
            request.agent_env, model=name if own_provider else f"{PROVIDER_ID}/{name}", base_url=base_url,
            prices_per_mtok=options.prices("price_per_mtok"), max_steps=options.integer("max_steps"),
            compaction=bool(options.flag("compaction", False)),
            claude_fallback=bool(options.flag("claude_fallback", True)))
        trust = options.choice("workspace_settings", ("refuse", "trust"), "refuse") == "trust"
        return cls(home=home, binary=options.text("binary", "opencode"), model=name,  # type: ignore[arg-type]
                   trust_workspace_settings=trust, stall_seconds=options.number("stall_seconds"),
                   extra_args=options.words("extra_args"))

    def process_env(self, agent_env: dict[str, str], timeout: float | None) -> dict[str, str]:
        return self.home.env(agent_env)

    def refuse_turn(self, request: AdapterRequest) -> Failure | None:
        """The agent's failure when project files would reconfigure OpenCode (a candidate, or
        the agent in an earlier turn, must not add plugins, agents or instructions)."""
        hazards = [] if self.trust_workspace_settings else workspace_hazards(request.repo_root, request.workspace)
        if hazards:
            return Failure("agent_error", f"workspace files would reconfigure OpenCode: {', '.join(hazards)} "
                                          "(adapter option workspace_settings=trust to allow)")
        return None

    def turn_argv(self, binary: str, index: int, prompt: str, session_id: str | None) -> list[str]:
        # The log on stderr tells a hung provider from a slow tool (opencode_stream.py).
        argv = [binary, "run", "--format", "json", "--model", self.home.model, "--print-logs", "--log-level", "INFO"]
        argv += ["--session", str(session_id)] if index > 0 else []
        # After `--`, a prompt starting with "-" is never read as a flag.
        return argv + list(self.extra_args) + ["--", prompt]

    def turn_stdin(self, prompt: str) -> str | None:
        return ""  # `run` appends piped stdin to the message: give it nothing to wait for

    def new_parser(self, request: AdapterRequest) -> StreamParser:
        return OpenCodeStream(request.repo_root, stall_seconds=stall_limit(self.stall_seconds, request))

    def instruction_files(self, request: AdapterRequest, parser: StreamParser) -> list[LoadedFile]:
        if parser.session_id is None:
            return []  # the CLI never started a session (refused, not found): nothing was sent
        loaded = getattr(parser, "loaded", [])
        trusted = workspace_instructions(request.repo_root, request.workspace) if self.trust_workspace_settings else []
        return opencode_sources(request.repo_root, request.workspace, global_dir=self.home.global_dir,
                                home=request.agent_env.get("HOME"), claude_fallback=self.home.claude_fallback,
                                attached=loaded, instructions=trusted)
