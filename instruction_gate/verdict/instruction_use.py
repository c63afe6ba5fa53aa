"""Whether an instruction was used, per arm: the skills invoked and the lazily loaded files that
reached the model, from each paired run's `skills_invoked` and `lazy_instruction_sources`.

Per name (a skill, a file), the runs of each arm whose adapter reports the field, and how many
of them used it: "skill `release` invoked in 0 of 6 candidate runs, 5 of 6 base runs". Each name
is also a paired rate that policy can gate like the rule metrics: per pair 1 when the run used
it, 0 when not, over the pairs whose two runs both report the field, on tasks where some run of
either arm used it (elsewhere the name is not in play, and zeros there would only pull the
difference towards nothing). `soft.max_skill_use_drop` and `soft.max_lazy_load_drop` bound the
drop over task means, with compare's interval, p-value and verdict. Without a bound, the counts
are reported and no metric is added.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from instruction_gate.verdict.metrics import MetricResult, MetricSpec, evaluate_metric, task_index, with_p_values
from instruction_gate.verdict.pairing import Pair


@dataclass(frozen=True)
class UseKind:
    """One kind of instruction use recorded per run."""

    field: str  #: run-record field: a list of names, absent when the adapter cannot tell
    noun: str  #: what one name is, for people
    verb: str  #: what using it is, for people
    policy_key: str  #: bound in policy.soft
    prefix: str  #: metric names: `<prefix>:<name>`


KINDS: tuple[UseKind, ...] = (
    UseKind("skills_invoked", "skill", "invoked", "max_skill_use_drop", "skill_use"),
    UseKind("lazy_instruction_sources", "lazily loaded file", "reached the model", "max_lazy_load_drop", "lazy_load"),
)


@dataclass(frozen=True)
class UseRow:
    """How often one name was used in each arm's paired runs."""

    kind: UseKind
    name: str
    base_used: int
    base_runs: int  #: paired base runs that report the field
    candidate_used: int
    candidate_runs: int

    def sentence(self) -> str:
        return (f"{self.kind.noun} `{self.name}` {self.kind.verb} in {self.candidate_used} of {self.candidate_runs} "
                f"candidate runs, {self.base_used} of {self.base_runs} base runs")

    def to_record(self) -> dict[str, Any]:
        return {"kind": self.kind.field, "name": self.name, "base_used": self.base_used, "base_runs": self.base_runs,
                "candidate_used": self.candidate_used, "candidate_runs": self.candidate_runs}


def _names(run: dict[str, Any], field: str) -> set[str] | None:
    value = run.get(field)
    return {v for v in value if isinstance(v, str)} if isinstance(value, list) else None


def use_rows(pairs: list[Pair]) -> list[UseRow]:
    """Per kind and name used in any paired run: the counts of each arm, most changed first."""
    rows: list[UseRow] = []
    for kind in KINDS:
        reported = {arm: [n for p in pairs if (n := _names(getattr(p, arm), kind.field)) is not None]
                    for arm in ("base", "candidate")}
        names = sorted(set().union(*reported["base"], *reported["candidate"]))
        rows += [UseRow(kind, name, sum(name in n for n in reported["base"]), len(reported["base"]),
                        sum(name in n for n in reported["candidate"]), len(reported["candidate"])) for name in names]
    return sorted(rows, key=lambda r: (KINDS.index(r.kind), -abs(_share(r.base_used, r.base_runs)
                                                                  - _share(r.candidate_used, r.candidate_runs)), r.name))


def _share(used: int, runs: int) -> float:
    return used / runs if runs else 0.0


def columns(pairs: list[Pair], kind: UseKind, name: str) -> tuple[np.ndarray, np.ndarray]:
    """(base, candidate) 1/0 per pair for `name`; nan where a run does not report the field or
    the task never used the name in any run."""
    in_play = {p.task_id for p in pairs for run in (p.base, p.candidate) if name in (_names(run, kind.field) or ())}

    def value(pair: Pair, run: dict[str, Any]) -> float:
        names = _names(run, kind.field)
        return np.nan if names is None or pair.task_id not in in_play else float(name in names)
    return (np.array([value(p, p.base) for p in pairs], dtype=float),
            np.array([value(p, p.candidate) for p in pairs], dtype=float))


def evaluate_use_metrics(pairs: list[Pair], soft: dict[str, Any], statistics: dict[str, Any]) -> list[MetricResult]:
    """One gated difference metric per used name of each kind whose policy bound is set."""
    index, count = task_index(pairs)
    confidence = float(statistics["confidence_level"])
    evaluated = []
    for row in use_rows(pairs):
        bound = soft.get(row.kind.policy_key)
        if bound is None:
            continue
        spec = MetricSpec(f"{row.kind.prefix}:{row.name}", row.kind.policy_key,
                          f"{row.kind.noun} `{row.name}` {row.kind.verb}", "difference")
        evaluated.append(evaluate_metric(spec, *columns(pairs, row.kind, row.name), index, count, bound, confidence))
    return with_p_values(evaluated, count, statistics) if evaluated else []


def use_summary(pairs: list[Pair]) -> list[dict[str, Any]]:
    """summary.json `instruction_use`: one entry per name used in a paired run."""
    return [{**row.to_record(), "sentence": row.sentence()} for row in use_rows(pairs)]
