"""summary.json: the machine-readable result (schemas/summary.schema.json).

Keeps the reference keys (`valid_pairs`, `metrics.<name>.{estimate, low, high, task_clusters}`,
`failures`) so existing consumers keep working; `schema_version` comes first.
"""

from __future__ import annotations

from typing import Any

from instruction_gate import __version__

from instruction_gate.report import digest_md
from instruction_gate.verdict import held_code, impact, spending_compare
from instruction_gate.verdict.comparison import Comparison, as_plain
from instruction_gate.verdict.metrics import MetricResult
from instruction_gate.records import RECORD_SCHEMA_VERSION
from instruction_gate.rules.compare import rule_summary
from instruction_gate.verdict.instruction_use import use_summary
from instruction_gate.report import not_understood_md
from instruction_gate.verdict.stats import EXACT_SIGN_FLIP_MAX_TASKS


def _metric(metric: MetricResult, confidence: float) -> dict[str, Any] | None:
    if metric.estimate is None and metric.bound is None:
        return None
    difference = metric.spec.kind == "difference"
    return {
        "estimate": as_plain(metric.estimate),
        "low": as_plain(metric.low),
        "high": as_plain(metric.high),
        "task_clusters": metric.tasks,
        "pairs": metric.pairs,
        "kind": "mean_paired_difference" if difference else "geometric_mean_ratio",
        "method": ("t interval over task means + continuity correction" if difference
                   else "t interval over task mean log ratios, exponentiated"),
        "confidence_level": confidence,
        "policy_key": metric.spec.policy_key,
        "bound": metric.bound,
        "verdict": metric.verdict,
        "p_value": as_plain(metric.p_value),
        **{key: as_plain(value) for key, value in metric.info.items()},
    }


def _power(comparison: Comparison) -> dict[str, Any] | None:
    note = comparison.power
    if note is None:
        return None
    return {"power": comparison.policy.statistics["power"], "detectable_drop": as_plain(note.detectable_drop),
            "task_spread": as_plain(note.spread), "spread_assumed": note.spread_assumed, "tasks": note.tasks,
            "repeats": note.repeats, "target_drop": note.target_drop, "tasks_needed": note.tasks_needed,
            "pairs_needed": note.pairs_needed}


def build_summary(comparison: Comparison) -> dict[str, Any]:
    decision, pairing, results = comparison.decision, comparison.pairing, comparison.results
    confidence = comparison.policy.confidence
    metrics = {m.spec.name: _metric(m, confidence) for m in comparison.metrics}
    return {
        "schema_version": RECORD_SCHEMA_VERSION,
        "kind": "instruction-gate/summary",
        "verdict": decision.verdict,
        "exit_code": decision.exit_code,
        "headline": decision.headline,
        "digest": digest_md.as_json(comparison.digest),
        "valid_pairs": len(pairing.pairs),
        "planned_pairs": pairing.planned_pairs,
        "task_clusters": len(pairing.tasks),
        "metrics": metrics,
        "failures": decision.failures,
        "errors": decision.errors,
        "warnings": decision.warnings,
        "not_evaluated": decision.not_evaluated,
        "hard_failures": [{"task_id": f.task_id, "repeat": f.repeat, "variant": f.variant, "category": f.category,
                           "status": f.status, "blocking": f.blocking, "evidence": f.evidence,
                           **({"occurrences": f.occurrences, "needed": f.needed} if f.needed > 1 else {})}
                          for f in comparison.findings],
        "blind_gates": [gate.as_dict() for gate in comparison.blind_gates],
        "tasks": [{"task_id": t.task_id, "pairs": t.pairs, "base_resolved": t.base_resolved,
                   "candidate_resolved": t.candidate_resolved, "delta": t.delta,
                   "lost_repeats": list(t.lost_repeats), "gained_repeats": list(t.gained_repeats)}
                  for t in comparison.tasks],
        "lost_runs": [{"task_id": r.task_id, "repeat": r.repeat, "variant": r.variant, "reason": r.reason}
                      for r in pairing.lost],
        "power": _power(comparison),
        "rules": rule_summary(comparison.pairing.pairs, confidence),
        "instruction_use": use_summary(comparison.pairing.pairs),
        "not_understood": not_understood_md.block(comparison.pairing.pairs),
        "spending": spending_compare.summary_block(comparison.spending),
        "held_code": held_code.block(results.headers),
        "impact": impact.summary_block(comparison.impact),
        "p_value_method": (f"two-sided sign-flip permutation over task means; exact up to "
                           f"{EXACT_SIGN_FLIP_MAX_TASKS} tasks, else {comparison.policy.statistics['draws']} "
                           f"seeded draws (seed {comparison.policy.statistics['seed']})"),
        "provenance": {
            **{name: results.header.get(name) for name in ("base_sha", "candidate_sha", "merge_base_sha",
                                                            "manifest_sha256")},
            "evaluated_by": results.header.get("gate_version"),
            "compared_by": __version__,
            "shards": results.shards,
            "sources": [str(p) for p in results.sources],
            "policy": comparison.policy.source,
            "runs": comparison.provenance,
        },
    }
