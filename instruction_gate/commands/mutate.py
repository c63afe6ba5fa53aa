"""`mutate`: does the suite see broken instructions? Mutation testing of the instruction files.

For a base commit it generates mutants (operators and `mutations/*.patch`), commits each in a
private scratch repository, runs the suite's base arm once and each mutant's candidate arm,
and lets the compare engine judge every mutant. A mutant the gate fails is killed; one it
passes survives: the suite did not notice that change. An A/A control (candidate
identical to base) must survive. Each mutant's directory keeps `mutant.diff` and the summary
compare would write, since the scratch repository with the mutant commits is removed. Exit 1
when the control is killed or the score is below `--min-score`; without `--min-score` it only
reports.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

from instruction_gate import globs
from instruction_gate.run import check_env
from instruction_gate.suite import manifest as manifest_mod
from instruction_gate.report import summary_json
from instruction_gate.run import egress, sandbox, sandbox_paths
from instruction_gate.run.adapter import checked_adapter_command, is_reference_adapter
from instruction_gate.agents.codex.discovery import CODEX_BUDGET_BYTES
from instruction_gate.verdict.comparison import compare
from instruction_gate.suite.contract import read_tree, resolve_commit
from instruction_gate.errors import EXIT_GATE_FAILURE, EXIT_NOT_EVALUATED, EXIT_PASS, ConfigError, GateError, NotEvaluatedError
from instruction_gate.mutations.model import Files, Mutant, unified_diff
from instruction_gate.mutations.operators import OPERATORS, counts, generate, oversized, sample, selected
from instruction_gate.mutations.report import (NOT_EVALUATED, SURVIVED, UNREACHABLE, MutationReport, Outcome,
                                               markdown, not_applicable, operator_counts, status_of, to_json)
from instruction_gate.mutations.scratch import ScratchRepo
from instruction_gate.mutations.suite import SuiteRunner, adopt_base_runs
from instruction_gate.verdict.policy import Policy, load_policy, policy_from_dict
from instruction_gate.lint import coverage
from instruction_gate.suite import impact
from instruction_gate.suite.prepare import check_all, repo_root
from instruction_gate.protected import check_repository_outputs, in_directory
from instruction_gate.records import write_json_atomic, write_text_atomic
from instruction_gate.run import out_lock
from instruction_gate.commands import add_check_env_dir
from instruction_gate.commands.evaluate import MAX_REPEATS
from instruction_gate.verdict.results import ResultSet, load_results
from instruction_gate.secrets import Redactor, split_environment, withhold_broker_token
from instruction_gate.suite.suite_files import missing_suite_files, unavailable_check_programs
from instruction_gate.report.summary_md import render
from instruction_gate.run.workspace import VARIANTS
from instruction_gate.console import say

#: Agent names accepted by --truncate-at, with their documented instruction byte caps.
AGENT_CAPS = {"codex": CODEX_BUDGET_BYTES}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--repo", type=Path, default=Path("."), help="repository root (default: .)")
    parser.add_argument("--manifest", type=Path, required=True, help="suite manifest (JSON or YAML)")
    parser.add_argument("--base", required=True, help="commit whose instruction files are mutated")
    parser.add_argument("--out", type=Path, required=True, help="output directory (runs, mutation.json, mutation.md)")
    parser.add_argument("--adapter", help="adapter command (default: $AGENT_ADAPTER_CMD)")
    parser.add_argument("--adapter-option", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--policy", type=Path, help="policy.json (default: policy.json next to the manifest)")
    parser.add_argument("--operators", nargs="*", default=list(OPERATORS), metavar="NAME",
                        help=f"mutation operators (default: all of {', '.join(OPERATORS)}; none: patch files only)")
    parser.add_argument("--patches", type=Path, nargs="*",
                        help="patch files to apply as mutants (default: mutations/*.patch next to the manifest)")
    parser.add_argument("--truncate-at", help="byte offset or agent name (codex = 32 KiB) for the truncate operator; "
                        "default: the middle of each file")
    parser.add_argument("--max-mutants", type=int,
                        help="evaluate at most this many mutants: patch files first, then one of each operator "
                             "in turn, spread over files and lines (deterministic); default: all")
    parser.add_argument("--min-score", type=_fraction,
                        help="fail (exit 1) when killed/total is below this fraction; default: none, only report "
                             "(exit 0 unless the A/A control is killed or nothing could be evaluated)")
    parser.add_argument("--tasks", nargs="+", metavar="ID", help="run only these task ids")
    parser.add_argument("--repeats", type=int, help="override the manifest's repeats")
    parser.add_argument("--jobs", type=int, default=1, help="runs executed concurrently (default 1)")
    parser.add_argument("--temp-dir", type=Path, help="where scratch repositories and workspaces go")
    sandbox.add_arguments(parser)
    add_check_env_dir(parser)


def _fraction(value: str) -> float:
    """--min-score: a fraction in [0, 1], refused before any run is spent."""
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {value!r}") from None
    if not 0 <= number <= 1:  # NaN fails this too
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {value!r}")
    return number


def _truncate_at(value: str | None) -> int | None:
    if value is None:
        return None
    if value in AGENT_CAPS:
        return AGENT_CAPS[value]
    if not value.isdigit() or int(value) < 1:
        raise ConfigError(f"--truncate-at: expected a positive byte count or one of {list(AGENT_CAPS)}, got {value!r}")
    return int(value)


def _policy(args: argparse.Namespace) -> Policy:
    path = args.policy or (args.manifest.parent / "policy.json")
    if args.policy is None and not path.is_file():
        return policy_from_dict({}, "default policy")
    return load_policy(path)


def _slug(number: int, mutant: Mutant) -> str:
    return f"{number:03d}-" + re.sub(r"[^A-Za-z0-9._-]+", "_", mutant.id)[:80]


def judge(results_dir: Path, policy: Policy, mutant: Mutant | None, candidate_sha: str) -> Outcome:
    """Compare one mutant's runs (its candidate arm + the shared base arm) as compare would, and
    leave compare's summary.json and summary.md next to them."""
    try:
        results, problems = load_results([results_dir / "index.json"]), []
    except GateError as exc:
        results, problems = ResultSet(), [str(exc).splitlines()[0]]
    comparison = compare(results, policy, problems)
    write_json_atomic(results_dir / "summary.json", summary_json.build_summary(comparison))
    write_text_atomic(results_dir / "summary.md", render(comparison))
    decision = comparison.decision
    headline = problems[0] if problems else decision.headline
    return Outcome(mutant, status_of(decision.exit_code), headline, candidate_sha, str(results_dir))


def write_diff(results_dir: Path, files: Files, mutant: Mutant | None, redact: Redactor) -> None:
    """`mutant.diff`: what the mutant changed (empty for the control), kept because the commit
    it was evaluated at lives only in the removed scratch repository."""
    results_dir.mkdir(parents=True, exist_ok=True)
    write_text_atomic(results_dir / "mutant.diff", redact(unified_diff(files, mutant.changes)) if mutant else "")


def run(args: argparse.Namespace) -> int:
    command = args.adapter or os.environ.get("AGENT_ADAPTER_CMD")
    if not command:
        raise ConfigError("no adapter: pass --adapter or set AGENT_ADAPTER_CMD")
    argv = checked_adapter_command(command, Path.cwd())  # a program that cannot start fails every mutant
    operators = selected(args.operators)
    withhold_broker_token()
    provider = egress.provider_target(argv, dict(p.split("=", 1) for p in args.adapter_option if "=" in p),
                                      split_environment().adapter)
    confinement = sandbox.from_args(args, offline=is_reference_adapter(argv), broker=provider is not None)
    for flag, value in (("--repeats", args.repeats), ("--jobs", args.jobs), ("--max-mutants", args.max_mutants)):
        if value is not None and value < 1:
            raise ConfigError(f"{flag}: must be at least 1")
    if args.repeats is not None and args.repeats > MAX_REPEATS:
        raise ConfigError(f"--repeats: must be at most {MAX_REPEATS} (the manifest's own limit)")
    repo = repo_root(args.repo)
    manifest = manifest_mod.load(args.manifest)
    check_repository_outputs(repo, in_directory("--out", args.out, ("mutation.md", "mutation.json")),
                             [args.manifest, args.policy or args.manifest.parent / "policy.json", *(args.patches or ())], manifest.instruction_paths,
                             dirs={"--out": args.out})
    base_sha = resolve_commit(repo, args.base, "base")
    problems = missing_suite_files(manifest, read_tree(repo, base_sha), str(args.manifest), repo)
    problems += unavailable_check_programs(manifest, str(args.manifest), split_environment().agent)
    if problems:
        raise ConfigError(f"{args.manifest}: references files missing at the base commit", problems)
    unknown = sorted(set(args.tasks or []) - {t.id for t in manifest.tasks})
    if unknown:
        raise ConfigError(f"--tasks: unknown task ids {unknown}; known: {[t.id for t in manifest.tasks]}")
    policy = _policy(args)
    env_dir = check_env.checked_env_dir(args.check_env_dir)
    # Mutants change instruction files only; the settings must work whichever file a mutant edits.
    check_env.refuse_bad_settings(manifest, env_dir, tuple(globs.filter_paths(read_tree(repo, base_sha), manifest.instruction_paths)))
    patches = args.patches if args.patches is not None else sorted((args.manifest.parent / "mutations").glob("*.patch"))
    if not operators and not patches:
        where = "--patches named none" if args.patches is not None else \
            f"no patch files found in {args.manifest.parent / 'mutations'} (*.patch)"
        raise ConfigError(f"--operators none: patch files only, and {where}; add a patch file, pass --patches "
                          "FILE..., or choose operators")
    options = dict(p.split("=", 1) for p in args.adapter_option if "=" in p)
    repeats = args.repeats or manifest.repeats
    # The base's instruction files are trusted, but a token pasted into one must not spread into
    # every mutant's diff, description and report.
    redact = Redactor(split_environment().secret_values)
    with out_lock.hold(args.out), ScratchRepo(repo, args.manifest, args.temp_dir) as scratch, \
            egress.provider_network(confinement, provider, args.temp_dir) as confinement:
        suite = manifest_mod.load(scratch.manifest_path)
        files = scratch.instruction_files(base_sha, suite)
        generated = generate(files, operators, patches, _truncate_at(args.truncate_at))
        mutants = sample(generated, args.max_mutants)
        per_operator = counts(generated, operators)
        too_large = oversized(files)
        if too_large:
            say("mutate: not mutated, larger than the harness reads of one instruction file: "
                + ", ".join(f"{path} ({size:,} bytes)" for path, size in too_large.items()), file=sys.stderr)
        say(f"mutate: mutants per operator: {operator_counts(per_operator, counts(mutants, operators))}",
              file=sys.stderr)
        if not_applicable(per_operator):
            say(f"mutate: not applicable here (no mutant): {not_applicable(per_operator)}", file=sys.stderr)
        if not mutants:
            why = (f"no mutant to score: no operator of {', '.join(operators) or 'none'} applies to "
                   f"{', '.join(sorted(files)) or 'the base instruction files (there are none)'}"
                   f"{' and no patch file was given' if not patches else ''}")
            if args.min_score is not None:
                raise NotEvaluatedError(f"--min-score {args.min_score}: {why}")
            say(f"mutate: {why}; only the A/A control runs", file=sys.stderr)
        runner = SuiteRunner(scratch.root, suite, argv, split_environment(),
                             repeats, args.jobs, options, args.temp_dir, args.tasks, sandbox=confinement,
                             readable=sandbox_paths.run_paths(args, argv, options.values(), os.environ.get("PATH", ""),
                                                                  (repo, args.manifest.parent)),
                             check_env_dir=env_dir)
        say(f"mutate: {len(mutants)} mutant(s) + A/A control, {repeats} repeat(s) of "
              f"{len(runner.tasks)} task(s)", file=sys.stderr)
        rules = (impact.discovery_for(policy.impact["discovery"], argv, options)
                 if policy.impact["mode"] == "skip" else None)
        control_dir = args.out / "control"
        write_diff(control_dir, files, None, redact)
        control_store = runner.run(scratch.control_contract(base_sha, suite), control_dir, VARIANTS)
        control = judge(control_dir, policy, None, base_sha)
        base_runs = {k: v for k, v in control_store.runs.items() if k[2] == "base"}
        outcomes = []
        for number, mutant in enumerate(mutants, start=1):
            sha = scratch.commit(base_sha, mutant.changes, f"instruction-gate mutant {mutant.id}")
            checked = check_all(scratch.root, scratch.manifest_path, base_sha, sha)
            results_dir = args.out / "mutants" / _slug(number, mutant)
            write_diff(results_dir, files, mutant, redact)
            reach = None if rules is None else impact.analyse(checked, rules, temp_root=args.temp_dir,
                                                               task_ids=runner.task_ids)
            if reach is not None and not reach.affected:
                outcomes.append(Outcome(mutant, UNREACHABLE, f"no task can reach {', '.join(reach.changed_paths)} "
                                        f"({rules.mode} discovery); not run", sha, str(results_dir)))
            else:
                tasks, extra = (None, None) if reach is None else (reach.affected, {"impact": reach.record()})
                adopt_base_runs(runner.run(checked.contract, results_dir, ("candidate",), tasks, extra), base_runs)
                outcomes.append(judge(results_dir, policy, mutant, sha))
            say(redact(f"mutate: [{number}/{len(mutants)}] {mutant.id}: {outcomes[-1].status}"), file=sys.stderr)
    naive = (len(mutants) + 1) * len(VARIANTS) * repeats * len(runner.tasks)
    cwds = [t.cwd for t in runner.tasks]
    report = MutationReport(base_sha, control, outcomes, runner.executed, naive, per_operator,
                            coverage.gaps(files, cwds), len(cwds), too_large)
    summary = redact(markdown(report, args.out))
    write_text_atomic(args.out / "mutation.md", summary + "\n")
    write_json_atomic(args.out / "mutation.json", redact.data(to_json(report)))
    say(summary)
    if control.status == NOT_EVALUATED:
        return EXIT_NOT_EVALUATED
    too_low = args.min_score is not None and (report.score or 0.0) < args.min_score
    return EXIT_GATE_FAILURE if control.status != SURVIVED or too_low else EXIT_PASS
