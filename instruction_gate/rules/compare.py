"""Rule metrics in compare: paired deltas of compliance rate, CSR and C-ISR, per category and per turn.

Each run's `rule_metrics` gives one value per metric (None when undefined, e.g. no rule was
judged). A pair counts for a metric when both runs have a value; like the success rate, the
unit of analysis is the task (mean of its paired deltas), the interval is compare's t interval
over task means, and `soft.max_compliance_rate_drop`, `soft.max_csr_drop` and `soft.max_c_isr_drop`
gate the drops exactly as `max_success_rate_drop` gates success.

A suite whose tasks define no rule has nothing to comply with: every paired run records
`rule_metrics` with zero rules, and the metrics are "not applicable" (information, whatever the
bounds). When rules exist but nothing could be judged (checks undetermined, records without rule
results), a gated metric stays inconclusive: the rules were there and said nothing.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from instruction_gate.verdict import stats
from instruction_gate.verdict.metrics import (NOT_APPLICABLE, MetricResult, MetricSpec, evaluate_metric, task_index,
                                              task_means, with_p_values)
from instruction_gate.verdict.pairing import Pair

#: Gated rule metrics (run-record `rule_metrics` keys), shown with the other soft metrics.
RULE_METRICS: tuple[MetricSpec, ...] = (
    MetricSpec("compliance_rate", "max_compliance_rate_drop", "rule compliance rate", "difference"),
    MetricSpec("csr", "max_csr_drop", "constraint success rate (CSR)", "difference"),
    MetricSpec("c_isr", "max_c_isr_drop", "turns with every constraint met (C-ISR)", "difference"),
)
REPORTED = ("triggering_rate", "compliance_rate", "exact_compliance_rate", "csr", "c_isr")


def _value(run: dict[str, Any], name: str, category: str | None = None) -> float | None:
    metrics = run.get("rule_metrics")
    if not isinstance(metrics, dict):
        return None
    if category is not None:
        metrics = (metrics.get("by_category") or {}).get(category) or {}
    value = metrics.get(name)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def columns(pairs: list[Pair], name: str, category: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(base, candidate) values of `name` per pair, nan where a run has none."""
    def value(run: dict[str, Any]) -> float:
        found = _value(run, name, category)
        return np.nan if found is None else found
    return (np.array([value(p.base) for p in pairs], dtype=float), np.array([value(p.candidate) for p in pairs], dtype=float))


NO_RULES = "not applicable: no task of the suite defines a rule"


def no_rules(pairs: list[Pair]) -> bool:
    """Every paired run says it was judged by zero rules (the suite defines none); records that
    carry no rule results say nothing either way."""
    runs = [run.get("rule_metrics") for p in pairs for run in (p.base, p.candidate)]
    return bool(runs) and all(isinstance(m, dict) and m.get("rules") == 0 for m in runs)


def evaluate_rule_metrics(pairs: list[Pair], soft: dict[str, Any], statistics: dict[str, Any]) -> list[MetricResult]:
    """Gated rule metrics as soft metrics (same interval, verdict, p-value and policy handling)."""
    if no_rules(pairs):
        return [MetricResult(spec, soft.get(spec.policy_key), 0, 0, None, None, None, float("nan"), None,
                             NOT_APPLICABLE, {"reason": NO_RULES}) for spec in RULE_METRICS]
    index, count = task_index(pairs)
    confidence = float(statistics["confidence_level"])
    evaluated = [evaluate_metric(spec, *columns(pairs, spec.name), index, count, soft.get(spec.policy_key), confidence)
                 for spec in RULE_METRICS]
    return with_p_values(evaluated, count, statistics)


def paired_delta(pairs: list[Pair], name: str, confidence: float, category: str | None = None) -> dict[str, Any]:
    """Per-variant means and the paired delta (candidate − base) with its interval, over task means."""
    rows = [(p.task_id, _value(p.base, name, category), _value(p.candidate, name, category)) for p in pairs]
    rows = [r for r in rows if r[1] is not None and r[2] is not None]
    if not rows:
        return {"pairs": 0, "tasks": 0, "base": None, "candidate": None, "estimate": None, "low": None, "high": None}
    kept = [Pair(t, 0, {}, {}) for t, _, _ in rows]
    index, count = task_index(kept)
    base, candidate = np.array([r[1] for r in rows]), np.array([r[2] for r in rows])
    base_means, _ = task_means(index, base, count)
    candidate_means, _ = task_means(index, candidate, count)
    # The same continuity correction as the gated rate metrics, so that a breakdown row and the
    # metrics table show one interval for one number.
    interval = stats.t_interval(candidate_means - base_means, confidence, correction=1 / (2 * len(rows)))
    # Differences of rates lie in [-1, 1]; an unbounded end (one task) stays None.
    finite = (lambda v: None if v is None or not np.isfinite(v) else float(min(1.0, max(-1.0, v))))
    return {"pairs": len(rows), "tasks": count, "base": float(base_means.mean()), "candidate": float(candidate_means.mean()),
            "estimate": interval.estimate, "low": finite(interval.low), "high": finite(interval.high)}


def _per_turn(pairs: list[Pair]) -> list[dict[str, Any]]:
    """Mean CSR and C-ISR of each turn, per variant (over runs that have a value)."""
    sums: dict[tuple[int, str, str], list[float]] = {}
    for pair in pairs:
        for variant, run in (("base", pair.base), ("candidate", pair.candidate)):
            for turn in (run.get("rule_metrics") or {}).get("per_turn") or []:
                for key in ("csr", "c_isr"):
                    if turn.get(key) is not None:
                        sums.setdefault((turn["turn"], variant, key), []).append(float(turn[key]))
    turns = sorted({t for t, _, _ in sums})
    return [{"turn": t, **{f"{v}_{k}": (float(np.mean(sums[(t, v, k)])) if (t, v, k) in sums else None)
                           for v in ("base", "candidate") for k in ("csr", "c_isr")}} for t in turns]


def _rule_changes(pairs: list[Pair]) -> list[dict[str, Any]]:
    """Per rule (and turn): violated / judged runs in each arm, rules that got worse first."""
    tally: dict[tuple[str, Any], dict[str, list[int]]] = {}
    for pair in pairs:
        for variant, run in (("base", pair.base), ("candidate", pair.candidate)):
            for result in run.get("rules") or []:
                counts = tally.setdefault((result["id"], result.get("turn")), {"base": [0, 0], "candidate": [0, 0]})
                if result["outcome"] in ("satisfied", "violated"):
                    counts[variant][1] += 1
                    counts[variant][0] += result["outcome"] == "violated"
    rows = [{"id": rid, "turn": turn, "base_violated": c["base"][0], "base_judged": c["base"][1],
             "candidate_violated": c["candidate"][0], "candidate_judged": c["candidate"][1]}
            for (rid, turn), c in tally.items()]
    return sorted(rows, key=lambda r: (r["base_violated"] - r["candidate_violated"], r["id"], str(r["turn"])))


def rule_summary(pairs: list[Pair], confidence: float) -> dict[str, Any] | None:
    """The `rules` section of summary.json; None when no paired run carries rule results or the
    suite defines no rule (the metrics table says "not applicable")."""
    if no_rules(pairs):
        return None
    judged = [p for p in pairs if isinstance(p.base.get("rule_metrics"), dict) and isinstance(p.candidate.get("rule_metrics"), dict)]
    if not judged:
        return None
    categories = sorted({c for p in judged for run in (p.base, p.candidate) for c in run["rule_metrics"].get("by_category") or {}})
    return {
        "pairs": len(judged),
        "metrics": {name: paired_delta(judged, name, confidence) for name in REPORTED},
        "by_category": {c: paired_delta(judged, "compliance_rate", confidence, c) for c in categories},
        "per_turn": _per_turn(judged),
        "rules": _rule_changes(judged),
    }
