"""The "Policy rules and constraint checklists" section of summary.md, from summary.json's `rules`."""

from __future__ import annotations

from typing import Any

from instruction_gate.report import textfmt as fmt
from instruction_gate.report.tables import table
from instruction_gate.verdict import figures

LABELS = {"triggering_rate": "triggering rate", "compliance_rate": "compliance rate",
          "exact_compliance_rate": "compliance rate, exact checks only", "csr": "CSR (per-turn constraint success)",
          "c_isr": "C-ISR (turns with every constraint met)"}


def _rate(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"


def _delta(row: dict[str, Any]) -> str:
    if row.get("estimate") is None:
        return "—"
    low, high = row.get("low"), row.get("high")
    span = "unbounded (one task)" if low is None or high is None else f"[{figures.signed(low)}, {figures.signed(high)}]"
    return f"{figures.signed(row['estimate'])} {span}"


def render_rules(section: dict[str, Any] | None, confidence: float) -> list[str]:
    if section is None:  # records from a runner without policy rules: nothing to say
        return []
    lines = ["### Policy rules and constraint checklists", ""]
    level = f"{confidence:.0%}"
    rows = [[LABELS[name], _rate(m["base"]), _rate(m["candidate"]), _delta(m), f"{m['pairs']} ({m['tasks']})"]
            for name, m in section["metrics"].items()]
    lines += table(["metric", "base", "candidate", f"Δ candidate − base, {level} interval", "pairs (tasks)"], rows)
    lines += ["", "Triggering rate: rules brought into scope / rules evaluated. Compliance rate: satisfied / "
                  "(satisfied + violated); undetermined results are withheld, inapplicable ones do not count. "
                  "Gated by `soft.max_compliance_rate_drop`, `soft.max_csr_drop`, `soft.max_c_isr_drop` "
                  "(see Metrics).", ""]
    categories = [[fmt.code(c), _rate(d["base"]), _rate(d["candidate"]), _delta(d), f"{d['pairs']} ({d['tasks']})"]
                  for c, d in section["by_category"].items() if d["pairs"]]
    if categories:
        lines += ["Compliance rate by category:", ""]
        lines += table(["category", "base", "candidate", f"Δ, {level} interval", "pairs (tasks)"], categories) + [""]
    turns = section["per_turn"]
    if len(turns) > 1:
        rows = [[str(t["turn"]), _rate(t["base_csr"]), _rate(t["candidate_csr"]), _rate(t["base_c_isr"]),
                 _rate(t["candidate_c_isr"])] for t in turns]
        lines += ["Per turn (0-based; rules judging the whole run count in the last turn):", ""]
        lines += table(["turn", "base CSR", "candidate CSR", "base C-ISR", "candidate C-ISR"], rows) + [""]
    worse = [r for r in section["rules"] if r["candidate_violated"] > r["base_violated"]]
    if worse:
        rows = [[fmt.code(r["id"]), "run" if r["turn"] is None else str(r["turn"]),
                 f"{r['base_violated']}/{r['base_judged']}", f"{r['candidate_violated']}/{r['candidate_judged']}"]
                for r in worse]
        lines += ["Rules violated more often by the candidate (violated / judged runs):", ""]
        lines += table(["rule", "turn", "base", "candidate"], rows) + [""]
    return lines

