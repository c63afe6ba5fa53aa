"""What an evaluation spent, and what the fixed design would have spent on the same suite.

The runner writes this as the `cost` block of index.json; compare shows it in the summary next
to how the evaluation ended (`stopped`: sequential stop or budget cap). Reused base runs cost
nothing in this evaluation and are counted apart. The fixed design's dollars are an estimate:
its run count times the mean reported cost per run of this evaluation.
"""

from __future__ import annotations

from typing import Any


def tally(runs: list[dict[str, Any]], tasks: int, fixed_repeats: int) -> dict[str, Any]:
    """The `cost` block from the run records of one evaluation (or shard)."""
    executed = [r for r in runs if not r.get("reused")]
    priced = [float(r["provider_cost_usd"]) for r in runs if _is_number(r.get("provider_cost_usd"))]
    spent = sum(float(r["provider_cost_usd"]) for r in executed if _is_number(r.get("provider_cost_usd")))
    fixed_runs = 2 * tasks * fixed_repeats
    mean_cost = sum(priced) / len(priced) if priced else None
    return {
        "agent_runs": len(executed),
        "reused_runs": len(runs) - len(executed),
        "provider_usd": round(spent, 6),
        "unpriced_runs": sum(1 for r in executed if not _is_number(r.get("provider_cost_usd"))),
        "agent_seconds": round(sum(float(r.get("wall_seconds") or 0.0) for r in executed), 3),
        "fixed_design_runs": fixed_runs,
        "fixed_design_usd": None if mean_cost is None else round(mean_cost * fixed_runs, 6),
        "saved_runs": fixed_runs - len(executed),
    }


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _usd(value: float | None) -> str:
    return "unknown" if value is None else f"${value:,.4f}"


def markdown(header: dict[str, Any]) -> list[str]:
    """The summary's "Runs and cost" section from an index header; empty without a cost block."""
    cost = header.get("cost")
    if not isinstance(cost, dict):
        return []
    lines = ["### Runs and cost", ""]
    stopped = header.get("stopped")
    sequential = header.get("sequential")
    if isinstance(sequential, dict) and isinstance(stopped, dict):
        lines.append(f"Sequential mode (`{sequential.get('boundary')}` boundaries, at most "
                     f"{sequential.get('max_rounds')} rounds): stopped after round {stopped.get('round')} "
                     f"— {stopped.get('reason')}: {stopped.get('detail')}")
        looks = sequential.get("looks") or []
        if looks:
            lines.append(f"The success-rate interval above is this round's repeated interval "
                         f"({looks[-1]['confidence']:.3%} two-sided), the level the stopping boundaries were "
                         f"computed for; the other metrics use the policy's level.")
        lines.append("")
    elif isinstance(stopped, dict):
        detail = str(stopped.get("detail") or "")
        reason = str(stopped.get("reason") or "")
        # The detail usually names its reason already ("budget: max_agent_runs 8 reached ...").
        lines.append(f"Stopped early — {detail if detail.startswith(reason) else f'{reason}: {detail}'}")
        lines.append("")
    unpriced = f" ({cost['unpriced_runs']} runs reported no cost)" if cost.get("unpriced_runs") else ""
    lines += ["| | agent runs | provider cost |", "|---|---|---|",
              f"| this evaluation | {cost['agent_runs']} | {_usd(cost['provider_usd'])}{unpriced} |"]
    if cost.get("reused_runs"):
        lines.append(f"| reused base runs (baseline cache, not re-run) | {cost['reused_runs']} | $0 |")
    lines.append(f"| fixed design (every task × every repeat, both arms) | {cost['fixed_design_runs']} | "
                 f"{_usd(cost.get('fixed_design_usd'))} (estimate) |")
    budget_stop = isinstance(stopped, dict) and stopped.get("reason") == "budget"
    if cost.get("saved_runs", 0) > 0:
        share = cost["saved_runs"] / cost["fixed_design_runs"] if cost["fixed_design_runs"] else 0.0
        if budget_stop:  # not a saving: the cap left the evidence incomplete
            lines += ["", f"{cost['saved_runs']} planned agent runs ({share:.0%}) were not run: the budget cap stopped "
                          "the evaluation, so its verdict cannot be a pass."]
        else:
            lines += ["", f"Saved {cost['saved_runs']} agent runs ({share:.0%}) against the fixed design."]
    if cost.get("reused_runs"):
        lines += ["", "Reused base runs were recorded earlier, not interleaved in time with the candidate runs; "
                      "see README, \"Spending fewer runs\"."]
    return lines + [""]
