"""Per-turn constraint checklists and their scores.

The checklist of turn t holds every rule result scoped to turn t; rules that judge the whole
run are items of the last turn's checklist (the final state is what the last turn leaves).
An item counts when it is satisfied or violated: inapplicable items are not constraints of
that turn and undetermined ones are withheld rather than guessed.

- CSR_t (constraint success rate): satisfied items / counted items of turn t.
- C-ISR_t (all constraints satisfied): 1 when every counted item is satisfied, 0 when one is
  violated; None when an undetermined item could hide a violation, or nothing was counted.

A run's CSR and C-ISR are the means over turns that have a value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable


@dataclass(frozen=True)
class TurnScore:
    turn: int
    satisfied: int
    violated: int
    undetermined: int

    @property
    def csr(self) -> float | None:
        counted = self.satisfied + self.violated
        return self.satisfied / counted if counted else None

    @property
    def c_isr(self) -> float | None:
        if self.violated:
            return 0.0
        if self.undetermined or not self.satisfied:
            return None
        return 1.0

    def to_record(self) -> dict[str, Any]:
        return {"turn": self.turn, "satisfied": self.satisfied, "violated": self.violated,
                "undetermined": self.undetermined, "csr": self.csr, "c_isr": self.c_isr}


def turn_scores(results: Iterable[dict[str, Any]], turn_count: int) -> list[TurnScore]:
    """One score per turn from rule results in record form (`outcome`, `turn`)."""
    tally = {t: {"satisfied": 0, "violated": 0, "undetermined": 0} for t in range(turn_count)}
    for result in results:
        turn = result.get("turn")
        turn = turn_count - 1 if turn is None else turn
        if result["outcome"] in ("satisfied", "violated", "undetermined") and turn in tally:
            tally[turn][result["outcome"]] += 1
    return [TurnScore(t, **counts) for t, counts in tally.items()]


def mean(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return sum(present) / len(present) if present else None


def run_csr(scores: list[TurnScore]) -> float | None:
    return mean(s.csr for s in scores)


def run_c_isr(scores: list[TurnScore]) -> float | None:
    return mean(s.c_isr for s in scores)
