"""Executing an evaluation under the spending controls: sequential rounds and budget caps.

Sequential mode runs one repeat of every task per round (its pairs still counterbalanced ABBA
across rounds), looks at the success rate after each round with `sequential.assess` and stops
at the first boundary crossing. Either way the index header records how the evaluation ended
(`stopped`), the looks (`sequential`), the caps (`budget`) and what was spent (`cost`).
"""

from __future__ import annotations

import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from instruction_gate.verdict import cost_report, hardgates, sequential

from instruction_gate.run import reuse
from instruction_gate.run.baseline_cache import DEFAULT_MAX_AGE_DAYS, BaselineCache
from instruction_gate.run.budget import Budget
from instruction_gate.run.limits import OutputLimits
from instruction_gate.errors import ConfigError, NotEvaluatedError
from instruction_gate.run.evaluation import Evaluation, RunSpec
from instruction_gate.verdict.pairing import pair_runs
from instruction_gate.verdict.policy import Policy, impact_settings, load_policy
from instruction_gate.suite.prepare import Checked
from instruction_gate.verdict.results import ResultSet
from instruction_gate.console import say


def success_values(runs: dict[tuple[str, int, str], dict[str, Any]], tasks: set[str], rounds: int) -> tuple[np.ndarray, int]:
    """Per-task mean paired success deltas over the first `rounds` repeats, and the valid pairs behind them.

    The same unit compare gates on: pairs with both runs valid, each task weighted equally.
    """
    chosen = {key: run for key, run in runs.items() if key[0] in tasks and key[1] < rounds}
    deltas: dict[str, list[int]] = {}
    for pair in pair_runs(ResultSet(runs=chosen)).pairs:
        deltas.setdefault(pair.task_id, []).append(int(bool(pair.candidate.get("resolved")))
                                                   - int(bool(pair.base.get("resolved"))))
    values = np.array([np.mean(d) for _, d in sorted(deltas.items())])
    return values, sum(len(d) for d in deltas.values())


def _look_record(look: sequential.Look) -> dict[str, Any]:
    interval = look.interval
    bounds = {} if interval is None else {"estimate": interval.estimate, "low": _finite(interval.low),
                                          "high": _finite(interval.high), "tasks": interval.tasks}
    return {"round": look.round, "confidence": look.confidence, **bounds, "stop": look.stop,
            "verdict": look.verdict, "reason": look.reason}


def _finite(value: float) -> float | None:
    return value if np.isfinite(value) else None


def run_fixed(evaluation: Evaluation, specs: list[RunSpec], jobs: int, budget: Budget,
              cached: reuse.Reuse | None = None) -> None:
    """All planned runs; with a cap, repeat-major so a cap leaves every task equally covered."""
    if budget.capped:
        specs = sorted(specs, key=lambda s: s.repeat)  # stable: pairs stay adjacent and ABBA
    reuse.execute(evaluation, specs, jobs, cached)
    if budget.stop_reason:
        evaluation.store.header["stopped"] = {"round": None, "reason": "budget", "detail": budget.stop_reason}


def run_sequential(evaluation: Evaluation, specs: list[RunSpec], jobs: int, budget: Budget,
                   design: sequential.Design, bound: float, policy: Policy, cached: reuse.Reuse | None = None) -> None:
    """Round after round until a boundary, a blocking hard-gate regression, the last round or a cap."""
    store = evaluation.store
    tasks = {s.task.id for s in specs}
    confidences = sequential.look_confidences(design)
    block: dict[str, Any] = {**asdict(design), "alpha": round(design.alpha, 6), "bound": bound, "looks": []}
    store.header["sequential"] = block
    for round_number in range(1, design.max_rounds + 1):
        this_round = [s for s in specs if s.repeat == round_number - 1]
        store.header["repeats"] = round_number
        store.header["planned_runs"] = len(this_round) * round_number
        reuse.execute(evaluation, this_round, jobs, cached)
        if budget.stop_reason:
            store.header["stopped"] = {"round": round_number, "reason": "budget", "detail": budget.stop_reason}
            break
        values, pairs = success_values(store.runs, tasks, round_number)
        look = sequential.assess(values, pairs, bound, design, round_number, confidences)
        block["looks"].append(_look_record(look))
        blocking, pending = hard_gate_status(store.runs, policy)
        label = f"round {round_number}/{design.max_rounds}"
        if blocking:
            # A candidate-only hard failure is concrete evidence no later round can undo; the
            # success rate's look is recorded but is not what decided.
            detail = f"blocking hard-gate regression{'s' * (len(blocking) > 1)}: {', '.join(blocking[:5])}"
            store.header["stopped"] = {"round": round_number, "reason": "fail", "detail": detail}
            say(f"{label}: stopped by a {detail}", file=sys.stderr, flush=True)
            break
        if look.stop in ("pass", "futility") and pending and round_number < design.max_rounds:
            # A regression that has not yet shown in as many repeats as the policy needs may still
            # do so: passing now would let one round decide what the policy gave several to decide.
            say(f"{label}: {look.reason}; not stopping: hard-gate regression(s) awaiting reproduction: "
                  f"{', '.join(pending[:5])}", file=sys.stderr, flush=True)
            store.write_index()
            continue
        say(f"{label}: {look.reason}", file=sys.stderr, flush=True)
        if look.stop:
            store.header["stopped"] = {"round": round_number, "reason": look.stop, "detail": look.reason}
            break
        store.write_index()


def hard_gate_status(runs: dict[tuple[str, int, str], dict[str, Any]], policy: Policy) -> tuple[list[str], list[str]]:
    """(blocking, pending) `task rN: category` findings so far, judged as compare will judge them:
    pending ones would block once they show in as many repeats as the policy needs."""
    findings = hardgates.classify(ResultSet(runs=runs), policy)
    label = (lambda f: f"{f.task_id} r{f.repeat}: {f.category}")
    return ([label(f) for f in findings if f.blocking],
            [label(f) for f in findings if f.below_reproductions and policy.blocks_category(f.category)])


def finish(evaluation: Evaluation, budget: Budget, tasks: int, fixed_repeats: int) -> dict[str, Any]:
    """Write the budget and cost blocks into the index; returns the cost block."""
    store = evaluation.store
    if budget.capped:
        store.header["budget"] = budget.as_record()
    runs = [r for key, r in store.runs.items() if key[0] in store.header["tasks"]]
    # The fixed design runs every task, those impact analysis left out too: they are runs not spent.
    skipped = len((store.header.get("impact") or {}).get("unaffected") or ())
    store.header["cost"] = cost_report.tally(runs, tasks + skipped, fixed_repeats)
    store.write_index()
    return store.header["cost"]


def add_arguments(parser: Any) -> None:
    """evaluate's flags for the spending controls (all opt-in)."""
    parser.add_argument("--policy", type=Path, help="policy.json: its `sequential` and `budget` blocks apply here")
    parser.add_argument("--baseline-cache", type=Path, metavar="DIR", help="baseline cache directory (see --reuse-base-runs)")
    parser.add_argument("--reuse-base-runs", action="store_true",
                        help="take base runs from --baseline-cache when nothing that shaped them changed")
    parser.add_argument("--fill-baseline-cache", action="store_true",
                        help="trusted base-branch jobs only: run the base arm and store it in --baseline-cache")
    parser.add_argument("--baseline-max-age-days", type=float, default=DEFAULT_MAX_AGE_DAYS,
                        help=f"refuse cache entries older than this (default {DEFAULT_MAX_AGE_DAYS:g})")


@dataclass(frozen=True)
class Controls:
    """The spending controls of one evaluation, resolved from flags and policy."""

    budget: Budget
    design: sequential.Design | None = None
    bound: float = 0.0  #: the success-rate bound the sequential looks test against
    cache: BaselineCache | None = None
    fill: bool = False
    policy: Policy | None = None  #: the hard gates a sequential evaluation stops on, judged as compare will
    limits: OutputLimits = field(default_factory=OutputLimits)  #: output limits per run (policy `limits`)
    impact: dict[str, Any] = field(default_factory=lambda: impact_settings(None))  #: policy `impact`, filled

    def repeats(self, manifest_repeats: int, flag: int | None) -> int:
        if self.design is None:
            return flag or manifest_repeats
        if flag is not None:
            raise ConfigError("--repeats: not with sequential mode; set sequential.max_rounds in the policy")
        return self.design.max_rounds


def controls(args: Any) -> Controls:
    if (args.reuse_base_runs or args.fill_baseline_cache) and args.baseline_cache is None:
        raise ConfigError("--reuse-base-runs and --fill-baseline-cache need --baseline-cache DIR")
    if args.reuse_base_runs and args.fill_baseline_cache:
        raise ConfigError("--reuse-base-runs and --fill-baseline-cache: choose one (fill on the base branch, reuse in PRs)")
    cache = BaselineCache(args.baseline_cache, args.baseline_max_age_days) if args.baseline_cache else None
    if args.policy is None:
        return Controls(Budget(), cache=cache, fill=args.fill_baseline_cache)
    policy = load_policy(args.policy)
    design = None
    if policy.sequential is not None:
        design = sequential.design_from_policy(policy.sequential, policy.confidence)
        # The boundaries hold the false-alarm rate for one look at every task per round; shard
        # jobs would each stop on their own tasks' evidence, and the chances would add up.
        if not args.fill_baseline_cache and str(getattr(args, "shard", "1/1")).split("/")[-1] not in ("", "1"):
            raise ConfigError(f"--shard {args.shard}: sequential mode ({args.policy}: sequential) judges every task "
                              "after each round, which separate shard jobs cannot do; evaluate in one job "
                              "(raise --jobs) or remove `sequential` to shard")
    bound = policy.soft.get("max_success_rate_drop") or 0.0
    return Controls(Budget.from_policy(policy.budget), design, float(bound), cache, args.fill_baseline_cache,
                    policy, OutputLimits.from_policy(policy.limits), policy.impact)


def execute(evaluation: Evaluation, specs: list[RunSpec], jobs: int, chosen: Controls,
            cached: reuse.Reuse | None) -> None:
    """Run the planned specs under the chosen controls, then record budget and cost in the index."""
    tasks = len({s.task.id for s in specs})
    repeats = len({s.repeat for s in specs})
    evaluation.store.header["mode"] = "sequential" if chosen.design else "fixed"
    if cached is not None:
        evaluation.store.header["baseline_cache"] = cached.as_record()
    if chosen.design is None:
        run_fixed(evaluation, specs, jobs, chosen.budget, cached)
    else:
        assert chosen.policy is not None  # a sequential design comes from a policy
        run_sequential(evaluation, specs, jobs, chosen.budget, chosen.design, chosen.bound, chosen.policy, cached)
    if cached is not None:
        evaluation.store.header["baseline_cache"] = cached.as_record()
    cost = finish(evaluation, chosen.budget, tasks, repeats)
    stopped = evaluation.store.header.get("stopped")
    if stopped:
        when = f" (round {stopped['round']})" if stopped.get("round") is not None else ""
        say(f"stopped{when}: {stopped['detail']}", file=sys.stderr)
    say(f"cost: {cost['agent_runs']} agent runs, ${cost['provider_usd']:.4f}; the fixed design: "
          f"{cost['fixed_design_runs']} runs", file=sys.stderr)


def adopt_resumed(chosen: Controls, runs: dict[tuple[str, int, str], dict[str, Any]]) -> None:
    """Runs kept by --resume were paid for by this evaluation: count them against the caps."""
    for record in runs.values():
        if not record.get("reused"):
            chosen.budget.adopt(record)


def cache_reuse(evaluation: Evaluation, checked: Checked, specs: list[RunSpec], chosen: Controls,
                wanted: bool) -> reuse.Reuse | None:
    if not wanted or chosen.cache is None:
        return None
    return reuse.prepare(chosen.cache, reuse.task_keys(checked, evaluation), specs)


def fill_cache(evaluation: Evaluation, checked: Checked, specs: list[RunSpec], jobs: int, chosen: Controls) -> int:
    """The trusted base-branch job; exit 0 when at least one run was stored, else 3."""
    assert chosen.cache is not None
    stored = reuse.fill(chosen.cache, reuse.task_keys(checked, evaluation), evaluation, specs, jobs)
    evaluation.store.header["mode"] = "fill-baseline-cache"
    evaluation.store.header["baseline_cache"] = {"stored_runs": stored}
    finish(evaluation, chosen.budget, len({s.task.id for s in specs}), len({s.repeat for s in specs}))
    say(f"baseline cache: stored {stored} base runs in {chosen.cache.root}", file=sys.stderr)
    if not stored:
        raise NotEvaluatedError("baseline cache: no valid base run to store")
    return 0
