"""`demo`: run the whole gate on the embedded example, with the offline reference agent.

Builds a throwaway repository from `examples/repo` with this harness at `evals/instructions/`,
commits a base and a candidate, then runs `runner.py` and `compare.py` as subprocesses exactly
as CI does. Without `--candidate` it shows both sides: a benign edit (expected to pass) and a
mutation (expected to fail); the exit code says whether both came out as expected. With
`--candidate` the exit code is that gate's.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

from instruction_gate import demo_repo, proc
from instruction_gate.errors import EXIT_GATE_FAILURE, EXIT_PASS, EXIT_USAGE
from instruction_gate.console import say

#: The mutation shown next to the benign edit when no candidate is chosen.
DEFAULT_MUTATION = "contradiction"
_VERDICTS = {0: "pass", 1: "fail", 2: "error", 3: "could not evaluate"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--candidate", help="benign, a mutation name (contradiction, stale-command, "
                        "truncation-tail) or the path of an AGENTS.md to evaluate; default: benign and "
                        f"{DEFAULT_MUTATION}, side by side")
    parser.add_argument("--output-dir", type=Path, default=Path("demo-output"),
                        help="where the demo repositories and results go (default: demo-output)")
    parser.add_argument("--jobs", type=int, default=2, help="concurrent runs (default 2)")
    parser.add_argument("--repeats", type=int, help="override the suite's repeats")
    parser.add_argument("--skip-probability", type=float, default=0.0,
                        help="stochastic mode: the reference agent overlooks each directive with this chance")
    parser.add_argument("--seed", type=int, default=0, help="seed of the stochastic mode")
    parser.add_argument("--blame", action="store_true",
                        help="on a FAIL, run `blame` on the failing tasks (try --candidate mixed)")
    parser.add_argument("--blame-max-agent-runs", type=int, help="blame's run budget (default: the policy's)")


@dataclass
class Outcome:
    """One candidate's trip through the gate."""

    name: str
    exit_code: int
    results: Path
    summary: Path | None
    regressions: dict[str, list[str]] = field(default_factory=dict)  #: task -> hard gates new in the candidate
    blame_exit: int | None = None  #: `blame`'s exit code when it ran

    @property
    def verdict(self) -> str:
        return _VERDICTS.get(self.exit_code, f"exit {self.exit_code}")


def candidate_regressions(index_path: Path) -> dict[str, list[str]]:
    """Per task, the hard gates some candidate run failed while its paired base run did not."""
    runs = json.loads(index_path.read_text(encoding="utf-8")).get("runs", [])
    by_key = {(r["task_id"], r["repeat"], r["variant"]): r for r in runs}
    found: dict[str, set[str]] = {}
    for (task_id, repeat, variant), record in by_key.items():
        base = by_key.get((task_id, repeat, "base"))
        if variant == "candidate" and base is not None and record.get("valid") and base.get("valid"):
            new = set(record.get("hard_failures", [])) - set(base.get("hard_failures", []))
            if new:
                found.setdefault(task_id, set()).update(new)
    return {task: sorted(gates) for task, gates in sorted(found.items())}


def _show(result: proc.ProcResult, lines: int = 12) -> None:
    for line in (result.stderr.strip().splitlines() + result.stdout.strip().splitlines())[-lines:]:
        say(f"    {line}")


def evaluate(candidate: demo_repo.Candidate, args: argparse.Namespace) -> Outcome:
    """Build the demo repository for `candidate`, run the evaluation and the comparison."""
    work = args.output_dir.resolve() / candidate.name
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    repo = demo_repo.build(work / "repo", candidate)
    results = work / "results"
    suite = repo.suite
    runner = [sys.executable, str(suite / "runner.py"), "--repo", str(repo.path),
              "--manifest", str(suite / "manifest.json"), "--base", repo.base, "--candidate", repo.candidate,
              "--out", str(results), "--adapter", str(suite / "adapters" / "reference"),
              "--jobs", str(args.jobs), "--adapter-option", f"seed={args.seed}",
              "--adapter-option", f"skip_probability={args.skip_probability}"]
    if args.repeats:
        runner += ["--repeats", str(args.repeats)]
    say(f"[{candidate.name}] paired evaluation: {repo.path} (base {repo.base[:8]}, candidate {repo.candidate[:8]})",
          flush=True)
    evaluated = proc.run(runner, repo.path)
    for line in evaluated.stderr.splitlines():
        if "runs recorded" in line:
            say(f"    {line.strip()}")
    if not (results / "index.json").is_file() or evaluated.exit_code == EXIT_USAGE:
        _show(evaluated)
        return Outcome(candidate.name, evaluated.exit_code if evaluated.exit_code is not None else EXIT_USAGE,
                       results, None)
    summary = results / "summary.md"
    compare = [sys.executable, str(suite / "compare.py"), "--results", str(results),
               "--policy", str(suite / "policy.json"), "--summary", str(summary)]
    compared = proc.run(compare, repo.path)
    if compared.exit_code not in (0, 1) or not summary.is_file():
        _show(compared)
    exit_code = compared.exit_code if compared.exit_code is not None else EXIT_USAGE
    outcome = Outcome(candidate.name, exit_code, results, summary if summary.is_file() else None,
                      candidate_regressions(results / "index.json"))
    if args.blame and exit_code == EXIT_GATE_FAILURE:
        outcome.blame_exit = blame(repo, results, work / "blame", args)
    return outcome


def blame(repo: demo_repo.DemoRepo, results: Path, out: Path, args: argparse.Namespace) -> int:
    """`blame` on the failing tasks, run from the vendored harness like the other commands."""
    suite = repo.suite
    command = [sys.executable, str(suite / "blame.py"), "--repo", str(repo.path),
               "--manifest", str(suite / "manifest.json"), "--base", repo.base, "--candidate", repo.candidate,
               "--results", str(results), "--out", str(out), "--adapter", str(suite / "adapters" / "reference"),
               "--jobs", str(args.jobs), "--adapter-option", f"seed={args.seed}",
               "--adapter-option", f"skip_probability={args.skip_probability}"]
    if args.blame_max_agent_runs:
        command += ["--max-agent-runs", str(args.blame_max_agent_runs)]
    blamed = proc.run(command, repo.path)
    if blamed.exit_code != EXIT_PASS or not (out / "blame.md").is_file():
        _show(blamed)
    return blamed.exit_code if blamed.exit_code is not None else EXIT_USAGE


def report(outcome: Outcome) -> None:
    say(f"[{outcome.name}] verdict: {outcome.verdict.upper()} (exit {outcome.exit_code})")
    if outcome.summary:
        headline = outcome.summary.read_text(encoding="utf-8").lstrip().splitlines()[0]
        say(f"    {headline.lstrip('# ')}")
    for task, gates in outcome.regressions.items():
        say(f"    {task}: {', '.join(gates)}")
    say(f"    artifacts: {outcome.results}")
    if outcome.summary:
        say(f"    summary:   {outcome.summary}")
    blame_md = outcome.results.parent / "blame" / "blame.md"
    if outcome.blame_exit is not None:
        found = [line.strip("* ") for line in blame_md.read_text(encoding="utf-8").splitlines()
                 if line.startswith("**")] if blame_md.is_file() else []
        say(f"    blame:     exit {outcome.blame_exit}" + (f"; {found[0]}" if found else "")
              + (f" ({blame_md})" if blame_md.is_file() else ""))


def run(args: argparse.Namespace) -> int:
    if args.candidate:
        outcome = evaluate(demo_repo.resolve_candidate(args.candidate), args)
        report(outcome)
        if outcome.blame_exit not in (None, EXIT_PASS):
            return outcome.blame_exit
        return outcome.exit_code
    benign = evaluate(demo_repo.resolve_candidate("benign"), args)
    report(benign)
    mutated = evaluate(demo_repo.resolve_candidate(DEFAULT_MUTATION), args)
    report(mutated)
    as_expected = benign.exit_code == EXIT_PASS and mutated.exit_code == EXIT_GATE_FAILURE
    say(f"demo: benign edit {benign.verdict}, {DEFAULT_MUTATION} mutation {mutated.verdict}: "
          + ("as expected" if as_expected else "NOT as expected"))
    return EXIT_PASS if as_expected else EXIT_GATE_FAILURE
