"""Bisection over hunks: which of the candidate's hunks does the failure follow?

The whole candidate is known to fail. Each step tries the first half of the remaining hunks on
the failing tasks: if it reproduces the failure the search keeps that half, otherwise the other
half, which is then *inferred* (untried) until a later step or the optional final check runs it.
That is ceil(log2(hunks)) steps, the cost of a binary search; the assumption is that one hunk (or
one contiguous group) carries the failure, and the report says when its answer was inferred.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable


@dataclass(frozen=True)
class Step:
    hunks: tuple[int, ...]  #: 0-based hunk indices applied in this step
    reproduced: bool
    runs: int
    detail: str = ""  #: which failures came back, or why not


@dataclass
class Outcome:
    culprit: tuple[int, ...]  #: the smallest set found
    confirmed: bool  #: the culprit set itself was run and reproduced the failure
    steps: list[Step] = field(default_factory=list)

    @property
    def runs(self) -> int:
        return sum(s.runs for s in self.steps)


def steps_needed(hunks: int) -> int:
    """Steps of the bisection (without the final check): ceil(log2(hunks))."""
    return math.ceil(math.log2(hunks)) if hunks > 1 else 0


def bisect(hunks: int, trial: Callable[[tuple[int, ...]], Step], confirm: bool) -> Outcome:
    """Search hunks 0..hunks-1 with `trial` (runs the failing tasks with those hunks applied);
    `confirm`: run an inferred answer once more at the end."""
    remaining = tuple(range(hunks))
    outcome = Outcome(remaining, confirmed=True)
    while len(remaining) > 1:
        half = remaining[: len(remaining) // 2]
        step = trial(half)
        outcome.steps.append(step)
        if step.reproduced:
            remaining, outcome.confirmed = half, True
        else:
            remaining, outcome.confirmed = remaining[len(remaining) // 2:], False
    outcome.culprit = remaining
    if not outcome.confirmed and confirm:
        step = trial(remaining)
        outcome.steps.append(step)
        outcome.confirmed = step.reproduced
    return outcome
