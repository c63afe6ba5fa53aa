"""`validate-tasks`: does each task's evidence measure the agent's work? No agent runs.

For every task, in the evaluation's validation workspace and check environment: the checks
must fail on the starting tree (base + fixture) unless the task declares `checks_pass_at_start`,
and must pass once the reference solution is applied. A table per task (valid, vacuous, broken,
unverified); exit 1 when any task is not valid, 2 for configuration errors.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from instruction_gate.commands import validate
from instruction_gate.errors import EXIT_GATE_FAILURE, EXIT_PASS, ConfigError
from instruction_gate.protected import check_repository_outputs
from instruction_gate.records import write_json_atomic
from instruction_gate.report import textfmt as fmt
from instruction_gate.report.tables import table
from instruction_gate.run import check_env, check_sandbox, sandbox, sandbox_paths
from instruction_gate.run.staging import build_stage, task_texts
from instruction_gate.run.task_validation import TaskRuns, TreeChecks, run_task
from instruction_gate.run.workspace import Slot
from instruction_gate.secrets import Redactor, split_environment
from instruction_gate.suite.prepare import blob_text, check_all
from instruction_gate.verdict import check_health
from instruction_gate.verdict.policy import policy_from_dict
from instruction_gate.console import say

TAIL_LINES = 12


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--repo", type=Path, default=Path.cwd(), help="repository (default: current directory)")
    parser.add_argument("--manifest", type=Path, required=True, help="suite manifest (JSON or YAML)")
    parser.add_argument("--base", default="HEAD", help="commit whose suite and code are validated (default HEAD)")
    parser.add_argument("--tasks", nargs="+", metavar="ID", help="validate only these task ids")
    parser.add_argument("--check-env-dir", type=Path, metavar="DIR",
                        help="the project's environment for the checks, as given to evaluate")
    parser.add_argument("--json", type=Path, dest="json_path", help="also write the results as JSON here")
    parser.add_argument("--temp-dir", type=Path, help="where workspaces are created (default: system temp)")
    check_sandbox.add_arguments(parser)


@dataclass(frozen=True)
class Verdict:
    task_id: str
    status: str  #: valid | vacuous | broken | unverified
    reason: str
    tail: str  #: last lines of the failing check's output, when one is to blame


def _failing(result: TreeChecks) -> dict | None:
    return next((c for c in result.checks if not check_env.passed(c)), None)


def _describe(check: dict) -> str:
    outcome = "timed out" if check["timed_out"] else ("could not start" if check["exit_code"] is None
                                                       else f"exit {check['exit_code']}")
    if check["exit_code"] == 0 and check.get("not_passed_because"):
        outcome += f", but {check['not_passed_because']}"
    return f"`{' '.join(check['argv'])}` ({outcome})"


def _tail(check: dict | None) -> str:
    if check is None:
        return ""
    text = f"{check.get('stdout_tail') or ''}\n{check.get('stderr_tail') or ''}".strip()
    return "\n".join(text.splitlines()[-TAIL_LINES:])


def _foreign(result: TreeChecks | None) -> str | None:
    if result is None or not result.foreign_imports:
        return None
    name, where = sorted(result.foreign_imports.items())[0]
    return (f"checks import {name} from {where}, outside the validation workspace (an installed copy: the "
            "checks do not see the agent's tree)")


def judge(runs: TaskRuns, signatures: list[check_health.Signature]) -> Verdict:
    task = runs.task
    if runs.problem:
        return Verdict(task.id, "broken", runs.problem, "")
    assert runs.start is not None
    foreign = _foreign(runs.start) or _foreign(runs.solution)
    if foreign:  # the root cause, whatever the checks said
        return Verdict(task.id, "vacuous", foreign, "")
    if runs.solution is not None and not runs.solution.passed:
        check = _failing(runs.solution)
        env = check_health.environment_failure({"checks": [check]}, signatures)
        why = f" — the check environment looks broken ({env})" if env else ""
        return Verdict(task.id, "broken", f"with the reference solution, {_describe(check)} fails{why}", _tail(check))
    if task.checks_pass_at_start and not runs.start.passed:
        check = _failing(runs.start)
        return Verdict(task.id, "broken", f"declares checks_pass_at_start, but {_describe(check)} fails on the "
                                          "starting tree", _tail(check))
    if not task.checks_pass_at_start and runs.start.passed:
        what = "has no checks" if not task.checks else "its checks pass on the starting tree (base + fixture)"
        return Verdict(task.id, "vacuous", f"{what}: they cannot tell a solved task from an unsolved one "
                                           "(a negative control declares checks_pass_at_start)", "")
    if runs.solution is None and not task.checks_pass_at_start:
        check = _failing(runs.start)
        return Verdict(task.id, "unverified", f"no reference_solution: nothing shows the checks can pass "
                                              f"({_describe(check)} fails on the starting tree)", _tail(check))
    if task.checks_pass_at_start:
        return Verdict(task.id, "valid", "checks pass on the starting tree, as declared"
                       + ("" if runs.solution is None else ", and with the reference solution"), "")
    check = _failing(runs.start)
    return Verdict(task.id, "valid", f"{_describe(check)} fails on the starting tree; every check passes with "
                                     "the reference solution", _tail(check))


def render(verdicts: list[Verdict]) -> str:
    rows = [[fmt.md(v.task_id), ("✅ " if v.status == "valid" else "❌ ") + v.status, fmt.md(v.reason, 400),
             fmt.md(v.tail.replace("\n", " ⏎ "), 600)] for v in verdicts]
    bad = sum(v.status != "valid" for v in verdicts)
    head = f"## Task validation: {len(verdicts) - bad} of {len(verdicts)} task(s) valid"
    return "\n".join([head, "", *table(["task", "status", "why", "failing check's output (tail)"], rows), ""])


def run(args: argparse.Namespace) -> int:
    checked = check_all(args.repo, args.manifest, args.base, args.base, allow_identical=True, warn=validate.warn)
    manifest = checked.manifest
    check_repository_outputs(checked.repo, {"--json": args.json_path} if args.json_path else {}, [args.manifest],
                             manifest.instruction_paths)
    unknown = sorted(set(args.tasks or []) - {t.id for t in manifest.tasks})
    if unknown:
        raise ConfigError(f"--tasks: unknown task ids {unknown}; known: {[t.id for t in manifest.tasks]}")
    env_dir = check_env.checked_env_dir(args.check_env_dir)
    check_env.refuse_bad_settings(manifest, env_dir, ())
    envs = split_environment()
    redact = Redactor(envs.secret_values)
    signatures = check_health.signatures(policy_from_dict({}))
    mechanism = sandbox.detect(args.unisolated, "none")
    stage, fixture_problems = build_stage(checked, args.temp_dir)
    verdicts = []
    try:
        _, solutions = task_texts(checked, stage)
        slot = Slot(stage, 0)
        shown = (*sandbox_paths.harness_paths(), *(p.resolve() for p in args.sandbox_readable))
        hidden = (checked.repo, args.manifest.parent.absolute())
        for task in manifest.tasks:
            if args.tasks and task.id not in args.tasks:
                continue
            solution = solutions.get(task.id)  # the patch text (never a path an agent could follow)
            artifacts = blob_text(checked.repo, checked.contract, task.reference_artifacts) \
                if task.reference_artifacts else None
            checks_env = check_env.check_environment(envs.agent, task, slot.validation, env_dir)
            confinement = check_sandbox.for_checks(mechanism, shown, env_dir, checks_env, stage.root, hidden)
            runs = run_task(stage, slot, task, solution, artifacts, fixture_problems.get(task.id), envs.agent, env_dir,
                            confinement)
            verdict = judge(runs, signatures)
            verdicts.append(Verdict(verdict.task_id, verdict.status, redact(verdict.reason), redact(verdict.tail)))
            say(f"{task.id}: {verdict.status}", file=sys.stderr, flush=True)
    finally:
        stage.close()
    say(render(verdicts))
    if args.json_path:
        write_json_atomic(args.json_path, {"schema_version": 1, "kind": "instruction-gate/task-validation",
                                           "tasks": [vars(v) for v in verdicts]})
    return EXIT_PASS if all(v.status == "valid" for v in verdicts) else EXIT_GATE_FAILURE
