"""`blame`: which of the candidate's instruction hunks does a FAIL follow?

Reads an evaluation's results, compares them under the policy, and when the verdict is FAIL with
blocking hard-gate findings, re-runs only the failing tasks (candidate arm) with subsets of the
candidate's hunks (blame/search.py), within a run budget checked before anything runs. Writes
blame.json and blame.md. Exit 0 when blame ran or had nothing to do, 2 when the budget cannot
cover the search (or on bad input), 3 when no trial produced a valid run.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from instruction_gate.blame import report, search
from instruction_gate.blame.runs import Trials, originals
from instruction_gate.commands import add_check_env_dir
from instruction_gate.errors import EXIT_NOT_EVALUATED, EXIT_PASS, ConfigError
from instruction_gate.hunks import from_dict
from instruction_gate.mutations.scratch import ScratchRepo
from instruction_gate.mutations.suite import SuiteRunner
from instruction_gate.protected import check_repository_outputs, in_directory
from instruction_gate.records import write_json_atomic, write_text_atomic
from instruction_gate.run import check_env, egress, sandbox, sandbox_paths
from instruction_gate.run.adapter import checked_adapter_command, is_reference_adapter
from instruction_gate.secrets import split_environment, withhold_broker_token
from instruction_gate.suite import manifest as manifest_mod
from instruction_gate.suite.prepare import check_all, repo_root
from instruction_gate.suite.instruction_diff import instruction_hunks
from instruction_gate.verdict.comparison import compare
from instruction_gate.verdict.policy import load_policy, policy_from_dict
from instruction_gate.verdict.results import load_results
from instruction_gate.console import say


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--repo", type=Path, default=Path("."), help="repository root (default: .)")
    parser.add_argument("--manifest", type=Path, required=True, help="suite manifest (JSON or YAML)")
    parser.add_argument("--base", required=True, help="trusted base commit")
    parser.add_argument("--candidate", required=True, help="candidate commit whose hunks are blamed")
    parser.add_argument("--results", type=Path, nargs="+", required=True,
                        help="the evaluation's index.json files or output directories (as for compare)")
    parser.add_argument("--policy", type=Path, help="policy.json (default: policy.json next to the manifest)")
    parser.add_argument("--out", type=Path, required=True, help="output directory (runs, blame.json, blame.md)")
    parser.add_argument("--adapter", help="adapter command (default: $AGENT_ADAPTER_CMD)")
    parser.add_argument("--adapter-option", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--max-agent-runs", type=int, help="run budget (default: policy blame.max_agent_runs)")
    parser.add_argument("--repeats", type=int, help="runs per failing task per step (default: policy blame.repeats)")
    parser.add_argument("--tasks", nargs="+", metavar="ID", help="blame only these of the failing tasks")
    parser.add_argument("--jobs", type=int, default=1, help="runs executed concurrently (default 1)")
    parser.add_argument("--temp-dir", type=Path, help="where scratch repositories and workspaces go")
    sandbox.add_arguments(parser)
    add_check_env_dir(parser)


def _finish(args: argparse.Namespace, result: dict) -> int:
    write_json_atomic(args.out / "blame.json", result)
    text = report.markdown(result)
    write_text_atomic(args.out / "blame.md", text)
    say(text)
    return EXIT_NOT_EVALUATED if result["status"] == "not_evaluated" else EXIT_PASS


def run(args: argparse.Namespace) -> int:
    command = args.adapter or os.environ.get("AGENT_ADAPTER_CMD")
    if not command:
        raise ConfigError("no adapter: pass --adapter or set AGENT_ADAPTER_CMD")
    for flag, value in (("--max-agent-runs", args.max_agent_runs), ("--repeats", args.repeats), ("--jobs", args.jobs)):
        if value is not None and value < 1:
            raise ConfigError(f"{flag}: must be at least 1")
    env_dir = check_env.checked_env_dir(args.check_env_dir)
    argv = checked_adapter_command(command, Path.cwd())
    withhold_broker_token()
    options = dict(p.split("=", 1) for p in args.adapter_option if "=" in p)
    provider = egress.provider_target(argv, options, split_environment().adapter)
    confinement = sandbox.from_args(args, offline=is_reference_adapter(argv), broker=provider is not None)
    policy_path = args.policy or (args.manifest.parent / "policy.json")
    check_repository_outputs(args.repo, in_directory("--out", args.out, ("blame.json", "blame.md")),
                             [args.manifest, policy_path, *args.results], dirs={"--out": args.out})
    policy = load_policy(policy_path) if policy_path.is_file() or args.policy else policy_from_dict({}, "default policy")
    budget = args.max_agent_runs or policy.blame["max_agent_runs"]
    repeats = args.repeats or policy.blame["repeats"]
    comparison = compare(load_results(args.results), policy)
    failing: dict[str, set[str]] = {}
    for finding in comparison.findings:
        if finding.blocking and (not args.tasks or finding.task_id in args.tasks):
            failing.setdefault(finding.task_id, set()).add(finding.category)
    base = {"verdict": comparison.decision.verdict, "failing": {t: sorted(c) for t, c in sorted(failing.items())},
            "budget_runs": budget}
    if comparison.decision.verdict != "fail" or not failing:
        why = ("the verdict is " + comparison.decision.verdict.upper() if comparison.decision.verdict != "fail"
               else "the FAIL comes from soft metrics; blame covers blocking hard-gate findings")
        return _finish(args, {**base, "status": "nothing_to_blame", "reason": why, "hunks": [], "steps": [],
                              "runs": 0, "cost_usd": 0.0})
    repo = repo_root(args.repo)
    checked = check_all(repo, args.manifest, args.base, args.candidate)
    contract = checked.contract
    check_env.refuse_bad_settings(checked.manifest, env_dir, contract.changed_instruction_paths)
    hunks = [h for h in map(from_dict, instruction_hunks(repo, contract)) if h is not None]
    if not hunks:
        raise ConfigError("blame: the candidate changes no instruction lines (no hunks to blame)")
    per_step = len(failing) * repeats
    steps = search.steps_needed(len(hunks))
    needed = steps * per_step
    if needed > budget:
        raise ConfigError(f"blame: a bisection over {len(hunks)} hunks needs {steps} step(s) × {len(failing)} failing "
                          f"task(s) × {repeats} repeat(s) = {needed} agent runs; the budget allows {budget} "
                          "(policy blame.max_agent_runs or --max-agent-runs)")
    texts = originals(repo, contract, hunks)
    args.out.mkdir(parents=True, exist_ok=True)
    with ScratchRepo(repo, args.manifest, args.temp_dir) as scratch, \
            egress.provider_network(confinement, provider, args.temp_dir) as confinement:
        suite = manifest_mod.load(scratch.manifest_path)
        runner = SuiteRunner(scratch.root, suite, argv, split_environment(), repeats, args.jobs, options,
                             args.temp_dir, sorted(failing), sandbox=confinement,
                             readable=sandbox_paths.run_paths(args, argv, options.values(), os.environ.get("PATH", ""),
                                                              (repo, args.manifest.parent)),
                             check_env_dir=env_dir)
        trials = Trials(scratch, runner, contract.base_sha, hunks, texts, failing, args.out / "runs")
        say(f"blame: {len(hunks)} hunk(s), {len(failing)} failing task(s), {steps} step(s) of {per_step} run(s)",
              file=sys.stderr)
        outcome = search.bisect(len(hunks), trials, confirm=needed + per_step <= budget)
    valid = any(r.get("valid", True) for r in trials.records) or not trials.records
    return _finish(args, {**base, **report.as_json(outcome, hunks), "status": "done" if valid else "not_evaluated",
                          "runs": outcome.runs, "cost_usd": round(trials.cost_usd, 6),
                          "binary_search_runs": needed})

