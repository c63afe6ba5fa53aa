"""Compare's view of the spending controls recorded in index.json: sequential stop, budget, cost.

* Sequential mode: the success rate is judged at the confidence of the round the evaluation
  stopped at (the repeated interval the runner used), not at the fixed design's level, so
  compare's verdict is the one the stopping boundaries were calibrated for.
* Budget: an evaluation a cap stopped is never a pass. A PASS becomes INCONCLUSIVE with the
  cap's reason, and `soft.on_inconclusive` decides what that means for the exit code.
* Cost: runs and dollars spent next to the fixed design's, summed over shards.
"""

from __future__ import annotations

from typing import Any

from instruction_gate.errors import EXIT_GATE_FAILURE
from instruction_gate.verdict.metrics import evaluate_metrics

#: index.json header blocks the runner writes for the spending controls.
HEADER_KEYS = ("mode", "sequential", "stopped", "budget", "cost", "baseline_cache")
_COST_SUMS = ("agent_runs", "reused_runs", "provider_usd", "unpriced_runs", "agent_seconds",
              "fixed_design_runs", "fixed_design_usd", "saved_runs")


def combined(headers: list[dict[str, Any]]) -> dict[str, Any]:
    """One view over the spending blocks of every input index (shards): costs summed."""
    headers = [h for h in headers if any(k in h for k in HEADER_KEYS)]
    if not headers:
        return {}
    view: dict[str, Any] = {key: headers[0].get(key) for key in ("mode", "sequential")}
    stops = [h["stopped"] for h in headers if isinstance(h.get("stopped"), dict)]
    budget_stops = [s for s in stops if s.get("reason") == "budget"]
    view["stopped"] = budget_stops[0] if budget_stops else (stops[0] if stops else None)
    costs = [h["cost"] for h in headers if isinstance(h.get("cost"), dict)]
    if costs:
        view["cost"] = {key: _sum(c.get(key) for c in costs) for key in _COST_SUMS}
    reused = [h["baseline_cache"] for h in headers if isinstance(h.get("baseline_cache"), dict)]
    if reused:
        view["baseline_cache"] = {"reused_runs": sum(r.get("reused_runs", 0) for r in reused),
                                  "refused": [line for r in reused for line in r.get("refused", [])]}
    return view


def _sum(values) -> Any:
    values = list(values)
    if any(v is None for v in values):
        return None
    total = sum(values)
    return round(total, 6) if isinstance(total, float) else total


def stop_confidence(view: dict[str, Any]) -> float | None:
    """The repeated interval's confidence at the round a sequential evaluation stopped, if any."""
    looks = (view.get("sequential") or {}).get("looks") or []
    return float(looks[-1]["confidence"]) if looks else None


def sequential_metrics(metrics: list, pairs: list, policy: Any, view: dict[str, Any]) -> list:
    """Replace the success-rate result by the one at the stopping round's confidence."""
    confidence = stop_confidence(view)
    if confidence is None:
        return metrics
    statistics = {**policy.statistics, "confidence_level": confidence}
    success = next(m for m in evaluate_metrics(pairs, policy.soft, statistics) if m.spec.name == "resolved")
    success.info["sequential_confidence"] = confidence
    return [success if m.spec.name == "resolved" else m for m in metrics]


def apply_budget_stop(decision: Any, policy: Any, view: dict[str, Any]) -> None:
    """A cap stopped the evaluation: never a pass. Says why in the headline and messages."""
    stopped = view.get("stopped") or {}
    if stopped.get("reason") != "budget":
        return
    message = f"evaluation stopped by a budget cap before every planned run: {stopped.get('detail')}"
    if decision.verdict != "pass":
        decision.warnings.append(message)
        return
    decision.verdict = "inconclusive"
    on_inconclusive = policy.soft["on_inconclusive"]
    if on_inconclusive == "fail":
        decision.errors.append(message)
        decision.exit_code = EXIT_GATE_FAILURE
    else:
        decision.warnings.append(message)
    label = "INCONCLUSIVE" if decision.exit_code == EXIT_GATE_FAILURE else "INCONCLUSIVE (not blocking)"
    decision.headline = f"{label}: {message}"


def summary_block(view: dict[str, Any]) -> dict[str, Any] | None:
    """summary.json's `spending` object."""
    if not view:
        return None
    sequential = view.get("sequential") or None
    return {"mode": view.get("mode") or "fixed", "stopped": view.get("stopped"),
            "sequential": None if sequential is None else {k: v for k, v in sequential.items() if k != "looks"}
            | {"rounds_run": len(sequential.get("looks") or []), "looks": sequential.get("looks") or []},
            "cost": view.get("cost"), "baseline_cache": view.get("baseline_cache")}
