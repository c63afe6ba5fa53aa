"""The adapter side of the adapter protocol: read the request, write events and the result.

See adapters/README.md for the protocol itself. Everything an adapter prints on stdout goes
through `EventWriter`, so every line is one JSON object and nothing else.
"""

from __future__ import annotations

import json
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Iterable, Mapping

from instruction_gate import __version__
from instruction_gate.agents.discovery import LoadedFile, result_fields
from instruction_gate.agents.failures import INFRASTRUCTURE, Failure
from instruction_gate.errors import ConfigError


#: Set in an adapter's environment when the gate's sandbox confines it (the agent's own sandbox,
#: if it has one, cannot nest inside and is redundant there).
CONFINED_VAR = "INSTRUCTION_GATE_CONFINED"


@dataclass(frozen=True)
class AdapterRequest:
    """The fields of an adapter request that real adapters use (the rest stays in `raw`)."""

    workspace: Path  #: the agent's cwd
    repo_root: Path  #: the workspace repository's root
    turns: tuple[str, ...]  #: every user turn, in order
    agent_env: dict[str, str]  #: the only environment the agent process may see
    timeout_seconds: float | None  #: the runner's limit for this run
    options: dict[str, str]  #: `adapter_options`
    raw: dict[str, Any] = field(repr=False)  #: the request as received, for wrapping adapters

    @classmethod
    def parse(cls, text: str) -> "AdapterRequest":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"stdin::$: adapter request is not JSON ({exc.msg})") from None
        if not isinstance(data, dict):
            raise ConfigError("stdin::$: adapter request must be a JSON object")
        problems = [f"stdin::$.{key}: required" for key in ("workspace", "prompt") if not data.get(key)]
        if problems:
            raise ConfigError("invalid adapter request", problems)
        workspace = Path(data["workspace"])
        turns = data.get("turns") or [data["prompt"]]
        limits = data.get("limits") or {}
        options = {str(k): str(v) for k, v in (data.get("adapter_options") or {}).items()}
        env = data.get("agent_env")
        return cls(workspace=workspace, repo_root=Path(data.get("repo_root") or workspace),
                   turns=tuple(str(t) for t in turns),
                   agent_env={str(k): str(v) for k, v in (env or {}).items()},
                   timeout_seconds=_number(limits.get("timeout_seconds")), options=options, raw=data)


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


class EventWriter:
    """Writes protocol events as JSON lines; safe to call from a reader thread."""

    def __init__(self, stream: IO[str] | None = None):
        self.stream = stream or sys.stdout
        self.lock = threading.Lock()
        self.written: list[dict[str, Any]] = []

    def emit(self, event: Mapping[str, Any]) -> None:
        with self.lock:
            self.written.append(dict(event))
            self.stream.write(json.dumps(event, ensure_ascii=False) + "\n")
            self.stream.flush()

    def emit_all(self, events: Iterable[Mapping[str, Any]]) -> None:
        for event in events:
            self.emit(event)


@dataclass
class Usage:
    """Token counts for the whole run; None until the agent reports any."""

    input_tokens: int | None = None  #: all prompt tokens, cached ones included
    output_tokens: int | None = None
    cached_input_tokens: int | None = None  #: the part of input_tokens served from cache

    def add(self, input_tokens: int = 0, output_tokens: int = 0, cached_input_tokens: int = 0) -> None:
        self.input_tokens = (self.input_tokens or 0) + input_tokens
        self.output_tokens = (self.output_tokens or 0) + output_tokens
        self.cached_input_tokens = (self.cached_input_tokens or 0) + cached_input_tokens

    def cost_usd(self, prices_per_mtok: tuple[float, float, float]) -> float:
        """Dollars at (uncached input, cached input, output) USD per million tokens."""
        input_price, cached_price, output_price = prices_per_mtok
        cached = self.cached_input_tokens or 0
        return ((self.input_tokens or 0) - cached) * input_price / 1e6 + cached * cached_price / 1e6 \
            + (self.output_tokens or 0) * output_price / 1e6


def adapter_version(agent: str) -> str:
    return f"instruction-gate-{agent}/{__version__}"


def result_event(*, failure: Failure | None, tool_calls: int | None, usage: Usage,
                 provider_cost_usd: float | None, instruction_files: Iterable[LoadedFile],
                 provenance: Mapping[str, Any], final_message: str | None,
                 skills_invoked: Iterable[str] | None = None,
                 lazy_instruction_sources: Iterable[str] | None = None) -> dict[str, Any]:
    """The closing `result` event (its fields: adapters/README.md, "Result event"). `skills_invoked` and
    `lazy_instruction_sources` are written only by adapters that can tell (None: unknown)."""
    sources, sizes = result_fields(instruction_files)
    event: dict[str, Any] = {"type": "result", "status": failure.status if failure else "completed"}
    if failure is not None:
        event["failure_class"] = failure.failure_class
        event["failure_reason"] = failure.reason
        if failure.failure_class == INFRASTRUCTURE and failure.detail:
            event["failure_detail"] = failure.detail  # the CLI's error line, for the run record
    event.update(tool_calls=tool_calls, input_tokens=usage.input_tokens,
                 output_tokens=usage.output_tokens, cached_input_tokens=usage.cached_input_tokens,
                 provider_cost_usd=provider_cost_usd, instruction_sources=sources,
                 instruction_bytes=sizes, provenance=dict(provenance))
    if skills_invoked is not None:
        event["skills_invoked"] = list(skills_invoked)
    if lazy_instruction_sources is not None:
        event["lazy_instruction_sources"] = list(lazy_instruction_sources)
    if final_message:
        event["final_message"] = final_message
    return event
