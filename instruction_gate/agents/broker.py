"""The broker adapter: the provider credential stays in this process, the agent gets a proxy.

Flow: read the credential from the pipe the runner hands over (`INSTRUCTION_EVAL_BROKER_TOKEN_FD`
names the inherited descriptor: the token is in no environment or command line `/proc` shows),
or else take `INSTRUCTION_EVAL_BROKER_TOKEN` out of the environment (re-executing so not even
/proc/<pid>/environ keeps it); start `CredentialProxy` on loopback (through the runner's relay
under the provider-only network), hand the wrapped
adapter a request whose `agent_env` points the agent's provider URL at the proxy with a
placeholder key, relay the wrapped adapter's events with the credential scrubbed, and turn
an agent failure into an infrastructure one when the provider's last answer was 401/403,
429 or 5xx (the proxy saw it, so the agent cannot fake it).
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, NoReturn

from instruction_gate import proc
from instruction_gate.agents.broker_proxy import REDACTED, RELAY_SOCKET_VAR, CredentialProxy, parse_upstream
from instruction_gate.agents.options import OptionSpec, Options, merged_options, parse_adapter_flags
from instruction_gate.agents.protocol import AdapterRequest, EventWriter, Usage, adapter_version, result_event
from instruction_gate.agents.failures import Failure
from instruction_gate.errors import ConfigError
from instruction_gate.console import say, safe
from instruction_gate.agents.undumpable import harden_adapter
from instruction_gate.secrets import BROKER_TOKEN_FD_VAR as TOKEN_FD_VAR, BROKER_TOKEN_VAR as TOKEN_VAR

UPSTREAM_VAR = "INSTRUCTION_EVAL_UPSTREAM_URL"
TOKEN_FD_FLAG = "--token-fd"
PLACEHOLDER_KEY = "instruction-gate-broker-placeholder"
#: Between the wrapped adapter's own grace for its agent and the runner's grace for us.
WRAPPED_KILL_GRACE = 1.5
ADAPTERS_DIR = Path(__file__).resolve().parents[2] / "adapters"


@dataclass(frozen=True)
class Provider:
    """How one provider family is addressed and authenticated."""

    default_upstream: str
    header_name: str
    header_format: str  #: `{token}` is replaced by the credential
    url_suffix: str  #: appended to the proxy URL in the agent's base URL variable
    agent_vars: tuple[str, str]  #: (base URL variable, API key variable) the agent CLI reads


PROVIDERS = {
    "openai": Provider("https://api.openai.com", "Authorization", "Bearer {token}", "/v1",
                       ("OPENAI_BASE_URL", "OPENAI_API_KEY")),
    "anthropic": Provider("https://api.anthropic.com", "x-api-key", "{token}", "",
                          ("ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY")),
    "gemini": Provider("https://generativelanguage.googleapis.com", "x-goog-api-key", "{token}", "",
                       ("GOOGLE_GEMINI_BASE_URL", "GEMINI_API_KEY")),
}
#: The provider family an adapter shipped here talks to (others: openai).
#: OpenCode's provider is OpenAI-compatible: the proxy URL goes in as OPENAI_BASE_URL; so is
#: Copilot's custom provider by default (`provider=anthropic` with its `provider_type=anthropic`).
DEFAULT_PROVIDER = {"claude": "anthropic", "gemini": "gemini", "opencode": "openai", "copilot": "openai"}
OPTIONS = (
    OptionSpec("wrap", "adapter to wrap: codex (default), claude, gemini, opencode, copilot, replay, or any "
                       "command line"),
    OptionSpec("provider", "openai, anthropic or gemini (default: anthropic for claude, gemini for gemini, "
                           "else openai)"),
    OptionSpec("upstream_url", f"provider base URL (default: ${UPSTREAM_VAR}, else the provider's)"),
)
#: Upstream statuses that mean the provider, not the agent, ended the run.
_STATUS_REASON = ((401, "auth_failed"), (403, "auth_failed"), (429, "rate_limited"))


def wrapped_argv(wrap: str) -> list[str]:
    """A sibling adapter by short name (run with this interpreter), or a command line."""
    if (ADAPTERS_DIR / wrap).is_file() and "/" not in wrap:
        return [sys.executable, str(ADAPTERS_DIR / wrap)]
    return shlex.split(wrap)


def reexec_without_token(argv: list[str]) -> None:
    """Replace this process with one whose environment never held the credential.

    The token travels through an inherited pipe; the old image's environment block (readable
    by same-user processes in /proc/<pid>/environ) is discarded by exec.
    """
    token = os.environ.get(TOKEN_VAR)
    if token is None or TOKEN_FD_FLAG in argv:
        return
    read_end, write_end = os.pipe()
    os.write(write_end, token.encode())
    os.close(write_end)
    os.set_inheritable(read_end, True)
    env = {k: v for k, v in os.environ.items() if k != TOKEN_VAR}
    script = str(Path(sys.argv[0]).resolve())
    os.execve(sys.executable, [sys.executable, script, *argv, TOKEN_FD_FLAG, str(read_end)], env)


def take_token(argv: list[str]) -> tuple[str | None, list[str]]:
    """The credential and the remaining args: from the pipe `--token-fd` names (after re-exec),
    else from the runner's pipe (`INSTRUCTION_EVAL_BROKER_TOKEN_FD`), else from the environment.

    A pipe is read to its end and closed before anything else starts, so no later process of
    the sandbox finds the credential in an inherited descriptor (or in /proc/<pid>/fd).
    """
    if TOKEN_FD_FLAG in argv:
        at = argv.index(TOKEN_FD_FLAG)
        return _drain(argv[at + 1]), argv[:at] + argv[at + 2:]
    named = os.environ.pop(TOKEN_FD_VAR, None)
    if named is not None:
        return _drain(named), argv
    return os.environ.pop(TOKEN_VAR, None), argv


def _drain(fd: str) -> str | None:
    try:
        with os.fdopen(int(fd), "rb") as pipe:
            return pipe.read().decode()
    except (ValueError, OSError):
        return None  # reported as a missing token


def upstream_url(options: Options, environ: Mapping[str, str]) -> str:
    """Where the broker sends requests: the `upstream_url` option, `$INSTRUCTION_EVAL_UPSTREAM_URL`,
    else the provider's own URL. The runner asks the same question for its relay's target."""
    wrap = options.text("wrap", "codex")
    provider = options.choice("provider", PROVIDERS, DEFAULT_PROVIDER.get(wrap, "openai"))
    return options.text("upstream_url") or environ.get(UPSTREAM_VAR) or PROVIDERS[provider].default_upstream


def broker_request(request: AdapterRequest, provider: Provider, proxy_url: str, token: str) -> dict[str, Any]:
    raw = json.loads(json.dumps(request.raw))
    env = {k: v for k, v in request.agent_env.items() if token not in v}
    base_var, key_var = provider.agent_vars
    env.update({base_var: proxy_url + provider.url_suffix, key_var: PLACEHOLDER_KEY})
    raw["agent_env"] = env
    return raw


def override_failure(event: dict[str, Any], statuses: list[int]) -> dict[str, Any]:
    """Re-class a generic agent failure when the provider's last answer was an error."""
    if not statuses or event.get("status") == "completed" or event.get("failure_class") == "infrastructure":
        return event
    if event.get("failure_reason") not in (None, "agent_error", "zero_turns"):
        return event  # max turns, budget, timeout: the agent's own limits
    last = statuses[-1]
    reason = dict(_STATUS_REASON).get(last) or ("provider_error" if last >= 500 else None)
    if reason is None:
        return event
    return {**event, "status": "failed", "failure_class": "infrastructure", "failure_reason": reason}


def _terminate(signum: int, frame: object) -> NoReturn:
    raise SystemExit(128 + signum)


def main(argv: list[str]) -> int:
    reexec_without_token(argv)
    harden_adapter("broker")  # the provider key is in this process's memory from here on
    token, argv = take_token(argv)
    signal.signal(signal.SIGTERM, _terminate)
    writer = EventWriter()
    try:
        flags = parse_adapter_flags("adapters/broker", OPTIONS, argv)
        request = AdapterRequest.parse(sys.stdin.read())
        options = merged_options(request.options, flags, OPTIONS, "broker")
        wrap = options.text("wrap", "codex")
        provider = PROVIDERS[options.choice("provider", PROVIDERS, DEFAULT_PROVIDER.get(wrap, "openai"))]
        upstream = upstream_url(options, os.environ)
        parse_upstream(upstream)
    except (ConfigError, ValueError) as exc:
        say(f"broker: {exc}", file=sys.stderr)
        return 2
    if not token:
        writer.emit(result_event(failure=Failure("auth_failed"), tool_calls=None, usage=Usage(),
                                 provider_cost_usd=None, instruction_files=(), final_message=None,
                                 provenance={"adapter_version": adapter_version("broker")}))
        say(f"broker: {TOKEN_VAR} is not set", file=sys.stderr)
        return 0
    # The relay is the only way out of a provider-only sandbox; the wrapped adapter has no use for it.
    relay = os.environ.pop(RELAY_SOCKET_VAR, None) or None
    proxy = CredentialProxy(upstream, provider.header_name, provider.header_format.format(token=token), token,
                            relay_socket=relay)
    proxy.start()
    try:
        return _run_wrapped(wrapped_argv(wrap), request, broker_request(request, provider, proxy.base_url, token),
                            proxy, writer, token)
    finally:
        proxy.stop()


def _run_wrapped(argv: list[str], request: AdapterRequest, wrapped: dict[str, Any], proxy: CredentialProxy,
                 writer: EventWriter, token: str) -> int:
    scrub = token.encode()
    env = {k: v for k, v in os.environ.items() if k != TOKEN_VAR and token not in v}
    held: list[dict[str, Any]] = []

    def relay(line: bytes) -> None:
        text = line.replace(scrub, REDACTED).decode("utf-8", errors="replace")
        try:
            event = json.loads(text)
        except json.JSONDecodeError:
            event = None
        if isinstance(event, dict) and event.get("type") == "result":
            held.append(event)  # amended once the run is over
        elif text.strip():
            with writer.lock:
                writer.stream.write(text.rstrip("\n") + "\n")
                writer.stream.flush()

    result = proc.run(argv, request.workspace, env=env, stdin=json.dumps(wrapped), on_stdout_line=relay,
                      grace=WRAPPED_KILL_GRACE)
    if result.stderr:
        sys.stderr.write(safe(result.stderr.replace(token, REDACTED.decode())))
    if result.start_error:
        say(f"broker: cannot start wrapped adapter: {result.start_error}", file=sys.stderr)
        return 1
    for event in held:
        writer.emit(override_failure(event, proxy.statuses))
    return result.exit_code if result.exit_code is not None and result.exit_code >= 0 else 1
