"""The Codex CLI adapter: `codex exec --json`, continued with `codex exec resume`."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, replace
from pathlib import Path

from instruction_gate.agents.cli_agent import StreamParser
from instruction_gate.agents.codex.stream import CodexStream
from instruction_gate.agents.discovery import LoadedFile
from instruction_gate.agents.codex.discovery import CODEX_BUDGET_BYTES, codex_chain
from instruction_gate.agents.options import OptionSpec, Options
from instruction_gate.agents.protocol import CONFINED_VAR, AdapterRequest

#: Custom-provider defaults: a few retries, not Codex's own (which outlast most task deadlines).
DEFAULT_RETRIES = 2
DEFAULT_STREAM_IDLE_SECONDS = 60.0
PROVIDER_ID = "instruction_gate"
OPTIONS = (
    OptionSpec("binary", "Codex executable (default: codex on the agent's PATH)"),
    OptionSpec("model", "model passed as --model"),
    OptionSpec("sandbox", "read-only, workspace-write (default) or danger-full-access (the default inside "
                          "the gate's sandbox, which confines Codex itself)"),
    OptionSpec("extra_args", "more arguments for `codex exec`, split like a shell would"),
    OptionSpec("ephemeral", "true/false: do not keep session files (default: true for one-turn tasks)"),
    OptionSpec("fallback_names", "comma-separated project_doc_fallback_filenames"),
    OptionSpec("doc_budget_bytes", f"project_doc_max_bytes (default {CODEX_BUDGET_BYTES})"),
    OptionSpec("usage", "cumulative (default: Codex reports running totals) or per_turn"),
    OptionSpec("price_per_mtok", "USD per million tokens as INPUT,CACHED_INPUT,OUTPUT, to report "
                                 "provider_cost_usd (Codex prints no cost)"),
    OptionSpec("timeout_seconds", "the adapter's own limit, if below the runner's"),
    OptionSpec("base_url", "Responses API base URL of a custom provider (default: the agent's "
                           "OPENAI_BASE_URL, set by adapters/broker; else Codex's own provider)"),
    OptionSpec("provider_retries", f"request and stream retries of the custom provider (default {DEFAULT_RETRIES})"),
    OptionSpec("login_shell", "true/false: let Codex run commands in a login shell, whose profile may reset PATH "
                              "(default: false, so the agent's commands see the PATH the harness gives)"),
    OptionSpec("stream_idle_seconds", f"seconds without a streamed event before Codex gives up "
                                      f"(default {DEFAULT_STREAM_IDLE_SECONDS:.0f})"),
)
SANDBOXES = ("read-only", "workspace-write", "danger-full-access")


def codex_home(agent_env: dict[str, str]) -> str | None:
    """Codex's home as the agent's environment sets it: `CODEX_HOME`, else `~/.codex`."""
    if agent_env.get("CODEX_HOME"):
        return agent_env["CODEX_HOME"]
    return str(Path(agent_env["HOME"]) / ".codex") if agent_env.get("HOME") else None


def default_sandbox() -> str:
    """Codex's own sandbox, unless the gate's sandbox already confines the adapter: bubblewrap
    cannot map user ids again inside it, so every command Codex sandboxes would fail to start."""
    return "danger-full-access" if os.environ.get(CONFINED_VAR) else "workspace-write"


@dataclass(frozen=True)
class CodexAgent:
    """How to call Codex for one run."""

    binary: str = "codex"
    model: str | None = None
    sandbox: str = "workspace-write"
    extra_args: tuple[str, ...] = ()
    ephemeral: bool = True
    fallback_names: tuple[str, ...] = ()
    doc_budget_bytes: int = CODEX_BUDGET_BYTES
    cumulative_usage: bool = True
    prices_per_mtok: tuple[float, float, float] | None = None  #: input, cached input, output
    base_url: str | None = None  #: custom Responses API provider; None: Codex's configured one
    provider_retries: int = DEFAULT_RETRIES
    stream_idle_seconds: float = DEFAULT_STREAM_IDLE_SECONDS
    #: Codex runs commands as `bash -lc` by default; a login shell reads /etc/profile, which on
    #: Debian and Ubuntu resets PATH, so a check environment's `python` or `pytest` vanished (127).
    login_shell: bool = False
    agent_name: str = "codex"

    @classmethod
    def from_options(cls, options: Options, request: AdapterRequest) -> "CodexAgent":
        turns = len(request.turns)
        agent = cls(
            binary=options.text("binary", "codex"), model=options.text("model"),  # type: ignore[arg-type]
            sandbox=options.choice("sandbox", SANDBOXES, default_sandbox()),
            extra_args=options.words("extra_args"),
            # A session that must be resumed has to be kept on disk.
            ephemeral=bool(options.flag("ephemeral", turns == 1)) and turns == 1,
            fallback_names=options.names("fallback_names"),
            doc_budget_bytes=options.integer("doc_budget_bytes", CODEX_BUDGET_BYTES),  # type: ignore[arg-type]
            cumulative_usage=options.choice("usage", ("cumulative", "per_turn"), "cumulative") == "cumulative",
            prices_per_mtok=options.prices("price_per_mtok"), base_url=options.text("base_url"),
            provider_retries=options.integer("provider_retries", DEFAULT_RETRIES),  # type: ignore[arg-type]
            stream_idle_seconds=options.number("stream_idle_seconds", DEFAULT_STREAM_IDLE_SECONDS),  # type: ignore[arg-type]
            login_shell=bool(options.flag("login_shell", False)))
        # The broker hands its proxy URL in OPENAI_BASE_URL: talk to it as a custom provider,
        # whose key variable (OPENAI_API_KEY, the broker's placeholder) Codex reads itself.
        if agent.base_url is None and request.agent_env.get("OPENAI_BASE_URL"):
            agent = replace(agent, base_url=request.agent_env["OPENAI_BASE_URL"])
        return agent

    def process_env(self, agent_env: dict[str, str], timeout: float | None) -> dict[str, str]:
        return dict(agent_env)

    def _config_args(self) -> list[str]:
        """`-c` overrides: valid for both `exec` and `exec resume`, and they keep Codex's
        discovery in line with what this adapter reports."""
        args = ["-c", f"sandbox_mode={json.dumps(self.sandbox)}",
                "-c", f"project_doc_max_bytes={self.doc_budget_bytes}",
                "-c", f"allow_login_shell={json.dumps(self.login_shell)}"]
        if self.fallback_names:
            args += ["-c", f"project_doc_fallback_filenames={json.dumps(list(self.fallback_names))}"]
        if self.model:
            args += ["-c", f"model={json.dumps(self.model)}"]
        if self.base_url:
            entry = (f'{{name="instruction-gate", base_url={json.dumps(self.base_url)}, wire_api="responses", '
                     f'env_key="OPENAI_API_KEY", request_max_retries={self.provider_retries}, '
                     f'stream_max_retries={self.provider_retries}, '
                     f'stream_idle_timeout_ms={int(self.stream_idle_seconds * 1000)}}}')
            args += ["-c", f"model_providers.{PROVIDER_ID}={entry}", "-c", f'model_provider="{PROVIDER_ID}"']
        return args

    def turn_argv(self, binary: str, index: int, prompt: str, session_id: str | None) -> list[str]:
        if index == 0:
            head = [binary, "exec", "--json", "--sandbox", self.sandbox]
            head += ["--ephemeral"] if self.ephemeral else []
            head += ["--model", self.model] if self.model else []
            return [*head, *self._config_args(), *self.extra_args, "--", prompt]
        return [binary, "exec", "resume", "--json", *self._config_args(), *self.extra_args,
                "--", str(session_id), prompt]

    def turn_stdin(self, prompt: str) -> str | None:
        return None

    def new_parser(self, request: AdapterRequest) -> StreamParser:
        return CodexStream(request.repo_root, cumulative_usage=self.cumulative_usage,
                           prices_per_mtok=self.prices_per_mtok, workspace=request.workspace,
                           codex_home=codex_home(request.agent_env), turn_count=len(request.turns))

    def instruction_files(self, request: AdapterRequest, parser: StreamParser) -> list[LoadedFile]:
        return codex_chain(request.repo_root, request.workspace, self.doc_budget_bytes, self.fallback_names,
                           codex_home=codex_home(request.agent_env))
