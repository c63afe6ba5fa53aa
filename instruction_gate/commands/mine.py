"""`mine`: tasks from the repository's own fixes, validated, written as a suite.

Scans first-parent history for fix-shaped commits that change Python code and tests, poses
each on the base (the fixture reverts the fix, the hidden tests are the base's, the checks the
test functions the fix touched), validates each twice in the check sandbox, and writes the kept
tasks into the manifest with a report of every candidate kept or dropped and why. Exit 0 when
at least one task was kept, 1 when none was, 2 for configuration errors, 3 when the check
environment cannot be built or every candidate of a batch failed in it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from instruction_gate.commands import add_check_env_dir
from instruction_gate.console import say
from instruction_gate.errors import EXIT_GATE_FAILURE, EXIT_PASS, ConfigError
from instruction_gate.mining import history, miner
from instruction_gate.mining.report import MiningReport, Row
from instruction_gate.records import write_json_atomic, write_text_atomic
from instruction_gate.run import check_env, check_sandbox, project_env, sandbox
from instruction_gate.suite.contract import resolve_commit
from instruction_gate.suite.prepare import repo_root


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_common(parser)
    parser.add_argument("--max-commits", type=int, default=300, help="first-parent commits scanned (default 300)")
    parser.add_argument("--max-tasks", type=int, default=8, help="stop once this many tasks are kept (default 8)")
    parser.add_argument("--max-changed-lines", type=int, default=400, help="larger fixes are skipped (default 400)")
    parser.add_argument("--time-budget", type=float, default=18.0, metavar="MINUTES",
                        help="stop validating new candidates after this long (default 18)")
    parser.add_argument("--all-commits", action="store_true",
                        help="consider every commit that changes code and tests, whatever its subject says")


def add_common(parser: argparse.ArgumentParser) -> None:
    """Options `mine` and `new-task` share."""
    parser.add_argument("--repo", type=Path, default=Path.cwd(), help="repository (default: current directory)")
    parser.add_argument("--base", default="HEAD", help="commit the tasks are posed on (default HEAD)")
    parser.add_argument("--suite-dir", default="evals/instructions",
                        help="repository directory of the suite (default: %(default)s)")
    parser.add_argument("--manifest", type=Path, help="manifest to create or extend (default: SUITE_DIR/manifest.json)")
    parser.add_argument("--report", type=Path, help="mining report, Markdown; JSON next to it "
                        "(default: SUITE_DIR/mining-report.md)")
    parser.add_argument("--dry-run", action="store_true", help="validate and report, write no task")
    add_check_env_dir(parser, agent=False)
    parser.add_argument("--build-check-env", action="store_true",
                        help="build (or reuse) the project's environment from its dependency files at --base "
                             "(uv.lock, pyproject.toml, requirements*.txt) and use it for the checks")
    parser.add_argument("--temp-dir", type=Path, help="where workspaces are created (default: system temp)")
    check_sandbox.add_arguments(parser)


def _inside(repo: Path, path: Path, flag: str, must_be_inside: bool) -> Path:
    """`path` made absolute; never inside .git, and inside the repository when it must be."""
    absolute = (path if path.is_absolute() else repo / path).resolve()
    git_dir = (repo / ".git").resolve()
    if absolute == git_dir or git_dir in absolute.parents:
        raise ConfigError(f"{flag}: {path}: is inside the repository's .git directory")
    if must_be_inside and repo.resolve() not in absolute.parents:
        raise ConfigError(f"{flag}: {path}: must be inside the repository {repo} (the suite is read from its commits)")
    return absolute


def settings(args: argparse.Namespace) -> miner.Settings:
    repo = repo_root(args.repo)
    if Path(args.suite_dir).is_absolute() or ".." in Path(args.suite_dir).parts:
        raise ConfigError(f"--suite-dir: {args.suite_dir}: must be a directory inside the repository, relative to it")
    suite = _inside(repo, Path(args.suite_dir), "--suite-dir", True)
    if suite.exists() and not suite.is_dir():
        raise ConfigError(f"--suite-dir: {args.suite_dir}: exists and is not a directory")
    if getattr(args, "time_budget", 1) <= 0:
        raise ConfigError("--time-budget: must be more than 0 minutes")
    for flag in ("max_commits", "max_tasks", "max_changed_lines"):
        if getattr(args, flag, 1) is not None and getattr(args, flag, 1) < 1:
            raise ConfigError(f"--{flag.replace('_', '-')}: must be at least 1")
    base = resolve_commit(repo, args.base, "base")
    if args.check_env_dir and args.build_check_env:
        raise ConfigError("--check-env-dir and --build-check-env: give one")
    env_dir = check_env.checked_env_dir(args.check_env_dir)
    if args.build_check_env:
        env_dir, plan, reused = project_env.build(repo, base)
        say(f"check environment ({plan.tooling}): {env_dir}" + (" (reused)" if reused else " (built)"),
            file=sys.stderr, flush=True)
    manifest = _inside(repo, args.manifest or Path(args.suite_dir) / "manifest.json", "--manifest", True)
    if args.report:
        _inside(repo, args.report, "--report", False)
    return miner.Settings(repo, base, Path(args.suite_dir).as_posix(), manifest, env_dir,
                          sandbox.detect(args.unisolated, "none"), tuple(p.resolve() for p in args.sandbox_readable),
                          max_tasks=getattr(args, "max_tasks", 1), budget_seconds=getattr(args, "time_budget", 60.0) * 60,
                          temp_dir=args.temp_dir, write=not args.dry_run)


def finish(args: argparse.Namespace, chosen: miner.Settings, report: MiningReport) -> int:
    path = args.report or Path(args.suite_dir) / f"{'new-task' if args.command == 'new-task' else 'mining'}-report.md"
    path = path if path.is_absolute() else chosen.repo / path
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, report.markdown())
    write_json_atomic(path.with_suffix(".json"), report.as_json())
    say(report.markdown())
    say(f"report: {path}", file=sys.stderr)
    return EXIT_PASS if report.count("kept") else EXIT_GATE_FAILURE


def run(args: argparse.Namespace) -> int:
    chosen = settings(args)
    limits = history.Limits(args.max_commits, args.max_changed_lines, any_subject=args.all_commits)
    candidates, dropped = history.scan(chosen.repo, chosen.base, limits)
    rows = [Row(d.sha, d.subject, "not-a-candidate", d.reason) for d in dropped]
    scanned = len(candidates) + len(dropped)
    say(f"{len(candidates)} fix-shaped commit(s) of {scanned} scanned", file=sys.stderr, flush=True)
    report = miner.mine(chosen, candidates, rows, scanned, lambda line: say(line, file=sys.stderr, flush=True))
    return finish(args, chosen, report)

