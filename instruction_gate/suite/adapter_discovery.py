"""The discovery rules and settings an adapter command line would actually run its agent with.

Impact analysis must reason about the same files the agent loads, so it reads the adapter's
options the way the adapter does: the request's `adapter_options` (the runner's
`--adapter-option`, the action's `adapter-options`) overridden by flags on the adapter's own
command line (`adapters/gemini --context-files X`, `-o key=value`), through the broker to the
adapter it wraps (by short name, or a command line whose flags count too). Settings that let
the agent load files the analysis cannot see (project configuration the adapter is told to
trust, config overrides in `extra_args`) make the analysis unbounded: every task runs. A
command named like a shipped adapter whose flags that adapter would refuse is another
program: it gets every agent's rules, as any custom adapter does.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import PurePosixPath

from instruction_gate.agents import broker, loading
from instruction_gate.agents.codex import discovery as codex_discovery
from instruction_gate.agents.main import AGENTS
from instruction_gate.agents.options import Options, parse_adapter_flags
from instruction_gate.suite.exposure import Discovery

#: `extra_args` words that change what an agent loads in ways the analysis does not model.
_UNMODELLED_ARGS = {
    "codex": ("--profile", "-p", "--cd", "-C", "--add-dir"),
    "claude": ("--add-dir", "--settings", "--setting-sources"),
    "gemini": ("--include-directories",),
    "opencode": ("--agent",),
    # Copilot: another working directory, directories whose skills and agents load, a custom agent.
    "copilot": ("-C", "--add-dir", "--plugin-dir", "--agent"),
}
#: Codex `-c key=value` overrides that change its discovery.
_CODEX_DOC_KEYS = ("project_doc", "profile")


def discovery_for(setting: str, adapter_argv: list[str], options: dict[str, str]) -> Discovery:
    """The discovery an adapter follows: the policy's choice, else what the adapter declares.

    The reference agent (or a custom adapter) declares it with its `discovery` option (the
    reference agent also with its `--discovery` flag); the
    agent adapters by their program name (`adapters/codex`, `adapters/claude`, ...) and the
    broker by the agent it wraps (`wrap`). Anything else (a custom adapter) gets `all`: any
    agent's files count, the conservative choice. The settings are the named agent's own.
    """
    agent, effective = _agent_options(adapter_argv, dict(options))
    mode = setting
    if mode == "auto":
        # A shipped agent adapter's CLI decides for itself; the reference agent or a custom
        # adapter may declare its rules with a `discovery` option.
        declared = effective.get("discovery") if agent not in AGENTS else None
        implied = {"reference": "both"}.get(agent, agent)  # the reference agent's default
        mode = next((m for m in (declared, implied) if m in loading.MODES), "all")
    return _settings(mode, agent, Options(effective))


def _program(argv: list[str]) -> tuple[str, list[str]]:
    """`codex` and its flags for `adapters/codex ...`, also behind an interpreter (`python3 …/adapters/codex`)."""
    paths = [PurePosixPath(a) for a in argv[:2]]
    named = [i for i, p in enumerate(paths) if p.parent.name == "adapters"]
    at = named[0] if named else 0
    return (paths[at].name if paths else ""), argv[at + 1:]


def _flags(prog: str, specs, argv: list[str]) -> dict[str, str] | None:
    """The adapter's own flags, parsed as it parses them; None when the shipped adapter would
    refuse them (then the command is some other program that happens to share its name)."""
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            return parse_adapter_flags(prog, specs, argv)
    except SystemExit:
        return None


def _agent_options(argv: list[str], options: dict[str, str]) -> tuple[str, dict[str, str]]:
    """The agent an adapter command runs and the options that agent's adapter ends up with."""
    program, rest = _program(argv)
    if program == "reference":
        flag = rest.index("--discovery") if "--discovery" in rest[:-1] else None
        declared = rest[flag + 1] if flag is not None else None
        return program, {**({"discovery": declared} if declared else {}), **options}
    if program == "broker":
        chosen = broker_options(argv, options)
        if chosen is None:
            return "", options
        wrap = Options(chosen).text("wrap", "codex")
        # The wrapped adapter receives the request's options, never the broker's own flags.
        return _agent_options(broker.wrapped_argv(wrap), options)  # type: ignore[arg-type]
    if program in AGENTS:
        flags = _flags(f"adapters/{program}", AGENTS[program].options, rest)
        return (program, {**options, **flags}) if flags is not None else ("", options)
    return program, options


def broker_options(argv: list[str], options: dict[str, str]) -> dict[str, str] | None:
    """The options `adapters/broker` runs with when `argv` runs it (the request's, overridden by
    its own flags, as it merges them); None for any other command, or flags it would refuse.
    The runner's provider relay and the broker must agree on the upstream (`broker.upstream_url`)."""
    program, rest = _program(argv)
    if program != "broker":
        return None
    if broker.TOKEN_FD_FLAG in rest[:-1]:
        at = rest.index(broker.TOKEN_FD_FLAG)
        rest = rest[:at] + rest[at + 2:]
    flags = _flags("adapters/broker", broker.OPTIONS, rest)
    return None if flags is None else {**options, **flags}


def _unmodelled(agent: str, options: Options) -> str:
    """Why the analysis cannot bound what this configuration loads, or ''."""
    if agent in ("gemini", "opencode") and options.choice("workspace_settings", ("refuse", "trust"), "refuse") == "trust":
        files = ".gemini/settings.json" if agent == "gemini" else "opencode.json, opencode.jsonc or .opencode/"
        return (f"the {agent} adapter trusts the workspace's {files} (workspace_settings=trust), "
                "which can name more instruction files")
    words = options.words("extra_args")
    for i, word in enumerate(words):
        flag = word.split("=", 1)[0]
        if flag in _UNMODELLED_ARGS.get(agent, ()):
            return f"the {agent} adapter's extra_args pass {flag}, which changes what it loads"
        if agent == "codex" and flag in ("-c", "--config"):
            value = word.split("=", 1)[1] if "=" in word else (words[i + 1] if i + 1 < len(words) else "")
            if value.strip().startswith(_CODEX_DOC_KEYS):
                return f"the codex adapter's extra_args override {value.split('=', 1)[0].strip()}"
    return ""


def _settings(mode: str, agent: str, options: Options) -> Discovery:
    budget = options.integer("doc_budget_bytes", codex_discovery.CODEX_BUDGET_BYTES)
    gemini = options.names("context_files", loading.LoadSettings().gemini_names)
    return Discovery(mode, budget, options.names("fallback_names"), gemini,  # type: ignore[arg-type]
                     opencode_claude_fallback=bool(options.flag("claude_fallback", True)),
                     unbounded=_unmodelled(agent, options))
