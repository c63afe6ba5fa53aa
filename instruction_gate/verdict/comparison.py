"""One comparison end to end: merged results -> pairs -> metrics, hard gates, power -> decision."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from instruction_gate.verdict import blind_gates, check_health, impact, spending_compare, stats
from instruction_gate.verdict import digest as digests
from instruction_gate.verdict.blind_gates import BlindGate
from instruction_gate.verdict.decision import Decision, decide
from instruction_gate.verdict.hardgates import HardFinding, classify
from instruction_gate.verdict.instruction_use import evaluate_use_metrics
from instruction_gate.verdict.metrics import MetricResult, evaluate_metrics
from instruction_gate.verdict.pairing import Pairing, pair_runs
from instruction_gate.verdict.policy import Policy
from instruction_gate.verdict.results import ResultSet, nothing_affected
from instruction_gate.verdict.trajectories import EventFiles, trajectory
from instruction_gate.rules.compare import evaluate_rule_metrics

PROVENANCE_FIELDS = ("agent_name", "model", "model_snapshot", "harness_version", "adapter_version", "container_digest",
                     "isolation")
#: What a run record's `isolation` says when the agent ran without a sandbox (`--unisolated`).
UNISOLATED = "unisolated"
#: ... and when its sandbox shared the host's network (`--sandbox-network host`).
HOST_NETWORK = "bwrap (network: host)"


@dataclass(frozen=True)
class TaskRow:
    """Success counts of one task over its valid pairs."""

    task_id: str
    pairs: int
    base_resolved: int
    candidate_resolved: int
    lost_repeats: tuple[int, ...]  #: resolved in base, not in candidate
    gained_repeats: tuple[int, ...]  #: resolved in candidate, not in base

    @property
    def delta(self) -> float:
        return (self.candidate_resolved - self.base_resolved) / self.pairs


@dataclass
class Comparison:
    results: ResultSet
    policy: Policy
    pairing: Pairing
    metrics: list[MetricResult]
    findings: list[HardFinding]
    tasks: list[TaskRow]
    power: stats.PowerNote | None
    provenance: dict[str, dict[str, list[str]]]  #: field -> variant -> distinct values
    decision: Decision
    spending: dict[str, Any] = field(default_factory=dict)  #: sequential stop, budget, cost (spending_compare)
    impact: dict[str, Any] | None = None  #: the runner's impact block (which tasks could see the change)
    digest: digests.Digest | None = None  #: behaviour changes and their instruction lines (digest.py)
    #: hard gates a task failed in every valid base run: the suite cannot see them change (blind_gates.py)
    blind_gates: list[BlindGate] = field(default_factory=list)

    def metric(self, name: str) -> MetricResult:
        return next(m for m in self.metrics if m.spec.name == name)


def task_rows(pairing: Pairing) -> list[TaskRow]:
    grouped: dict[str, list] = {}
    for pair in pairing.pairs:
        grouped.setdefault(pair.task_id, []).append(pair)
    rows = []
    for task_id, pairs in sorted(grouped.items()):
        base = [bool(p.base.get("resolved")) for p in pairs]
        candidate = [bool(p.candidate.get("resolved")) for p in pairs]
        lost = tuple(p.repeat for p, b, c in zip(pairs, base, candidate) if b and not c)
        gained = tuple(p.repeat for p, b, c in zip(pairs, base, candidate) if c and not b)
        rows.append(TaskRow(task_id, len(pairs), sum(base), sum(candidate), lost, gained))
    return rows


def provenance(pairing: Pairing) -> dict[str, dict[str, list[str]]]:
    found: dict[str, dict[str, list[str]]] = {}
    for name in PROVENANCE_FIELDS:
        found[name] = {
            "base": sorted({str(p.base[name]) for p in pairing.pairs if p.base.get(name) is not None}),
            "candidate": sorted({str(p.candidate[name]) for p in pairing.pairs if p.candidate.get(name) is not None}),
        }
    return found


def unreviewed_prompts(headers: list[dict]) -> list[str]:
    """Mined tasks whose prompt no maintainer has read yet (`origin.prompt_reviewed`): the
    evidence is as good as prompts written from commit messages."""
    ids = sorted({t for h in headers for t in (h.get("unreviewed_prompts") or [])})
    if not ids:
        return []
    shown = ", ".join(ids[:5]) + (f", +{len(ids) - 5} more" if len(ids) > 5 else "")
    return [f"{len(ids)} task prompt(s) written from commit messages are not reviewed yet "
            f"(origin.prompt_reviewed: false): {shown}"]


def provenance_warnings(found: dict[str, dict[str, list[str]]]) -> list[str]:
    """Arms run by different agents or models are not comparable: say so loudly."""
    return [f"{name} differs between arms: base {arms['base']} vs candidate {arms['candidate']}"
            for name, arms in found.items() if arms["base"] and arms["candidate"] and arms["base"] != arms["candidate"]]


def power_for(success: MetricResult, pairing: Pairing, policy: Policy) -> stats.PowerNote | None:
    if not pairing.pairs:
        return None
    statistics = policy.statistics
    tasks = max(success.tasks, 1)
    repeats = success.pairs / tasks if success.pairs else len(pairing.pairs) / tasks
    bound = success.bound or 0.0
    note = stats.power_note(success.spread, tasks, repeats, bound, policy.confidence, statistics["power"], None)
    target = statistics["power_target_drop"]
    if target is None and note.detectable_drop is not None:
        target = round(bound + (note.detectable_drop - bound) / 2, 3)
    if target is None:
        target = bound + 0.1 if bound + 0.1 <= 1 else None
    return stats.power_note(success.spread, tasks, repeats, bound, policy.confidence, statistics["power"], target)


def compare(results: ResultSet, policy: Policy, load_problems: list[str] | None = None) -> Comparison:
    results, breaks = check_health.reclassify(results, policy)
    evidence_problems, evidence_warnings = check_health.vacuity(results, policy)
    spending = spending_compare.combined(results.headers)
    pairing = pair_runs(results, count_unstarted=(spending.get("stopped") or {}).get("reason") != "budget")
    metrics = spending_compare.sequential_metrics(evaluate_metrics(pairing.pairs, policy.soft, policy.statistics),
                                                  pairing.pairs, policy, spending)
    metrics += evaluate_rule_metrics(pairing.pairs, policy.soft, policy.statistics)
    metrics += evaluate_use_metrics(pairing.pairs, policy.soft, policy.statistics)
    findings = classify(results, policy)
    found = provenance(pairing)
    comparison = Comparison(results, policy, pairing, metrics, findings, task_rows(pairing), None, found,
                            Decision("error", 3, ""), spending, blind_gates=blind_gates.find(results, policy))
    comparison.power = power_for(comparison.metric("resolved"), pairing, policy)
    comparison.impact = impact.view(results.headers)
    if not results.runs and not load_problems and nothing_affected(results.headers):
        comparison.decision = impact.no_task_decision(comparison.impact, policy)
        return comparison
    warnings = (provenance_warnings(found) + evidence_warnings + impact.outran(comparison.impact, results.runs)
                + blind_gates.warnings(comparison.blind_gates) + unreviewed_prompts(results.headers))
    comparison.decision = decide(pairing, metrics, findings, policy, warnings,
                                 load_problems, evidence_problems, check_health.break_note(breaks))
    spending_compare.apply_budget_stop(comparison.decision, policy, spending)
    mark_unisolated(comparison.decision, found)
    mark_host_network(comparison.decision, found)
    comparison.digest = build_digest(results, pairing, findings)
    return comparison


def mark_unisolated(decision: Decision, found: dict[str, dict[str, list[str]]]) -> None:
    """Unsandboxed runs are weaker evidence: an agent could reach the checks, the suite and the
    other arm's runs. The headline and a warning say so whenever any paired run was unisolated."""
    arms = [arm for arm, values in found["isolation"].items() if UNISOLATED in values]
    if not arms:
        return
    decision.headline = f"{decision.headline} (unisolated)"
    decision.warnings.insert(0, f"unisolated: the {' and '.join(arms)} runs had no agent sandbox (--unisolated), "
                                "so an agent could have read the suite, changed the checks or outlived its run")


def mark_host_network(decision: Decision, found: dict[str, dict[str, list[str]]]) -> None:
    """Agents given the host's network (`--sandbox-network host`) could reach anything the runner
    could; the summary says so whenever a paired run had it."""
    arms = [arm for arm, values in found["isolation"].items() if HOST_NETWORK in values]
    if arms:
        decision.warnings.append(f"host network: the {' and '.join(arms)} runs' agents had the runner's network "
                                 "(--sandbox-network host), not only their provider: nothing stopped them "
                                 "reaching other services")


def build_digest(results: ResultSet, pairing: Pairing, findings: list[HardFinding]) -> digests.Digest:
    """The digest over the valid pairs, reading each run's events beside its index."""
    files, origin = EventFiles(), results.origin
    trajectories = {(p.task_id, p.repeat, variant): trajectory(run, origin.get((p.task_id, p.repeat, variant)), files)
                    for p in pairing.pairs for variant, run in (("base", p.base), ("candidate", p.candidate))}
    return digests.build(pairing.pairs, trajectories, findings, results.headers)


def as_plain(value: Any) -> Any:
    """JSON-safe floats: nan and infinities become null."""
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return None
    return value
