"""`backtest`: what the gate would have said about a repository's past instruction changes.

Every first-parent commit in `--range` that changes instruction files is evaluated against its
parent, with the suite, checks and policy of `--suite-ref` (a trusted ref, e.g. the default
branch) and mixed commits' code held fixed. One row per commit in OUT/backtest.md (with a
Mermaid chart) and OUT/backtest.json. Finished commits are kept: running the same command
again continues where an interruption stopped. `--check-env-dir` is handed to every commit's
evaluation. Exit 0 when every commit has a row (verdicts
are data, not the exit code), 2 for configuration errors, 3 when interrupted.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shlex
import shutil
import sys
from pathlib import Path

from instruction_gate import demo_repo, git, proc
from instruction_gate.backtest import commit_run, table
from instruction_gate.backtest.history import Replay, instruction_commits
from instruction_gate.commands import add_check_env_dir
from instruction_gate.commands.evaluate import _terminate_on_sigterm
from instruction_gate.errors import ConfigError
from instruction_gate.protected import check_repository_outputs, in_directory
from instruction_gate.records import write_json_atomic
from instruction_gate.run import check_env
from instruction_gate.run.adapter import checked_adapter_command
from instruction_gate.secrets import split_environment
from instruction_gate.suite.contract import resolve_commit
from instruction_gate.suite.prepare import repo_root
from instruction_gate.verdict.policy import load_policy
from instruction_gate.console import say


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--repo", type=Path, default=Path.cwd(), help="repository (default: current directory)")
    parser.add_argument("--suite-ref", default="HEAD", help="trusted ref the suite, checks and policy come from (default HEAD)")
    parser.add_argument("--manifest", default="evals/instructions/manifest.json",
                        help="manifest path inside the repository, read at --suite-ref (default: %(default)s)")
    parser.add_argument("--policy", help="policy path inside the repository, read at --suite-ref (default: policy.json "
                        "next to the manifest, if there)")
    parser.add_argument("--range", dest="revisions", help="rev-list range to replay, e.g. v1.0..main (default: --suite-ref)")
    parser.add_argument("--max-commits", type=int, help="only the newest N instruction commits of the range")
    parser.add_argument("--out", type=Path, required=True, help="output directory (reused to resume)")
    parser.add_argument("--adapter", help="adapter command (default: $AGENT_ADAPTER_CMD)")
    parser.add_argument("--adapter-option", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--jobs", type=int, default=1, help="runs executed concurrently per commit (default 1)")
    parser.add_argument("--repeats", type=int, help="override the manifest's repeats")
    parser.add_argument("--tasks", nargs="+", metavar="ID", help="evaluate only these task ids")
    parser.add_argument("--demo", action="store_true", help="backtest the demo repository's history (built in "
                        "OUT/demo-repo) with the offline reference agent; --repo and --adapter are then not needed")
    add_check_env_dir(parser)


def _blob(repo: Path, commit: str, path: str) -> bytes | None:
    return git.blob(f"{commit}:{path}", repo, missing_ok=True)


def _runner_flags(args: argparse.Namespace, env_dir: Path | None) -> tuple[str, ...]:
    command = args.adapter or os.environ.get("AGENT_ADAPTER_CMD")
    if not command:
        raise ConfigError("no adapter: pass --adapter or set AGENT_ADAPTER_CMD")
    if args.max_commits is not None and args.max_commits < 1:
        raise ConfigError("--max-commits: must be at least 1")
    # The runner starts in the replay repository: relative adapter paths are resolved here.
    flags = ["--adapter", shlex.join(checked_adapter_command(command, Path.cwd(), split_environment().adapter)),
             "--jobs", str(args.jobs)]
    flags += [f"--adapter-option={option}" for option in args.adapter_option]
    if args.repeats is not None:
        flags += ["--repeats", str(args.repeats)]
    if args.tasks:
        flags += ["--tasks", *args.tasks]
    if env_dir is not None:  # absolute: the runner starts in the replay repository
        flags += ["--check-env-dir", str(env_dir)]
    return tuple(flags)


def _previous(out: Path, digest: str) -> None:
    """Refuse to continue a backtest recorded under another suite or policy: its rows answer other tasks."""
    path = out / "backtest.json"
    if path.is_file():
        recorded = json.loads(path.read_text(encoding="utf-8")).get("suite_digest")
        if recorded != digest:
            raise ConfigError(f"{path}: recorded with another suite or policy (digest {str(recorded)[:12]}, now "
                              f"{digest[:12]}); use another --out")


def _demo(args: argparse.Namespace) -> None:
    """Point --repo and --adapter at the demo history, building it on the first run."""
    repo = args.out.resolve() / "demo-repo"
    if not (repo / ".git").is_dir():
        shutil.rmtree(repo, ignore_errors=True)
        demo_repo.build_history(repo)
    args.repo = repo
    args.adapter = args.adapter or str(repo / demo_repo.SUITE_DIR / "adapters" / "reference")


def run(args: argparse.Namespace) -> int:
    if args.out.exists() and not args.out.is_dir():
        raise ConfigError(f"--out: {args.out} exists and is not a directory")
    env_dir = check_env.checked_env_dir(args.check_env_dir)
    if args.demo:
        _demo(args)
    repo = repo_root(args.repo)
    suite_sha = resolve_commit(repo, args.suite_ref, "suite-ref")
    manifest_bytes = _blob(repo, suite_sha, args.manifest)
    if manifest_bytes is None:
        raise ConfigError(f"--manifest: {args.manifest} does not exist at --suite-ref {args.suite_ref} ({suite_sha[:12]})")
    policy_rel = args.policy or str(Path(args.manifest).parent / "policy.json")
    policy_bytes = _blob(repo, suite_sha, policy_rel) or b"{}\n"
    if policy_bytes == b"{}\n" and args.policy:
        raise ConfigError(f"--policy: {args.policy} does not exist at --suite-ref {args.suite_ref} ({suite_sha[:12]})")
    flags = _runner_flags(args, env_dir)
    revisions = args.revisions or suite_sha
    with Replay(repo, manifest_bytes, args.manifest, suite_sha) as replay:
        # The suite is read from git objects; the working tree's copies are still not to be replaced.
        check_repository_outputs(repo, in_directory("--out", args.out, ("backtest.json", "backtest.md", "policy.json")),
                                 [repo / args.manifest, repo / policy_rel], replay.manifest.instruction_paths,
                                 dirs={"--out": args.out})
        # Refused once here rather than as an error row per commit; which check_path entries hold
        # changed files depends on the commit, and the runner refuses those per commit.
        check_env.refuse_bad_settings(dataclasses.replace(replay.manifest, path=Path(args.manifest)), env_dir, ())
        commits = instruction_commits(repo, replay.manifest.instruction_paths, revisions)
        if args.max_commits is not None:
            commits = commits[-args.max_commits:]
        digest = replay.digest(policy_bytes)
        args.out.mkdir(parents=True, exist_ok=True)
        out = args.out.resolve()
        _previous(out, digest)
        policy = out / "policy.json"
        policy.write_bytes(policy_bytes)
        load_policy(policy)
        work = out / ".work"
        shutil.rmtree(work, ignore_errors=True)  # workspaces an interrupted run left behind
        work.mkdir()
        header = {"suite_ref": args.suite_ref, "suite_sha": suite_sha, "suite_digest": digest, "range": revisions,
                  "repository": str(repo)}
        say(f"backtest: {len(commits)} instruction commits in {revisions}; suite from {args.suite_ref} "
              f"({suite_sha[:12]})", file=sys.stderr)
        _terminate_on_sigterm()
        rows = _replay_all(replay, commits, commit_run.Setup(replay.root, replay.manifest_path, policy, flags, work),
                           out, header)
    shutil.rmtree(work, ignore_errors=True)
    say(f"backtest: {len(rows)} commits in {out / 'backtest.md'}", file=sys.stderr)
    return 0


def _replay_all(replay: Replay, commits: list, setup: commit_run.Setup, out: Path, header: dict) -> list[dict]:
    """Every commit in order, finished ones kept; the outputs rewritten after each (and on an interruption)."""
    rows: list[dict] = []
    try:
        for number, commit in enumerate(commits, 1):
            directory = out / "commits" / commit.sha[:12]
            row = commit_run.finished(directory)
            state = "kept"
            if row is None:
                directory.mkdir(parents=True, exist_ok=True)
                base, candidate = replay.pair(commit)
                row = commit_run.evaluate(commit, base, candidate, directory, setup)
                state = "evaluated"
            rows.append(row)
            say(f"[{number}/{len(commits)}] {commit.sha[:12]} {commit.subject[:60]}: {row['verdict']} "
                  f"({state}, {row['runs']} runs)", file=sys.stderr, flush=True)
            _write(out, rows, header)
    except KeyboardInterrupt:
        proc.kill_all_live()
        _write(out, rows, header)
        raise
    _write(out, rows, header)
    return rows


def _write(out: Path, rows: list[dict], header: dict) -> None:
    doc = table.document(rows, header)
    write_json_atomic(out / "backtest.json", doc)
    (out / "backtest.md").write_text(table.markdown(doc), encoding="utf-8")
