"""Run-level rule metrics: triggering rate, compliance rate, CSR and C-ISR, overall and per category.

- triggering rate = rules not inapplicable / rules evaluated.
- compliance rate = satisfied / (satisfied + violated). Undetermined results count as triggered
  but are left out of the compliance rate, so a blind spot of a check is reported neither as
  less work by the agent nor as a verdict on it.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Iterable

from instruction_gate.rules.checklist import run_c_isr, run_csr, turn_scores

OUTCOMES = ("satisfied", "violated", "undetermined", "inapplicable")
#: Metrics compare reports; each maps a run's `rule_metrics` to a number or None.
METRIC_NAMES = ("triggering_rate", "compliance_rate", "csr", "c_isr")


def rates(counts: Counter) -> dict[str, Any]:
    total = sum(counts[o] for o in OUTCOMES)
    triggered = total - counts["inapplicable"]
    judged = counts["satisfied"] + counts["violated"]
    return {"rules": total, **{o: counts[o] for o in OUTCOMES},
            "triggering_rate": triggered / total if total else None,
            "compliance_rate": counts["satisfied"] / judged if judged else None}


def run_metrics(results: Iterable[dict[str, Any]], turn_count: int) -> dict[str, Any]:
    """The `rule_metrics` field of a run record, from its `rules` results."""
    results = list(results)
    scores = turn_scores(results, turn_count)
    by_category: dict[str, Counter] = {}
    for r in results:
        by_category.setdefault(r["category"], Counter())[r["outcome"]] += 1
    return {
        "turns": turn_count, **rates(Counter(r["outcome"] for r in results)),
        "exact_compliance_rate": rates(Counter(r["outcome"] for r in results if r.get("exact", True)))["compliance_rate"],
        "csr": run_csr(scores), "c_isr": run_c_isr(scores),
        "per_turn": [s.to_record() for s in scores],
        "by_category": {cat: rates(counts) for cat, counts in sorted(by_category.items())},
    }
