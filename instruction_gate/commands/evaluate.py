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

from instruction_gate.run import evaluation, rounds
from instruction_gate.run.adapter import checked_adapter_command
from instruction_gate.commands import validate
from instruction_gate.errors import ConfigError, NotEvaluatedError
from instruction_gate.run.staging import build_stage, task_texts
from instruction_gate.suite.instruction_diff import gate_sources, instruction_hunks
from instruction_gate.suite.prepare import check_all, compile_checked
from instruction_gate.run.run_store import RunStore
from instruction_gate.secrets import Redactor, split_environment


def add_arguments(parser: argparse.ArgumentParser) -> None:
    validate.add_arguments(parser)
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
    rounds.add_arguments(parser)


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


def run(args: argparse.Namespace) -> int:
    if args.validate_only:
        return validate.run(args)
    command = args.adapter or os.environ.get("AGENT_ADAPTER_CMD")
    if not command:
        raise ConfigError("no adapter: pass --adapter or set AGENT_ADAPTER_CMD")
    if args.repeats is not None and args.repeats < 1:
        raise ConfigError("--repeats: must be at least 1")
    if args.jobs < 1:
        raise ConfigError("--jobs: must be at least 1")
    shard, options = _shard(args.shard), _options(args.adapter_option)
    if not args.resume and (args.out / "index.json").exists():
        # Replacing the index would orphan the old run directories and summary next to it.
        raise ConfigError(f"{args.out} already holds an evaluation (index.json): pass --resume to continue it, "
                          "or use an empty directory")
    envs = split_environment()
    adapter_argv = checked_adapter_command(command, Path.cwd(), envs.adapter)
    chosen = rounds.controls(args)
    checked = check_all(args.repo, args.manifest, args.base, args.candidate, allow_identical=args.fill_baseline_cache,
                        warn=validate.warn)
    manifest, contract = checked.manifest, checked.contract
    declared_rules = compile_checked(checked)
    unknown = sorted(set(args.tasks or []) - {t.id for t in manifest.tasks})
    if unknown:
        raise ConfigError(f"--tasks: unknown task ids {unknown}; known: {[t.id for t in manifest.tasks]}")
    repeats = chosen.repeats(manifest.repeats, args.repeats)
    specs = evaluation.plan(manifest, repeats, args.tasks, shard)
    if shard[1] > 1 and chosen.budget.capped:
        # The policy caps the evaluation, not each shard job: each takes its share of the runs.
        whole = len(evaluation.plan(manifest, repeats, args.tasks, (1, 1)))
        chosen = dataclasses.replace(chosen, budget=chosen.budget.for_share(len(specs) / whole if whole else 1.0))
    header = {"gate_version": __version__, "base_sha": contract.base_sha, "candidate_sha": contract.candidate_sha,
              "merge_base_sha": contract.merge_base_sha, "manifest_sha256": manifest.sha256, "repeats": repeats,
              "shard": f"{shard[0]}/{shard[1]}", "tasks": sorted({s.task.id for s in specs}),
              "planned_runs": len(specs), "changed_instruction_paths": list(contract.changed_instruction_paths),
              "instruction_hunks": instruction_hunks(args.repo, contract),
              "gate_sources": gate_sources(manifest, {s.task.id for s in specs})}
    store = RunStore(args.out, header, Redactor(envs.secret_values))
    if args.resume:
        kept = store.load_finished()
        print(f"resume: {kept} finished runs kept", file=sys.stderr)
        rounds.adopt_resumed(chosen, store.runs)
    store.write_index()
    _terminate_on_sigterm()
    stage, fixture_problems = build_stage(checked, args.temp_dir)
    try:
        prompts, solutions = task_texts(checked, stage)
        run = evaluation.Evaluation(stage, store, adapter_argv, envs, header, prompts,
                                    solutions, fixture_problems, options, declared_rules, budget=chosen.budget)
        if chosen.fill:
            return rounds.fill_cache(run, checked, specs, args.jobs, chosen)
        rounds.execute(run, specs, args.jobs, chosen, rounds.cache_reuse(run, checked, specs, chosen, args.reuse_base_runs))
    finally:
        stage.close()
    mine = {k: v for k, v in store.runs.items() if k[0] in header["tasks"]}
    pairs = {(t, r) for (t, r, v), rec in mine.items() if rec["valid"] and mine.get((t, r, "candidate" if v == "base" else "base"), {}).get("valid")}
    if not pairs:
        raise NotEvaluatedError(f"no valid (base, candidate) pair among {len(mine)} runs; see {args.out}/index.json")
    regressions = evaluation.candidate_regressions(mine)
    print(f"{len(mine)} runs recorded in {args.out}; {len(pairs)} valid pairs; "
          f"{len(regressions)} candidate hard-gate regressions", file=sys.stderr)
    for line in regressions:
        print(f"  {line}", file=sys.stderr)
    return 1 if regressions else 0
