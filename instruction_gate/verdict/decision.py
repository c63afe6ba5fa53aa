"""The gate decision: hard findings + metric verdicts + coverage -> verdict, exit code, messages.

Verdict states the evidence (pass | fail | inconclusive | error); the exit code applies the
policy to it: soft.mode decides whether a metric FAIL blocks, soft.on_inconclusive whether an
INCONCLUSIVE one does. Blocking hard-gate regressions fail the gate even when too many runs were
lost for the statistics (they are concrete evidence about the runs that did complete).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from instruction_gate.errors import EXIT_GATE_FAILURE, EXIT_NOT_EVALUATED, EXIT_PASS
from instruction_gate.verdict.hardgates import NEW, UNPAIRED, HardFinding
from instruction_gate.verdict.metrics import FAIL, INCONCLUSIVE, MetricResult
from instruction_gate.verdict.pairing import Pairing
from instruction_gate.verdict.policy import Policy
from instruction_gate.verdict.figures import bound as fmt_bound
from instruction_gate.verdict.figures import describe_metric


@dataclass
class Decision:
    verdict: str  #: pass | fail | inconclusive | error
    exit_code: int
    headline: str
    errors: list[str] = field(default_factory=list)  #: blocking findings (one annotation each)
    warnings: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)  #: failed gates, by policy key
    not_evaluated: list[str] = field(default_factory=list)


def coverage_problems(pairing: Pairing, policy: Policy) -> list[str]:
    soft, valid, planned = policy.soft, len(pairing.pairs), pairing.planned_pairs
    problems = []
    common = pairing.common_failure()
    if common is not None:
        problems.append(f"every run failed: {common}")
    elif valid == 0:
        problems.append(f"no valid (base, candidate) pair among {planned} planned")
    if soft["minimum_valid_pairs"] is not None and valid < soft["minimum_valid_pairs"]:
        problems.append(f"{valid} valid pairs, policy minimum_valid_pairs is {soft['minimum_valid_pairs']}")
    if valid and valid < soft["minimum_valid_fraction"] * planned:
        problems.append(f"only {valid} of {planned} planned pairs are valid "
                        f"(minimum_valid_fraction {soft['minimum_valid_fraction']:g})")
    gap = abs(pairing.coverage("base") - pairing.coverage("candidate"))
    if gap > soft["max_arm_coverage_gap"] + 1e-12:
        problems.append(f"unequal arm coverage: {pairing.valid_runs['base']} valid base runs vs "
                        f"{pairing.valid_runs['candidate']} valid candidate runs of {planned} planned "
                        f"(gap {gap:.0%} > max_arm_coverage_gap {soft['max_arm_coverage_gap']:.0%})")
    return problems


def decide(pairing: Pairing, metrics: list[MetricResult], findings: list[HardFinding], policy: Policy,
           extra_warnings: list[str] | None = None, load_problems: list[str] | None = None,
           evidence_problems: list[str] | None = None, environment_note: str | None = None) -> Decision:
    """`evidence_problems` (too few tasks resolve) and `environment_note` (checks that never ran)
    come from check_health; the note leads the reasons when the lost runs leave too few pairs."""
    soft = policy.soft
    decision = Decision("pass", EXIT_PASS, "", warnings=list(extra_warnings or []))
    blocking = [f for f in findings if f.blocking]
    for finding in blocking:
        decision.errors.append(f"hard gate {finding.category} ({finding.status}) in {finding.task_id} "
                               f"repeat {finding.repeat}: {finding.evidence or 'no evidence recorded'}")
    for finding in findings:
        if not finding.blocking and finding.status in (NEW, UNPAIRED):
            why = (f"seen in {finding.occurrences} repeat(s) of the task, policy needs {finding.needed}"
                   if finding.below_reproductions else "not blocking by policy")
            decision.warnings.append(f"hard gate {finding.category} ({finding.status}, {why}) "
                                     f"in {finding.task_id} repeat {finding.repeat}")
    decision.failures = sorted({f"hard.{f.category}" for f in blocking})
    coverage = coverage_problems(pairing, policy)
    if environment_note and not coverage:
        decision.warnings.insert(0, environment_note)
    lead = [environment_note] if environment_note and coverage else []
    decision.not_evaluated = list(load_problems or []) or lead + coverage + list(evidence_problems or [])
    if decision.not_evaluated:
        minimum = soft["minimum_valid_pairs"]
        if minimum is not None and len(pairing.pairs) < minimum:
            decision.failures.append("minimum_valid_pairs")
        if blocking:
            decision.verdict, decision.exit_code = "fail", EXIT_GATE_FAILURE
            decision.headline = f"FAIL: {len(blocking)} blocking hard-gate finding(s); the statistics could not be evaluated"
        else:
            decision.verdict, decision.exit_code = "error", EXIT_NOT_EVALUATED
            decision.headline = f"COULD NOT EVALUATE: {decision.not_evaluated[0]}"
        decision.errors.extend(f"could not evaluate: {reason}" for reason in decision.not_evaluated)
        return decision

    failed = [m for m in metrics if m.verdict == FAIL]
    unsure = [m for m in metrics if m.verdict == INCONCLUSIVE]
    decision.failures.extend(m.spec.policy_key for m in failed)
    for metric in failed:
        (decision.errors if soft["mode"] == "fail" else decision.warnings).append(
            f"{metric.spec.label} {describe_metric(metric)} is wholly beyond the bound {fmt_bound(metric)}")
    for metric in unsure:
        if soft["on_inconclusive"] != "pass":
            (decision.errors if soft["on_inconclusive"] == "fail" else decision.warnings).append(
                f"{metric.spec.label} {describe_metric(metric)} is inconclusive against the bound {fmt_bound(metric)}")

    blocks = bool(blocking) or (failed and soft["mode"] == "fail") or (unsure and soft["on_inconclusive"] == "fail")
    decision.exit_code = EXIT_GATE_FAILURE if blocks else EXIT_PASS
    if blocking or failed:
        decision.verdict = "fail"
    elif unsure:
        decision.verdict = "inconclusive"
    decision.headline = _headline(decision, blocking, failed, unsure, pairing)
    return decision


def _headline(decision: Decision, blocking: list, failed: list, unsure: list, pairing: Pairing) -> str:
    parts = []
    if blocking:
        parts.append(f"{len(blocking)} blocking hard-gate finding{'s' if len(blocking) > 1 else ''}")
    parts.extend(f"{m.spec.label} {describe_metric(m)} beyond the bound {fmt_bound(m)}" for m in failed)
    if unsure:
        parts.append("inconclusive: " + ", ".join(m.spec.label for m in unsure))
    if not parts:
        parts.append("no blocking hard-gate finding; every gated metric within its bound")
    label = decision.verdict.upper()
    if decision.verdict != "pass" and decision.exit_code == EXIT_PASS:
        label += " (not blocking)"
    scope = f"{len(pairing.pairs)} valid pairs over {len(pairing.tasks)} tasks"
    return f"{label}: {'; '.join(parts)} ({scope})"
