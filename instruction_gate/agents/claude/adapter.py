"""The Claude Code adapter: `claude -p --output-format stream-json --verbose`, continued with
`--resume`. The prompt goes on stdin, so no prompt text is ever mistaken for a flag."""

from __future__ import annotations

from dataclasses import dataclass

from instruction_gate.agents.claude.stream import ClaudeStream
from instruction_gate.agents.cli_agent import StreamParser
from instruction_gate.agents.discovery import LoadedFile
from instruction_gate.agents.claude.discovery import claude_sources
from instruction_gate.agents.options import OptionSpec, Options
from instruction_gate.agents.protocol import AdapterRequest

#: The CLI's own default is 10 retries over about three minutes, longer than most task deadlines.
DEFAULT_RETRIES = 2
OPTIONS = (
    OptionSpec("binary", "Claude Code executable (default: claude on the agent's PATH)"),
    OptionSpec("model", "model passed as --model"),
    OptionSpec("max_turns", "agentic turns per prompt, passed as --max-turns"),
    OptionSpec("permission_mode", "passed as --permission-mode (default acceptEdits)"),
    OptionSpec("allowed_tools", "comma-separated --allowedTools (default: Bash and the file tools)"),
    OptionSpec("extra_args", "more arguments for `claude`, split like a shell would"),
    OptionSpec("timeout_seconds", "the adapter's own limit, if below the runner's"),
    OptionSpec("max_retries", f"API retries per request, as CLAUDE_CODE_MAX_RETRIES (default {DEFAULT_RETRIES})"),
    OptionSpec("request_timeout_seconds", "seconds per API request, as API_TIMEOUT_MS (default: a quarter "
                                          "of the deadline, 30-600 s)"),
)
PERMISSION_MODES = ("default", "acceptEdits", "bypassPermissions", "plan", "dontAsk", "auto", "manual")
#: Tools Claude Code 2.1.3xx has (Glob, Grep, LS, MultiEdit and TodoWrite are gone: naming them
#: in --allowedTools allows nothing).
DEFAULT_TOOLS = ("Bash", "Read", "Edit", "Write")


@dataclass(frozen=True)
class ClaudeAgent:
    """How to call Claude Code for one run."""

    binary: str = "claude"
    model: str | None = None
    max_turns: int | None = None
    permission_mode: str = "acceptEdits"
    allowed_tools: tuple[str, ...] = DEFAULT_TOOLS
    extra_args: tuple[str, ...] = ()
    max_retries: int = DEFAULT_RETRIES
    request_timeout_seconds: float | None = None  #: None: derived from the deadline
    agent_name: str = "claude-code"

    @classmethod
    def from_options(cls, options: Options, request: AdapterRequest) -> "ClaudeAgent":
        return cls(binary=options.text("binary", "claude"), model=options.text("model"),  # type: ignore[arg-type]
                   max_turns=options.integer("max_turns"),
                   permission_mode=options.choice("permission_mode", PERMISSION_MODES, "acceptEdits"),
                   allowed_tools=options.names("allowed_tools", DEFAULT_TOOLS),
                   extra_args=options.words("extra_args"),
                   max_retries=options.integer("max_retries", DEFAULT_RETRIES),  # type: ignore[arg-type]
                   request_timeout_seconds=options.number("request_timeout_seconds"))

    def process_env(self, agent_env: dict[str, str], timeout: float | None) -> dict[str, str]:
        """A retry budget and request timeout that end before the deadline does, so a provider
        outage or hang surfaces as the CLI's own API error (infrastructure), not as a kill."""
        request_timeout = self._request_timeout(timeout)
        return {**agent_env, "CLAUDE_CODE_MAX_RETRIES": str(self.max_retries),
                "API_TIMEOUT_MS": str(int(request_timeout * 1000))}

    def turn_argv(self, binary: str, index: int, prompt: str, session_id: str | None) -> list[str]:
        argv = [binary, "-p", "--output-format", "stream-json", "--verbose",
                "--permission-mode", self.permission_mode]
        argv += ["--resume", str(session_id)] if index > 0 else []
        argv += ["--model", self.model] if self.model else []
        argv += ["--max-turns", str(self.max_turns)] if self.max_turns is not None else []
        argv += list(self.extra_args)
        # Last: --allowedTools takes every following word as a tool name.
        return argv + (["--allowedTools", ",".join(self.allowed_tools)] if self.allowed_tools else [])

    def turn_stdin(self, prompt: str) -> str | None:
        return prompt

    def new_parser(self, request: AdapterRequest) -> StreamParser:
        return ClaudeStream(request.repo_root, stall_seconds=self._request_timeout(request.timeout_seconds))

    def _request_timeout(self, timeout: float | None) -> float:
        if self.request_timeout_seconds is not None:
            return self.request_timeout_seconds
        return 600.0 if timeout is None else min(600.0, max(30.0, timeout / 4))

    def instruction_files(self, request: AdapterRequest, parser: StreamParser) -> list[LoadedFile]:
        # The CLI also loads memory files above the repository: in a gate run those directories
        # are the harness's own (empty under the sandbox), so any found there is reported.
        return claude_sources(request.repo_root, request.workspace, parser.touched_paths, above_root=True)
