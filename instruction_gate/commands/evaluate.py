"""`evaluate` (runner.py): the paired evaluation of base vs candidate instruction files.

Exit 0 when every run was recorded and no candidate run has a hard failure its paired base
run lacks; 1 when one has (the policy-aware decision is compare's); 2 for configuration
errors; 3 when no valid pair could be formed.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import signal
import sys
import threading
from pathlib import Path

from instruction_gate import __version__

from instruction_gate.run import check_env, egress, evaluation, rounds, sandbox, sandbox_paths
from instruction_gate.run.adapter import checked_adapter_command, is_reference_adapter
from instruction_gate.commands import add_check_env_dir, validate
from instruction_gate.suite import impact
from instruction_gate.verdict import pairing
from instruction_gate.errors import ConfigError, NotEvaluatedError
from instruction_gate.run.staging import build_stage, task_texts
from instruction_gate.suite.instruction_diff import gate_sources, instruction_hunks
from instruction_gate.suite.prepare import check_all, compile_checked
from instruction_gate.suite.suite_files import unavailable_check_programs
from instruction_gate.run import out_lock
from instruction_gate.run.run_store import RunStore
from instruction_gate.outputs import check_outputs
from instruction_gate.secrets import Redactor, split_environment, withhold_broker_token
from instruction_gate.console import say


#: The manifest schema's upper bound on repeats; the flag may not exceed it either.
MAX_REPEATS = 100


def add_arguments(parser: argparse.ArgumentParser) -> None:
    validate.add_arguments(parser, with_policy=False)
    parser.add_argument("--out", type=Path, required=True, help="output directory for run records and index.json")
    parser.add_argument("--validate-only", action="store_true", help="check manifest and static contract, run nothing")
    parser.add_argument("--adapter", help="adapter command (default: $AGENT_ADAPTER_CMD)")
    parser.add_argument("--adapter-option", action="append", default=[], metavar="KEY=VALUE",
                        help="passed to the adapter in request.adapter_options (repeatable)")
    parser.add_argument("--repeats", type=int, help="override the manifest's repeats")
    parser.add_argument("--jobs", type=int, default=1, help="runs executed concurrently (default 1)")
    parser.add_argument("--tasks", nargs="+", metavar="ID", help="evaluate only these task ids")
    parser.add_argument("--shard", default="1/1", help="K/N: evaluate the K-th of N deterministic task shards")
    parser.add_argument("--resume", action="store_true", help="keep runs already recorded in --out")
    parser.add_argument("--temp-dir", type=Path, help="where workspaces are created (default: system temp)")
    add_check_env_dir(parser)
    rounds.add_arguments(parser)
    sandbox.add_arguments(parser)


def _shard(value: str) -> tuple[int, int]:
    match = re.fullmatch(r"(\d+)/(\d+)", value)
    if not match or not 1 <= int(match[1]) <= int(match[2]):
        raise ConfigError(f"--shard: expected K/N with 1 <= K <= N, got {value!r}")
    return int(match[1]), int(match[2])


def _options(pairs: list[str]) -> dict[str, str]:
    bad = [p for p in pairs if "=" not in p]
    if bad:
        raise ConfigError(f"--adapter-option: expected KEY=VALUE, got {bad[0]!r}")
    return dict(p.split("=", 1) for p in pairs)


def _terminate_on_sigterm() -> None:
    """Turn SIGTERM into KeyboardInterrupt so workspaces are removed and children killed."""
    def handler(signum, frame):
        raise KeyboardInterrupt
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, handler)


def _impact(checked, chosen: rounds.Controls, args: argparse.Namespace, adapter_argv: list[str],
            options: dict[str, str]) -> impact.Impact | None:
    """Which tasks can see the change (policy `impact: skip`, the default); None when every task runs.

    Decided here, before anything is built, from the policy given to evaluate (`--policy`):
    the runner must know which tasks to run, and compare reads the result from index.json.
    """
    if chosen.fill or chosen.impact["mode"] == "run":
        return None
    rules = impact.discovery_for(chosen.impact["discovery"], adapter_argv, options)
    analysed = impact.analyse(checked, rules, "skip", args.temp_dir, args.tasks)
    say(f"impact ({rules.mode} discovery): {len(analysed.affected)} of {len(analysed.tasks)} task(s) can see "
          f"the change; not run: {', '.join(t.task_id for t in analysed.tasks if not t.affected) or 'none'}",
          file=sys.stderr)
    if analysed.hint():
        say(f"impact: {analysed.hint()}", file=sys.stderr)
    if analysed.unbounded and analysed.changed_paths:
        say(f"impact: {analysed.unbounded}; every task runs", file=sys.stderr)
    return analysed


def run(args: argparse.Namespace) -> int:
    if args.validate_only:
        return validate.run(args)
    command = args.adapter or os.environ.get("AGENT_ADAPTER_CMD")
    if not command:
        raise ConfigError("no adapter: pass --adapter or set AGENT_ADAPTER_CMD")
    if args.repeats is not None and args.repeats < 1:
        raise ConfigError("--repeats: must be at least 1")
    if args.repeats is not None and args.repeats > MAX_REPEATS:
        raise ConfigError(f"--repeats: must be at most {MAX_REPEATS} (the manifest's own limit)")
    if args.jobs < 1:
        raise ConfigError("--jobs: must be at least 1")
    shard, options = _shard(args.shard), _options(args.adapter_option)
    check_outputs({}, dirs={"--out": args.out, **({"--temp-dir": args.temp_dir} if args.temp_dir else {})})
    with out_lock.hold(args.out):
        return _locked(args, command, shard, options)


def _locked(args: argparse.Namespace, command: str, shard: tuple[int, int], options: dict[str, str]) -> int:
    """The evaluation proper, while this process alone owns `--out`."""
    if not args.resume and (args.out / "index.json").exists():
        # Replacing the index would orphan the old run directories and summary next to it.
        raise ConfigError(f"{args.out} already holds an evaluation (index.json): pass --resume to continue it, "
                          "or use an empty directory")
    withhold_broker_token()
    envs = split_environment()
    adapter_argv = checked_adapter_command(command, Path.cwd(), envs.adapter)
    provider = egress.provider_target(adapter_argv, options, envs.adapter)
    confinement = sandbox.from_args(args, offline=is_reference_adapter(adapter_argv), broker=provider is not None)
    say(f"agent sandbox: {confinement.label}{egress.network_note(confinement, provider)}", file=sys.stderr)
    chosen = rounds.controls(args)
    checked = check_all(args.repo, args.manifest, args.base, args.candidate, allow_identical=args.fill_baseline_cache,
                        warn=validate.warn, mixed_changes=validate.mixed_changes(args))
    manifest, contract = checked.manifest, checked.contract
    env_dir = check_env.checked_env_dir(args.check_env_dir)
    check_env.refuse_bad_settings(manifest, env_dir, contract.changed_instruction_paths)
    check_path_env = dict(envs.agent)
    if env_dir is not None:  # checks find their programs in the project's environment first
        check_path_env["PATH"] = f"{env_dir / 'bin'}{os.pathsep}{check_path_env.get('PATH', '')}"
    unavailable = unavailable_check_programs(manifest, str(args.manifest), check_path_env)
    if unavailable:
        raise ConfigError(f"{args.manifest}: check programs that cannot start (every run of both arms would fail)",
                          unavailable)
    declared_rules = compile_checked(checked)
    unknown = sorted(set(args.tasks or []) - {t.id for t in manifest.tasks})
    if unknown:
        raise ConfigError(f"--tasks: unknown task ids {unknown}; known: {[t.id for t in manifest.tasks]}")
    repeats = chosen.repeats(manifest.repeats, args.repeats)
    analysed = _impact(checked, chosen, args, adapter_argv, options)
    selected = analysed.selected() if analysed else args.tasks
    specs = evaluation.plan(manifest, repeats, selected, shard)
    if shard[1] > 1 and chosen.budget.capped:
        # The policy caps the evaluation, not each shard job: each takes its share of the runs.
        whole = len(evaluation.plan(manifest, repeats, selected, (1, 1)))
        chosen = dataclasses.replace(chosen, budget=chosen.budget.for_share(len(specs) / whole if whole else 1.0))
    header = {"gate_version": __version__, "base_sha": contract.base_sha, "candidate_sha": contract.candidate_sha,
              "merge_base_sha": contract.merge_base_sha, "manifest_sha256": manifest.sha256, "repeats": repeats,
              "shard": f"{shard[0]}/{shard[1]}", "tasks": sorted({s.task.id for s in specs}),
              "planned_runs": len(specs), "changed_instruction_paths": list(contract.changed_instruction_paths),
              "held_fixed": list(contract.held_fixed),
              "isolation": confinement.label, "output_limits": chosen.limits.as_record(),
              "instruction_hunks": instruction_hunks(args.repo, contract),
              "gate_sources": gate_sources(manifest, {s.task.id for s in specs}),
              # mined tasks whose prompt no one has read yet (compare warns)
              "unreviewed_prompts": sorted({s.task.id for s in specs
                                            if (s.task.raw.get("origin") or {}).get("prompt_reviewed") is False})}
    if contract.holds_code:
        say(validate.held_fixed_line(contract.held_fixed), file=sys.stderr)
    if analysed:
        header["impact"] = analysed.record()
    store = RunStore(args.out, header, Redactor(envs.secret_values))
    if args.resume:
        kept = store.load_finished()
        say(f"resume: {kept} finished runs kept", file=sys.stderr)
        rounds.adopt_resumed(chosen, store.runs)
    store.write_index()
    if analysed and not specs:
        # Nothing here can see the change: not a failure to evaluate, a finding compare reports.
        where = "no task" if not analysed.affected else f"no affected task falls in shard {args.shard}"
        say(f"impact: {where} can see this change ({', '.join(analysed.changed_paths)}; {analysed.discovery} "
              f"discovery); nothing to run. {args.out}/index.json records it for compare", file=sys.stderr)
        return 0
    _terminate_on_sigterm()
    stage, fixture_problems = build_stage(checked, args.temp_dir)
    if contract.holds_code:
        store.header["not_evaluable"] = dict(sorted(fixture_problems.items()))
        for task_id, why in sorted(fixture_problems.items()):
            say(f"  {task_id}: {why}", file=sys.stderr)
    try:
        # The relay to the provider (network `provider`) lives as long as the runs.
        with egress.provider_network(confinement, provider, args.temp_dir) as confinement:
            prompts, solutions = task_texts(checked, stage)
            run = evaluation.Evaluation(stage, store, adapter_argv, envs, header, prompts,
                                        solutions, fixture_problems, options, declared_rules, budget=chosen.budget,
                                        sandbox=confinement, limits=chosen.limits,
                                        readable=sandbox_paths.run_paths(args, adapter_argv, options.values(), envs.adapter.get("PATH", ""),
                                                                           (checked.repo, args.manifest.parent)),
                                        check_env_dir=env_dir,
                                        check_files=chosen.policy.check_files if chosen.policy else "restore")
            if chosen.fill:
                return rounds.fill_cache(run, checked, specs, args.jobs, chosen)
            rounds.execute(run, specs, args.jobs, chosen, rounds.cache_reuse(run, checked, specs, chosen, args.reuse_base_runs))
    finally:
        stage.close()
    mine = {k: v for k, v in store.runs.items() if k[0] in header["tasks"]}
    pairs = {(t, r) for (t, r, v), rec in mine.items() if rec["valid"] and mine.get((t, r, "candidate" if v == "base" else "base"), {}).get("valid")}
    if not pairs:
        common = pairing.common_cause(list(mine.values()))
        raise NotEvaluatedError(f"no valid (base, candidate) pair among {len(mine)} runs"
                                + (f"; every run failed: {common}" if common else "") + f"; see {args.out}/index.json")
    regressions = evaluation.candidate_regressions(mine)
    say(f"{len(mine)} runs recorded in {args.out}; {len(pairs)} valid pairs; "
          f"{len(regressions)} candidate hard-gate regressions", file=sys.stderr)
    for line in regressions:
        say(f"  {line}", file=sys.stderr)
    return 1 if regressions else 0
