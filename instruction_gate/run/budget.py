"""Hard caps on what one evaluation may spend: agent runs and provider dollars.

Runs are admitted a pair at a time: the first run of a (task, repeat) pair reserves both, so
a cap never leaves a lone base run without its candidate partner (half a pair is wasted money).
Dollars are only known after a run, so a pair is admitted when the money spent plus the money
the pair may cost stays within the cap; a pair's expected cost is twice the larger of the
task's `max_provider_cost_usd` and the most expensive run seen so far. When a cap refuses a
pair, the evaluation stops starting runs and records why: compare then reports the verdict
as inconclusive with that reason, never as a pass.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Protocol


class PairSpec(Protocol):
    """What the budget needs to know about a planned run (evaluation.RunSpec satisfies it)."""

    repeat: int
    variant: str
    order: int

    @property
    def task(self) -> Any: ...


@dataclass
class Budget:
    """Caps from policy.json's `budget` block; None means no cap."""

    max_agent_runs: int | None = None
    max_provider_usd: float | None = None
    runs_admitted: int = 0
    spent_usd: float = 0.0
    priciest_run_usd: float = 0.0
    unpriced_runs: int = 0  #: finished runs that reported no provider cost
    stop_reason: str | None = None  #: set by the first refusal
    share: float = 1.0  #: this shard's fraction of the evaluation's planned runs (caps scaled by it)
    _pairs: set[tuple[str, int]] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def from_policy(cls, block: dict[str, Any] | None) -> "Budget":
        block = block or {}
        return cls(block.get("max_agent_runs"), block.get("max_provider_usd"))

    def for_share(self, share: float) -> "Budget":
        """The caps of one shard job: its fraction of the evaluation's, so that the shards of one
        evaluation together stay within the policy's caps (runs rounded down to whole pairs)."""
        runs = None if self.max_agent_runs is None else 2 * int(self.max_agent_runs * share // 2)
        usd = None if self.max_provider_usd is None else self.max_provider_usd * share
        return Budget(runs, usd, share=share)

    @property
    def capped(self) -> bool:
        return self.max_agent_runs is not None or self.max_provider_usd is not None

    def admit(self, spec: PairSpec) -> bool:
        """Whether `spec` may start. Thread-safe; a refusal is final for the whole evaluation."""
        key = (spec.task.id, spec.repeat)
        with self._lock:
            if key in self._pairs:  # the partner reserved this run
                return True
            if self.stop_reason is not None:
                return False
            reason = self._refusal(spec)
            if reason is not None:
                self.stop_reason = reason
                return False
            self._pairs.add(key)
            self.runs_admitted += 2
            return True

    def _refusal(self, spec: PairSpec) -> str | None:
        if self.max_agent_runs is not None and self.runs_admitted + 2 > self.max_agent_runs:
            return (f"budget: max_agent_runs {self.max_agent_runs} reached after {self.runs_admitted} runs; "
                    f"{spec.task.id} repeat {spec.repeat} and later pairs were not run")
        if self.max_provider_usd is not None:
            per_run = max(self.priciest_run_usd, spec.task.max_provider_cost_usd or 0.0)
            if self.spent_usd + 2 * per_run > self.max_provider_usd:
                return (f"budget: max_provider_usd {self.max_provider_usd:g} would be exceeded "
                        f"(spent {self.spent_usd:.4f}, next pair may cost up to {2 * per_run:.4f}); "
                        f"{spec.task.id} repeat {spec.repeat} and later pairs were not run")
        return None

    def adopt(self, record: dict[str, Any]) -> None:
        """Count a run recorded before this process started (--resume) against the caps."""
        with self._lock:
            self._pairs.add((record["task_id"], record["repeat"]))
            self.runs_admitted += 1
        self.settle(record)

    def settle(self, record: dict[str, Any]) -> None:
        """Account for a finished run's reported provider cost."""
        cost = record.get("provider_cost_usd")
        with self._lock:
            if isinstance(cost, (int, float)) and not isinstance(cost, bool):
                self.spent_usd += float(cost)
                self.priciest_run_usd = max(self.priciest_run_usd, float(cost))
            else:
                self.unpriced_runs += 1

    def as_record(self) -> dict[str, Any]:
        """The `budget` block of index.json."""
        return {"max_agent_runs": self.max_agent_runs, "max_provider_usd": self.max_provider_usd, "share": self.share,
                "runs_admitted": self.runs_admitted, "spent_usd": round(self.spent_usd, 6),
                "unpriced_runs": self.unpriced_runs, "stopped": self.stop_reason is not None,
                "reason": self.stop_reason}
