"""Output limits of one run: what the harness reads, keeps and stores of an agent's output.

An agent (steered by untrusted instructions) can print or write without bound; past a limit
the harness stops keeping output and records the run as an agent failure with the reason
`output_limit:<what>`, never holding the whole output in memory.

What a run directory keeps, and its bound (`OutputLimits.run_dir_bytes`):
- the events, counted as they are written (one compact JSON line each, after parsing), at most
  `event_bytes`; they are written twice, to events.jsonl (streamed by compare and replay) and
  inline in run.json (a record read on its own is whole), one line per event in both, so the two
  together hold at most 2 x `event_bytes`;
- patch.diff, whose new side is at most `patch_bytes` (no patch is stored over it);
- the rest of run.json (adapter stderr tail, check output tails, failure detail, rule
  evidence), each capped where it is made, within `RECORD_BYTES`.
The runner holds the kept events as parsed objects while it judges the run (bounded by
`event_bytes`), never the unkept rest of the stream; benchmarks/output_limits.py measures both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

MIB = 1024 * 1024
#: Bytes of a run record besides its events: capped tails and evidence (see the module docstring).
RECORD_BYTES = 1 * MIB


@dataclass(frozen=True)
class OutputLimits:
    """Byte limits per run; the policy's `limits` block overrides these defaults."""

    event_bytes: int = 16 * MIB  #: events read (stdout) and events kept, each counted as written
    event_line_bytes: int = 1 * MIB  #: one event line
    patch_bytes: int = 8 * MIB  #: the new side of every file the agent changed (≈ patch.diff)

    @classmethod
    def from_policy(cls, block: Mapping[str, Any] | None) -> "OutputLimits":
        block = block or {}
        defaults = cls()
        return cls(**{name: int(block.get(f"max_{name}", getattr(defaults, name))) for name in cls.__dataclass_fields__})

    @property
    def run_dir_bytes(self) -> int:
        """The most a run directory holds: events twice, the patch, the rest of the record."""
        return 2 * self.event_bytes + self.patch_bytes + RECORD_BYTES

    def as_record(self) -> dict[str, int]:
        return {f"max_{name}": getattr(self, name) for name in self.__dataclass_fields__}


def limit_reason(what: str) -> str:
    """The run record's failure_reason for a run over the `what` limit."""
    return f"output_limit:{what}"
