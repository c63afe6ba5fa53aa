"""`validate-tasks`: does each task's evidence measure the agent's work? No agent runs.

For every task, in the evaluation's validation workspace and check environment: the checks
must fail on the starting tree (base + fixture) unless the task declares `checks_pass_at_start`,
and must pass once the reference solution is applied. A table per task (valid, vacuous, broken,
unverified); exit 1 when any task is not valid, 2 for configuration errors.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from instruction_gate.commands import add_check_env_dir, validate
from instruction_gate.errors import EXIT_GATE_FAILURE, EXIT_PASS, ConfigError
from instruction_gate.protected import check_repository_outputs
from instruction_gate.records import write_json_atomic
from instruction_gate.report import textfmt as fmt
from instruction_gate.report.tables import table
from instruction_gate.run import base_arm, check_env, check_sandbox, sandbox, sandbox_paths
from instruction_gate.run.staging import build_stage, task_texts
from instruction_gate.run.task_validation import run_task
from instruction_gate.run.task_verdict import Verdict, judge
from instruction_gate.run.workspace import Slot
from instruction_gate.secrets import Redactor, split_environment
from instruction_gate.suite.prepare import blob_text, check_all
from instruction_gate.verdict import check_health
from instruction_gate.verdict.policy import policy_from_dict
from instruction_gate.console import say


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--repo", type=Path, default=Path.cwd(), help="repository (default: current directory)")
    parser.add_argument("--manifest", type=Path, required=True, help="suite manifest (JSON or YAML)")
    parser.add_argument("--base", default="HEAD", help="commit whose suite and code are validated (default HEAD)")
    parser.add_argument("--tasks", nargs="+", metavar="ID", help="validate only these task ids")
    add_check_env_dir(parser, agent=False)
    parser.add_argument("--json", type=Path, dest="json_path", help="also write the results as JSON here")
    parser.add_argument("--temp-dir", type=Path, help="where workspaces are created (default: system temp)")
    parser.add_argument("--adapter", help="agent of the base-arm runs (default: the offline reference agent)")
    parser.add_argument("--adapter-option", action="append", default=[], metavar="KEY=VALUE",
                        help="passed to that adapter (repeatable)")
    parser.add_argument("--jobs", type=int, default=1, help="base-arm runs executed concurrently (default 1)")
    parser.add_argument("--base-arm-out", type=Path, metavar="DIR",
                        help="keep the base-arm runs' records here (default: a temporary directory, removed)")
    parser.add_argument("--no-base-arm", action="store_true",
                        help="only the checks: skip the base-arm runs that show whether the suite can see what it gates")
    check_sandbox.add_arguments(parser)


def render(verdicts: list[Verdict], arms: dict[str, base_arm.BaseArm] | None = None) -> str:
    rows = [[fmt.md(v.task_id), ("✅ " if v.status == "valid" else "❌ ") + v.status, fmt.md(v.reason, 400),
             fmt.md(v.tail.replace("\n", " ⏎ "), 600)] for v in verdicts]
    bad = sum(v.status != "valid" for v in verdicts)
    head = f"## Task validation: {len(verdicts) - bad} of {len(verdicts)} task(s) valid"
    lines = [head, "", *table(["task", "status", "why", "failing check's output (tail)"], rows), ""]
    if arms:
        lines += ["### Base arm: what the base instructions make the agent do (one run per task)", ""]
        lines += table(["task", "commands run (exit code)", "rules satisfied", "blind because"], [
            [fmt.md(a.task_id), fmt.md(", ".join(f"`{c['command']}` ({c['exit_code']})" for c in a.commands) or "none", 400),
             fmt.md(", ".join(a.satisfied) or "none", 300), fmt.md("; ".join(a.blind) or "—", 500)]
            for a in arms.values()]) + [""]
    return "\n".join(lines)


def _with_base_arm(verdicts: list[Verdict], arms: dict[str, base_arm.BaseArm]) -> list[Verdict]:
    """A task whose checks are valid but whose base arm cannot see an edit is `blind`."""
    return [Verdict(v.task_id, "blind", "; ".join(arms[v.task_id].blind), v.tail)
            if v.status == "valid" and v.task_id in arms and arms[v.task_id].blind else v for v in verdicts]


def run(args: argparse.Namespace) -> int:
    checked = check_all(args.repo, args.manifest, args.base, args.base, allow_identical=True, warn=validate.warn)
    manifest = checked.manifest
    outputs = {flag: path for flag, path in (("--json", args.json_path), ("--base-arm-out", args.base_arm_out)) if path}
    check_repository_outputs(checked.repo, outputs, [args.manifest],
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
            say(f"{task.id}: checks {verdict.status}", file=sys.stderr, flush=True)
    finally:
        stage.close()
    arms = None
    if not args.no_base_arm and any(v.status == "valid" for v in verdicts):
        say("base arm: one run per task with the base instructions, one without", file=sys.stderr, flush=True)
        extra = [a for o in args.adapter_option for a in ("--adapter-option", o)] + ["--jobs", str(args.jobs)]
        extra += ["--tasks", *args.tasks] if args.tasks else []
        extra += ["--check-env-dir", str(env_dir)] if env_dir else []
        extra += ["--unisolated"] if args.unisolated else []
        extra += [a for p in args.sandbox_readable for a in ("--sandbox-readable", str(p))]
        arms = base_arm.probe(checked.repo, args.manifest, checked.contract.base_sha,
                              sorted(checked.contract.base_instructions), args.adapter or str(base_arm.REFERENCE_ADAPTER),
                              extra, args.temp_dir, args.base_arm_out)
        verdicts = _with_base_arm(verdicts, arms)
    say(render(verdicts, arms))
    if args.json_path:
        write_json_atomic(args.json_path, {"schema_version": 1, "kind": "instruction-gate/task-validation",
                                           "tasks": [{**vars(v), "base_arm": vars(arms[v.task_id]) if arms and v.task_id in arms else None}
                                                     for v in verdicts]})
    return EXIT_PASS if all(v.status == "valid" for v in verdicts) else EXIT_GATE_FAILURE
