"""summary.md: the reviewer's view. A one-line verdict first, then the evidence in tables."""

from __future__ import annotations

from instruction_gate.verdict import cost_report, held_code
from instruction_gate.report import chart_md, digest_md, hard_gates_md, instruction_use_md, not_understood_md
from instruction_gate.report import textfmt as fmt
from instruction_gate.report.impact_md import impact_section as _impact
from instruction_gate.report.tables import MAX_ROWS, table
from instruction_gate.verdict import figures
from instruction_gate.verdict.comparison import Comparison
from instruction_gate.verdict.metrics import NOT_APPLICABLE, NOT_GATED
from instruction_gate.rules.compare import rule_summary
from instruction_gate.rules.report import render_rules

_ICONS = {"pass": "✅", "fail": "❌", "inconclusive": "⚠️", "error": "⛔"}
_PROVENANCE_LABELS = {"agent_name": "agent", "model": "model", "model_snapshot": "model snapshot",
                      "harness_version": "harness", "adapter_version": "adapter", "container_digest": "container",
                      "isolation": "isolation"}


def _metrics(c: Comparison) -> list[str]:
    if c.decision.not_evaluated:
        return ["### Metrics", "", "Not reported: too few comparable pairs (see above); summary.json keeps the "
                "figures for diagnosis.", ""]
    level = f"{c.policy.confidence:.0%}"
    rows = []
    for m in c.metrics:
        if m.estimate is None and (m.verdict == NOT_GATED or (m.verdict == NOT_APPLICABLE and m.bound is None)):
            continue
        verdict = {NOT_GATED: "not gated", NOT_APPLICABLE: "not applicable"}.get(m.verdict, f"**{m.verdict.upper()}**")
        p_value = "n/a" if m.p_value is None else f"{m.p_value:.3g}"
        info = ""
        if m.info.get("ratio_of_totals") is not None:
            info = f"totals ×{m.info['ratio_of_totals']:.2f}, median ×{m.info['median_of_ratios']:.2f}"
        rows.append([m.spec.label, figures.estimate(m), figures.interval(m), figures.bound(m), verdict, p_value,
                     f"{m.pairs} ({m.tasks})", "; ".join(x for x in (info, m.info.get("reason")) if x)])
    soft = c.policy.soft
    lines = ["### Metrics", ""]
    lines += table(["metric", "estimate", f"{level} interval", "bound", "verdict", "p", "pairs (tasks)",
                     "information"], rows)
    return lines + ["", "Success rate: mean over tasks of each task's paired difference (candidate − base); "
                        "cost metrics: geometric-mean ratio candidate / base. FAIL = whole interval beyond the "
                        "bound, PASS = whole interval within it, otherwise INCONCLUSIVE. "
                        f"Policy: `soft.mode` = {soft['mode']}, `soft.on_inconclusive` = {soft['on_inconclusive']}.",
                    ""]


def _rules(c: Comparison) -> list[str]:
    if c.decision.not_evaluated:
        return []
    return render_rules(rule_summary(c.pairing.pairs, c.policy.confidence), c.policy.confidence)


def _flips(c: Comparison) -> list[str]:
    lines = ["### Per-task flips", ""]
    changed = sorted((t for t in c.tasks if t.lost_repeats or t.gained_repeats), key=lambda t: (t.delta, t.task_id))
    if not changed:
        return lines + ["No task changed outcome between base and candidate in any pair.", ""]
    rows = [[fmt.md(t.task_id), str(t.pairs), f"{t.base_resolved}/{t.pairs}", f"{t.candidate_resolved}/{t.pairs}",
             figures.signed(t.delta), ", ".join(map(str, t.lost_repeats)), ", ".join(map(str, t.gained_repeats))]
            for t in changed]
    return lines + table(["task", "pairs", "base resolved", "candidate resolved", "Δ", "lost in repeats",
                           "gained in repeats"], rows) + [""]


def _lost(c: Comparison) -> list[str]:
    lines = ["### Runs lost (excluded from both arms)", ""]
    if not c.pairing.lost:
        return lines + [f"None: all {c.pairing.planned_pairs} planned pairs are valid.", ""]
    common = c.pairing.common_failure()
    if common is not None:  # one cause, said once
        return lines + [f"All {len(c.pairing.lost)} runs failed alike: {fmt.md(common, 400)}.", ""]
    rows = [[fmt.md(r.task_id), str(r.repeat), r.variant, fmt.md(r.reason, 160)] for r in c.pairing.lost]
    return lines + table(["task", "repeat", "variant", "reason"], rows) + [""]


def _power(c: Comparison) -> list[str]:
    note = c.power
    if note is None or c.decision.not_evaluated:
        return []
    share = f"{c.policy.statistics['power']:.0%}"
    spread = (f"assumed worst-case spread (sd {note.spread:.2f} per task; the observed one is zero or unknown)"
              if note.spread_assumed else f"observed spread (sd {note.spread:.2f} per task)")
    design = f"{note.tasks} tasks × {note.repeats:.3g} repeats"
    if note.detectable_drop is None:
        first = f"With {design} and the {spread}, no success-rate drop is detectable with {share} probability."
    else:
        first = (f"With {design} and the {spread}, this design fails the gate on a success-rate drop of "
                 f"{note.detectable_drop:.2f} or more with {share} probability.")
    second = ""
    if note.target_drop is not None:
        if note.tasks_needed is None:
            second = f" A drop of {note.target_drop:.2f} is not detectable at this repeat count."
        else:
            second = (f" Detecting a drop of {note.target_drop:.2f} would take about {note.tasks_needed} tasks "
                      f"({note.pairs_needed} pairs) at {note.repeats:.3g} repeats per task.")
    return ["### Power", "", first + second, ""]


def _provenance(c: Comparison) -> list[str]:
    rows = [[label, fmt.md(", ".join(c.provenance[name]["base"]) or "—"),
             fmt.md(", ".join(c.provenance[name]["candidate"]) or "—")]
            for name, label in _PROVENANCE_LABELS.items()]
    header = c.results.header
    shas = [f"base `{fmt.clip(header.get('base_sha') or '?', 64)}`",
            f"candidate `{fmt.clip(header.get('candidate_sha') or '?', 64)}`"]
    if header.get("merge_base_sha"):
        shas.append(f"merge base `{fmt.clip(header['merge_base_sha'], 64)}`")
    if c.results.shards:
        shas.append(f"shards {fmt.md(', '.join(c.results.shards))}")
    return ["### Provenance", ""] + table(["", "base", "candidate"], rows) + ["", "Commits: " + ", ".join(shas) + ".", ""]


def _spending(c: Comparison) -> list[str]:
    return cost_report.markdown(c.spending)


def _held_code(c: Comparison) -> list[str]:
    return held_code.markdown(held_code.block(c.results.headers), fmt.md, fmt.code)


def render(c: Comparison, chart_name: str | None = None, link_chart: bool = True) -> str:
    """summary.md; `chart_name`: the per-task chart's file name next to it (linked with `link_chart`:
    a relative link does not resolve in GitHub's job summary)."""
    decision = c.decision
    lines = [f"## {_ICONS[decision.verdict]} instruction-gate — {fmt.md(decision.headline, 600)}", ""]
    if decision.not_evaluated:
        lines += ["**Could not evaluate the statistics:**", ""] + [f"- {fmt.md(r, 300)}" for r in decision.not_evaluated] + [""]
    if decision.warnings:
        lines += ["**Warnings:**", ""] + [f"- {fmt.md(w, 300)}" for w in decision.warnings[:MAX_ROWS]] + [""]
    lines += digest_md.markdown(c.digest, c.blind_gates) + chart_md.markdown(c, chart_name, link_chart)
    # What was evaluated stays in view (code held fixed, tasks the change could not reach); the
    # evidence follows collapsed: the digest above is what a reviewer reads first.
    lines += _held_code(c) + _impact(c)
    lines += ["<details><summary>Details: hard gates, metrics, rules, flips, lost runs, power, cost, provenance"
              "</summary>", ""]
    sections = (hard_gates_md.markdown, _metrics, _rules, instruction_use_md.markdown, not_understood_md.markdown, _flips,
                _lost, _power, _spending, _provenance)
    if c.impact is not None and not c.impact.get("affected") and not c.pairing.pairs:
        sections = (_provenance,)  # nothing ran: the evidence sections would only say "no data"
    for section in sections:
        lines += section(c)
    return fmt.document("\n".join(lines).rstrip() + "\n\n</details>\n")
