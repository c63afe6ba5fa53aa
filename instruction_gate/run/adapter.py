"""Run an adapter process for one run and collect its events (protocol in adapters/README.md)."""

from __future__ import annotations

import json
import os
import shlex
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from instruction_gate import proc, records
from instruction_gate.agents.broker_proxy import RELAY_SOCKET_VAR
from instruction_gate.agents.protocol import CONFINED_VAR
from instruction_gate.errors import ConfigError
from instruction_gate.run.limits import OutputLimits
from instruction_gate.run.sandbox import UNISOLATED, Sandbox, View
from instruction_gate.secrets import BROKER_TOKEN_FD_VAR, BROKER_TOKEN_VAR
from instruction_gate.suite.suite_files import program_file

#: Bytes of adapter stderr kept in the run record.
STDERR_TAIL_BYTES = 4000
PROVENANCE_KEYS = ("agent_name", "model", "model_snapshot", "harness_version", "adapter_version", "container_digest")
#: Programs whose first operand is the script they run: `python scripts/x.py`, `bash x.sh`.


@dataclass
class AdapterOutcome:
    """Everything the runner learned from one adapter process."""

    events: list[dict[str, Any]] = field(default_factory=list)
    result: dict[str, Any] | None = None  #: a copy of the last `result` event (never the list itself)
    exit_code: int | None = None
    stderr_tail: str = ""
    wall_seconds: float = 0.0
    timed_out: bool = False
    start_error: str | None = None
    malformed_lines: int = 0
    event_bytes: int = 0  #: bytes of event lines read from stdout, kept or not
    kept_event_bytes: int = 0  #: bytes of the kept events as the run store writes them (a line each)
    over_limit: str | None = None  #: the output limit the adapter exceeded ("events"), if any

    def provenance(self) -> dict[str, Any]:
        result = self.result or {}
        nested = result.get("provenance") if isinstance(result.get("provenance"), dict) else {}
        return {k: result.get(k, nested.get(k)) for k in PROVENANCE_KEYS}


def resolve_command(command: str, start_dir: Path) -> list[str]:
    """Split the adapter command; make relative paths that exist in `start_dir` absolute.

    The adapter runs with the agent workspace as cwd, where the suite (and so an adapter kept
    next to it) is deliberately absent, so `./evals/instructions/adapters/x` must be resolved
    against the directory the runner was started in.
    """
    argv = shlex.split(command)
    for i, arg in enumerate(argv):
        if not arg.startswith("-") and not os.path.isabs(arg) and (start_dir / arg).exists() and ("/" in arg or i > 0):
            argv[i] = str((start_dir / arg).resolve())
    return argv


def checked_adapter_command(command: str, start_dir: Path, env: Mapping[str, str] | None = None) -> list[str]:
    """`resolve_command`, refusing (ConfigError) a command whose program cannot start.

    Checked once, before anything is built, because a missing program would otherwise fail
    every run the same way. `env` is the environment the adapter gets (default: this process's);
    a bare program name is looked up on the PATH the adapter will see (see `child_path`).
    """
    try:
        argv = resolve_command(command, start_dir)
    except ValueError as exc:
        raise ConfigError(f"adapter command {command!r}: cannot be split with shell rules ({exc})") from None
    if not argv:
        raise ConfigError("adapter command is empty")
    if "/" not in argv[0]:
        search = child_path(os.environ if env is None else env)
        if shutil.which(argv[0], path=search) is None:
            raise ConfigError(f"adapter command {command!r}: {argv[0]} is not an executable on PATH (searched {search})")
    if found := program_file(argv):
        index, path = found
        absolute = start_dir / path  # an absolute `path` stays itself
        if not absolute.exists():
            raise ConfigError(f"adapter command {command!r}: {path} does not exist (looked for {absolute}; relative "
                              f"paths are resolved against the current directory {start_dir}, not against --repo)")
        if index == 0 and not (absolute.is_file() and os.access(absolute, os.X_OK)):
            raise ConfigError(f"adapter command {command!r}: {absolute} is not an executable file")
    return argv


child_path = proc.child_path


def is_reference_adapter(argv: list[str]) -> bool:
    """Whether the command runs the offline reference agent (the one adapter given solutions):
    `adapters/reference` of a harness checkout, run directly or by a Python interpreter."""
    names = argv[:2] if len(argv) > 1 and Path(argv[0]).name.startswith("python") else argv[:1]
    for name in names:
        path = Path(name).resolve()
        if (path.name == "reference" and path.parent.name == "adapters" and path.is_file()
                and (path.parent.parent / "instruction_gate" / "reference_agent").is_dir()):
            return True
    return False


def invoke(argv: list[str], request: dict[str, Any], env: Mapping[str, str], cwd: Path, timeout: float,
           sandbox: Sandbox = UNISOLATED, view: View | None = None,
           limits: OutputLimits = OutputLimits(), broker_token: str | None = None) -> AdapterOutcome:
    """Run the adapter (confined by `sandbox` to `view`); events past `limits.event_bytes` are dropped.

    `broker_token` goes through a pipe whose read end the adapter inherits (its number in
    `INSTRUCTION_EVAL_BROKER_TOKEN_FD`), never through an environment: bubblewrap's init, the
    sandbox's PID 1, keeps the environment it was started with where every process inside can
    read it (/proc/1/environ), while it closes inherited descriptors. Under the provider-only
    network the adapter learns the relay's socket from `INSTRUCTION_EVAL_PROVIDER_RELAY`.
    When this returns, no process the adapter started is alive (see sandbox.Confinement).
    """
    outcome = AdapterOutcome()

    def on_line(raw: bytes) -> None:
        outcome.event_bytes += len(raw) + 1
        if outcome.event_bytes > limits.event_bytes or len(raw) > limits.event_line_bytes:
            outcome.over_limit = "events"
        if outcome.over_limit:
            return  # keep draining the pipe, keep nothing more
        text = raw.decode("utf-8", errors="replace").strip()
        if not text:
            return
        try:
            event = records.loads(text)  # NaN/Infinity make the line malformed, not the run a crash
        except (json.JSONDecodeError, RecursionError):
            outcome.malformed_lines += 1
            return
        if not isinstance(event, dict):
            outcome.malformed_lines += 1
            return
        # Counted as written: a compact line read back can be longer (spaces, escaped non-ASCII).
        written = len(json.dumps(event)) + 1
        if outcome.kept_event_bytes + written > limits.event_bytes:
            outcome.over_limit = "events"
            return
        outcome.kept_event_bytes += written
        outcome.events.append(event)

    child_env = {k: v for k, v in env.items() if k not in (BROKER_TOKEN_VAR, BROKER_TOKEN_FD_VAR, RELAY_SOCKET_VAR)}
    child_env["PATH"] = child_path(env)
    if sandbox.egress is not None:
        child_env[RELAY_SOCKET_VAR] = str(sandbox.egress)
    if sandbox.isolated:
        child_env[CONFINED_VAR] = "1"
    token_fds = _token_pipe(broker_token) if broker_token is not None else ()
    if token_fds:
        child_env[BROKER_TOKEN_FD_VAR] = str(token_fds[0])
    confined = sandbox.confine(argv, view or View((cwd,), cwd=cwd))
    try:
        result = proc.run(confined.argv, cwd, env=child_env, stdin=json.dumps(request), timeout=timeout,
                          tail_bytes=STDERR_TAIL_BYTES, on_stdout_line=on_line,
                          pass_fds=(*confined.pass_fds, *token_fds), line_bytes=limits.event_line_bytes)
    finally:
        for fd in token_fds:
            os.close(fd)
        confined.finish()
    outcome.stderr_tail = result.stderr
    outcome.wall_seconds = round(result.duration_seconds, 3)
    outcome.timed_out = result.timed_out
    outcome.start_error = result.start_error or confined.start_error(result.exit_code, result.stderr,
                                                                      len(outcome.events) + outcome.malformed_lines)
    outcome.exit_code = None if outcome.start_error else result.exit_code
    results = [e for e in outcome.events if e.get("type") == "result"]
    if results:
        outcome.result = dict(results[-1])
    return outcome


def _token_pipe(token: str) -> tuple[int]:
    """The read end of a pipe already holding `token` (written whole, the write end closed), so
    the adapter reads it to EOF and nothing is left in the pipe for anyone after it."""
    data = token.encode()
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)  # a pipe's buffer (64 KiB) holds any real credential
    try:
        written = os.write(write_end, data)
    except BlockingIOError:
        written = 0
    finally:
        os.close(write_end)
    if written != len(data):
        os.close(read_end)
        raise ConfigError(f"{BROKER_TOKEN_VAR}: longer than a pipe holds ({len(data)} bytes)")
    return (read_end,)
