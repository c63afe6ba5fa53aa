"""Pairs whose pytest checks skipped more tests in one arm than in the other.

A pytest check passes with skipped tests (a platform skip is normal), so the agent's code can
raise `unittest.SkipTest` on the very path it breaks and still pass. Within a pair both arms ran
the same checks on the same task: a difference in skipped tests (run.json `checks[].tests`) is a
behaviour of the code under test worth a reviewer's look, and the digest names it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from instruction_gate.verdict.pairing import Pair


def skipped(run: dict[str, Any]) -> int | None:
    """Tests the run's pytest checks skipped in all; None when no check has report counts."""
    counts = [c.get("tests") for c in run.get("checks") or [] if isinstance(c, dict)]
    numbers = [t.get("skipped") for t in counts if isinstance(t, dict)]
    numbers = [n for n in numbers if isinstance(n, int) and not isinstance(n, bool) and n >= 0]
    return sum(numbers) if numbers else None


@dataclass
class SkippedTests:
    """Per arm: pairs where its checks skipped more tests than the other arm's, and how many more."""

    pairs: int = 0  #: pairs where both arms have report counts
    more: dict[str, int] = field(default_factory=lambda: {"candidate": 0, "base": 0})
    extra: dict[str, int] = field(default_factory=lambda: {"candidate": 0, "base": 0})
    tasks: list[str] = field(default_factory=list)  #: tasks with a pair that differs

    @property
    def differs(self) -> bool:
        return self.more["candidate"] != self.more["base"] or self.extra["candidate"] != self.extra["base"]


def skipped_tests(pairs: list[Pair]) -> SkippedTests | None:
    """The comparison over `pairs`; None when no pair differs."""
    found = SkippedTests()
    for pair in pairs:
        base, candidate = skipped(pair.base), skipped(pair.candidate)
        if base is None or candidate is None:
            continue
        found.pairs += 1
        if base == candidate:
            continue
        arm = "candidate" if candidate > base else "base"
        found.more[arm] += 1
        found.extra[arm] += abs(candidate - base)
        found.tasks += [pair.task_id] if pair.task_id not in found.tasks else []
    return found if found.tasks else None
