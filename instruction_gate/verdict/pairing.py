"""Pairing: (task, repeat) with both variants valid; everything else is counted as lost.

An invalid run (infrastructure failure) says nothing about the instructions, so it removes its
whole pair from both arms. Runs that were planned but never recorded count as lost too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from instruction_gate.verdict.results import VARIANTS, ResultSet


@dataclass(frozen=True)
class Pair:
    """Both runs of one (task, repeat), each valid."""

    task_id: str
    repeat: int
    base: dict[str, Any]
    candidate: dict[str, Any]


@dataclass(frozen=True)
class LostRun:
    """A run that is not part of any pair, and why."""

    task_id: str
    repeat: int
    variant: str
    reason: str
    record: dict[str, Any] | None  #: None when the run was never recorded


@dataclass
class Pairing:
    pairs: list[Pair]
    lost: list[LostRun]  #: invalid, missing, or valid but partner lost (sorted)
    planned_pairs: int
    valid_runs: dict[str, int] = field(default_factory=dict)  #: per variant

    def coverage(self, variant: str) -> float:
        """Fraction of planned runs of this arm that are valid."""
        return self.valid_runs.get(variant, 0) / self.planned_pairs if self.planned_pairs else 0.0

    @property
    def tasks(self) -> list[str]:
        return sorted({p.task_id for p in self.pairs})

    def common_failure(self) -> str | None:
        """`cli_not_found — Cannot find module …` when every planned run was recorded and failed
        with the same reason and detail (one broken setup, not N problems); else None."""
        if self.pairs or not self.lost or any(r.record is None for r in self.lost):
            return None
        return common_cause([r.record for r in self.lost if r.record is not None])


def common_cause(records: list[dict[str, Any]]) -> str | None:
    """The one `reason — detail` every one of `records` failed with (all invalid), else None."""
    if not records or any(r.get("valid") is not False for r in records):
        return None
    causes = {(r.get("failure_reason"), r.get("failure_detail")) for r in records}
    if len(causes) != 1:
        return None
    ((reason, detail),) = causes
    return (reason or "no reason recorded").removeprefix("failed: ") + (f" — {detail}" if detail else "")


def _invalid_reason(run: dict[str, Any]) -> str:
    reason = run.get("failure_reason") or "no reason recorded"
    detail = f" — {run['failure_detail']}" if run.get("failure_detail") else ""
    return f"invalid ({run.get('failure_class') or 'infrastructure'}): {reason}{detail}"


def pair_runs(results: ResultSet, count_unstarted: bool = True) -> Pairing:
    """Pairs of valid runs and what was lost. `count_unstarted=False` (a budget cap stopped the
    evaluation) leaves planned pairs that never started out of the plan: they were not lost, and
    the verdict says inconclusive because of the cap instead."""
    keys = {(t, r) for (t, r, _) in results.runs} | (results.planned_pairs if count_unstarted else set())
    pairs: list[Pair] = []
    lost: list[LostRun] = []
    valid_runs = {variant: 0 for variant in VARIANTS}
    for task_id, repeat in sorted(keys):
        runs = {v: results.runs.get((task_id, repeat, v)) for v in VARIANTS}
        ok = {v: run is not None and run.get("valid", True) is True for v, run in runs.items()}
        for variant, run in runs.items():
            valid_runs[variant] += ok[variant]
        if all(ok.values()):
            pairs.append(Pair(task_id, repeat, runs["base"], runs["candidate"]))
            continue
        for variant, run in runs.items():
            other = "candidate" if variant == "base" else "base"
            if run is None:
                reason = "missing: planned but never recorded"
            elif not ok[variant]:
                reason = _invalid_reason(run)
            else:
                reason = f"paired {other} run lost"
            lost.append(LostRun(task_id, repeat, variant, reason, run))
    return Pairing(pairs, lost, len(keys), valid_runs)
