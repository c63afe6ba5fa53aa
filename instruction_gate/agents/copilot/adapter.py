"""The GitHub Copilot CLI adapter: `copilot --prompt=… --output-format json`, continued with
`--resume=ID`, under a private `COPILOT_HOME` (`home.py`) with a custom provider (BYOK) in
offline mode: no GitHub login, every tool allowed, nothing asked."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from pathlib import Path

from instruction_gate.agents.cli_agent import StreamParser, stall_limit
from instruction_gate.agents.copilot.discovery import copilot_sources
from instruction_gate.agents.copilot.home import (DEFAULT_BASE_URLS, PROVIDER_ENV, PROVIDER_TYPES, WIRE_APIS,
                                                  CopilotHome, usage_records)
from instruction_gate.agents.copilot.stream import CopilotStream
from instruction_gate.agents.discovery import LoadedFile
from instruction_gate.agents.options import OptionSpec, Options
from instruction_gate.agents.protocol import AdapterRequest

DEFAULT_MODEL = "gpt-4.1"
OPTIONS = (
    OptionSpec("binary", "Copilot executable (default: copilot on the agent's PATH; the platform package's "
                         "`copilot` binary also works)"),
    OptionSpec("model", f"model at the provider (COPILOT_MODEL; default {DEFAULT_MODEL})"),
    OptionSpec("provider_type", "openai (default; OPENAI_BASE_URL and OPENAI_API_KEY) or anthropic "
                                "(ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY)"),
    OptionSpec("wire_api", "openai only: completions (default, Chat Completions) or responses"),
    OptionSpec("base_url", "the provider's endpoint (default: the provider type's variable in agent_env, "
                           "else its public API)"),
    OptionSpec("stall_seconds", "a model call unanswered this long when the deadline kills the CLI counts as a "
                                "hung provider (default: a quarter of the deadline, 30-600 s)"),
    OptionSpec("price_per_mtok", "USD per million tokens as INPUT,CACHED_INPUT,OUTPUT → provider_cost_usd"),
    OptionSpec("extra_args", "more `copilot` arguments, split like a shell would"),
    OptionSpec("timeout_seconds", "the adapter's own limit, if below the runner's"),
)


@dataclass(frozen=True)
class CopilotAgent:
    """How to call the Copilot CLI for one run."""

    home: CopilotHome
    binary: str = "copilot"
    model: str | None = None
    stall_seconds: float | None = None
    prices_per_mtok: tuple[float, float, float] | None = None
    extra_args: tuple[str, ...] = ()
    #: The session's id, chosen here (`--session-id`) so its record is found even if the CLI is killed.
    session: str = ""
    agent_name: str = "copilot"

    @classmethod
    def from_options(cls, options: Options, request: AdapterRequest) -> "CopilotAgent":
        provider = options.choice("provider_type", PROVIDER_TYPES, "openai")
        base_variable, key_variable = PROVIDER_ENV[provider]
        base_url = options.text("base_url") or request.agent_env.get(base_variable) or DEFAULT_BASE_URLS[provider]
        model = options.text("model", DEFAULT_MODEL) or DEFAULT_MODEL
        home = CopilotHome.create(request.agent_env, model=model, provider_type=provider,
                                  wire_api=options.choice("wire_api", WIRE_APIS, "completions"),
                                  base_url=base_url, key_variable=key_variable)
        return cls(home=home, binary=options.text("binary", "copilot"), model=model,  # type: ignore[arg-type]
                   stall_seconds=options.number("stall_seconds"), prices_per_mtok=options.prices("price_per_mtok"),
                   extra_args=options.words("extra_args"), session=str(uuid.uuid4()))

    def process_env(self, agent_env: dict[str, str], timeout: float | None) -> dict[str, str]:
        return self.home.env(agent_env)

    def turn_argv(self, binary: str, index: int, prompt: str, session_id: str | None) -> list[str]:
        # `--prompt=`: a prompt starting with "-" is never read as a flag. Headless, nothing can be
        # approved: every tool and path is allowed (the runner's sandbox confines the agent).
        argv = [binary, f"--prompt={prompt}", "--output-format", "json", "--allow-all-tools", "--allow-all-paths", "--no-auto-update",
                "--no-ask-user", "--disable-client-telemetry", "--no-color"]
        argv.append(f"--resume={session_id}" if index > 0 else f"--session-id={self.session}")
        return argv + list(self.extra_args)

    def turn_stdin(self, prompt: str) -> str | None:
        return ""  # piped stdin would be read as more prompt

    def installed_version(self, binary: str) -> str | None:
        """The version in the npm package beside the binary, without starting it."""
        for folder in (Path(binary).resolve().parent, Path(binary).resolve().parent.parent):
            try:
                manifest = json.loads((folder / "package.json").read_text())
            except (OSError, ValueError):
                continue
            if isinstance(manifest, dict) and str(manifest.get("name", "")).startswith("@github/copilot"):
                return str(manifest.get("version") or "") or None
        return None

    def new_parser(self, request: AdapterRequest) -> StreamParser:
        parser = CopilotStream(request.repo_root, stall_seconds=stall_limit(self.stall_seconds, request),
                               usage_source=lambda sid: usage_records(self.home.session_events(sid)),
                               prices_per_mtok=self.prices_per_mtok)
        parser.session_id = self.session
        return parser

    def instruction_files(self, request: AdapterRequest, parser: StreamParser) -> list[LoadedFile]:
        if not getattr(parser, "called_model", False):
            return []  # the CLI never called the model: nothing was sent
        return copilot_sources(request.repo_root, request.workspace, global_dir=self.home.path,
                               discovered=getattr(parser, "discovered", []))

    def lazy_instruction_sources(self, request: AdapterRequest, parser: StreamParser) -> list[str]:
        """The files the stream says were sent after the start, as `instruction_sources` names them."""
        at_start = {f.path for f in copilot_sources(request.repo_root, request.workspace, global_dir=self.home.path)}
        return [f.path for f in self.instruction_files(request, parser) if f.path not in at_start]
