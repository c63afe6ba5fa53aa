"""Output limits of one run: what the harness reads, keeps and stores of an agent's output.

An agent (steered by untrusted instructions) can print or write without bound; past a limit
the harness stops keeping output and records the run as an agent failure with the reason
`output_limit:<what>`, never holding the whole output in memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

MIB = 1024 * 1024


@dataclass(frozen=True)
class OutputLimits:
    """Byte limits per run; the policy's `limits` block overrides these defaults."""

    event_bytes: int = 16 * MIB  #: the adapter's whole event stream (stdout)
    event_line_bytes: int = 1 * MIB  #: one event line
    patch_bytes: int = 8 * MIB  #: the new side of every file the agent changed (≈ patch.diff)

    @classmethod
    def from_policy(cls, block: Mapping[str, Any] | None) -> "OutputLimits":
        block = block or {}
        defaults = cls()
        return cls(**{name: int(block.get(f"max_{name}", getattr(defaults, name))) for name in cls.__dataclass_fields__})

    def as_record(self) -> dict[str, int]:
        return {f"max_{name}": getattr(self, name) for name in self.__dataclass_fields__}


def limit_reason(what: str) -> str:
    """The run record's failure_reason for a run over the `what` limit."""
    return f"output_limit:{what}"
