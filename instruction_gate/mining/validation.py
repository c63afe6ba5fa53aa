"""Mined candidates validated exactly as `validate-tasks` validates a suite, twice.

All candidates go into one scratch commit (the base plus their task folders) and one stage;
each is then judged like any task: checks fail on the starting tree, pass with the reference
solution, in the check sandbox with the check environment and a timeout. A candidate is kept
only when that holds in two rounds (a flaky test is dropped), with the reason for every drop.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from instruction_gate.console import say
from instruction_gate.mining import scratch
from instruction_gate.run import check_env, check_sandbox, sandbox_paths
from instruction_gate.run.sandbox import Sandbox
from instruction_gate.run.staging import build_stage, task_texts
from instruction_gate.run.task_validation import TaskRuns, run_task
from instruction_gate.run.task_verdict import judge
from instruction_gate.run.workspace import Slot
from instruction_gate.secrets import split_environment
from instruction_gate.suite.prepare import check_all
from instruction_gate.verdict import check_health
from instruction_gate.verdict.policy import policy_from_dict

ROUNDS = 2


@dataclass(frozen=True)
class Outcome:
    task_id: str
    kept: bool
    reason: str  #: why it was dropped, or what the starting tree's failure was
    seconds: float  #: time spent validating it


def _why_dropped(runs: TaskRuns, status: str, reason: str) -> str:
    """The validation verdict in the words of the mining report's drop classes."""
    checks = (runs.solution.checks if runs.solution else []) + (runs.start.checks if runs.start else [])
    if any(c.get("timed_out") for c in checks):
        return f"hangs: a check timed out ({reason})"
    solved = runs.solution.checks if runs.solution else []
    if any((c.get("tests") or {}).get("tests") and c["tests"]["tests"] == c["tests"].get("skipped") for c in solved):
        return "platform-only: the hidden tests are skipped on this machine"
    if status == "vacuous":
        return f"the tests pass without the fix ({reason})"
    return reason


#: pytest's exit codes for a run that never reached the tests (interrupted, internal, usage, none collected).
NOT_A_TEST_RUN = {2: "collection interrupted", 3: "internal error", 4: "usage or collection error", 5: "no tests collected"}


def _start_failure(runs: TaskRuns) -> str | None:
    """Why the starting tree fails for the wrong reason: the checks never reached the tests."""
    for check in runs.start.checks if runs.start else []:
        if check.get("exit_code") in NOT_A_TEST_RUN:
            return (f"the starting tree fails before any test runs (pytest exit {check['exit_code']}: "
                    f"{NOT_A_TEST_RUN[check['exit_code']]})")
    return None


def validate(repo: Path, base: str, manifest: Mapping[str, Any], files: Mapping[str, bytes], env_dir: Path | None,
             mechanism: Sandbox, readable: Sequence[Path], temp_dir: Path | None = None,
             progress: Callable[[str], None] = lambda line: say(line, file=sys.stderr, flush=True)) -> list[Outcome]:
    """Validate every task of `manifest` (whose files are `files`) on `base`; one outcome each."""
    commit = scratch.commit_with(repo, base, files)
    with tempfile.TemporaryDirectory(prefix="ig-mine-manifest-") as holder:
        manifest_path = Path(holder) / "manifest.json"
        manifest_path.write_text(json.dumps(manifest))
        checked = check_all(repo, manifest_path, commit, commit, allow_identical=True)
        envs = split_environment()
        signatures = check_health.signatures(policy_from_dict({}))
        stage, fixture_problems = build_stage(checked, temp_dir)
        outcomes = []
        # A task flagged for importing names the fix creates fails at collection by design.
        leaks = {t["id"]: any("import names the fix creates" in f for f in t.get("origin", {}).get("flags", []))
                 for t in manifest["tasks"]}
        try:
            _, solutions = task_texts(checked, stage)
            slot = Slot(stage, 0)
            for task in checked.manifest.tasks:
                started = time.monotonic()
                checks_env = check_env.check_environment(envs.agent, task, slot.validation, env_dir)
                confinement = check_sandbox.for_checks(mechanism, (*sandbox_paths.harness_paths(), *readable),
                                                       env_dir, checks_env, stage.root, (repo,))
                reason, kept = "", True
                for round_number in range(ROUNDS):
                    runs = run_task(stage, slot, task, solutions.get(task.id), None, fixture_problems.get(task.id),
                                    envs.agent, env_dir, confinement)
                    verdict = judge(runs, signatures)
                    if verdict.status == "valid" and (wrong := _start_failure(runs)) and not leaks.get(task.id):
                        reason, kept = wrong, False
                        break
                    if verdict.status != "valid":
                        reason, kept = _why_dropped(runs, verdict.status, verdict.reason), False
                        if round_number:  # valid once, not twice: the tests do not decide the same way
                            reason = f"flaky: valid in the first round, then {reason}"
                        break
                    reason = verdict.reason
                outcomes.append(Outcome(task.id, kept, reason, time.monotonic() - started))
                progress(f"{task.id}: {'kept' if kept else 'dropped: ' + reason}")
        finally:
            stage.close()
    return outcomes
