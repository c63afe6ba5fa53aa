"""Task validation's runs: each task's checks on its starting tree and with its reference solution.

Both trees are laid out exactly as an evaluation's validation workspace is (the agent-visible
tree plus the hidden suite, in a worker slot), and the checks run with the same environment
(`check_env.check_environment`) in the same sandbox (`check_sandbox`), plus the import probe.
No agent runs.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Mapping

from instruction_gate.run import check_env, check_integrity
from instruction_gate.run.check_sandbox import CheckSandbox
from instruction_gate.run.sandbox import fresh_dir
from instruction_gate.run.import_probe import ImportProbe
from instruction_gate.run.workspace import Slot, Stage
from instruction_gate.suite.manifest import Task


@dataclass
class TreeChecks:
    """The checks of one task on one tree."""

    checks: list[dict[str, Any]]
    foreign_imports: dict[str, str]  #: module -> file outside the workspace

    @property
    def passed(self) -> bool:
        return all(check_env.passed(c) for c in self.checks)


@dataclass
class TaskRuns:
    task: Task
    problem: str | None = None  #: the fixture or the reference solution does not apply
    start: TreeChecks | None = None  #: base + fixture
    solution: TreeChecks | None = None  #: base + fixture + reference solution; None without one


def with_patch(stage: Stage, tree: str, patch: str) -> tuple[str | None, str]:
    """`tree` with `patch` applied, or (None, why)."""
    index = stage.root / "task-validation.index"
    try:
        stage.git("read-tree", tree, index=index)
        applied = stage.git("apply", "--cached", "--whitespace=nowarn", "-", index=index, stdin=patch, check=False)
        if not applied.ok:
            return None, applied.stderr.strip()[-500:]
        return stage.git("write-tree", index=index).stdout.strip(), ""
    finally:
        index.unlink(missing_ok=True)


def _checks_on(slot: Slot, tree: str, task: Task, base_env: Mapping[str, str], env_dir: Path | None,
               probe: ImportProbe, confinement: CheckSandbox, restore_info: str = "") -> TreeChecks | None:
    workspace = slot.prepare_validation(tree, restore_info)
    if workspace is None:
        return None
    env = check_env.check_environment(base_env, task, workspace, env_dir)
    env.update(probe.environment(workspace, task.cwd, env.get("PYTHONPATH")))
    confinement = replace(confinement, readable=(*confinement.readable, probe.directory))
    checks = check_env.run_checks(task, workspace, env, confinement, confinement.home(workspace.parent.name),
                                  writable=(probe.report_dir,), fresh=lambda: slot.prepare_validation(tree, restore_info),
                                  reports=fresh_dir(workspace.parent / "check-reports"))
    return TreeChecks(checks, probe.foreign_imports())


def run_task(stage: Stage, slot: Slot, task: Task, solution: str | None, artifacts: str | None,
             fixture_problem: str | None, base_env: Mapping[str, str], env_dir: Path | None,
             confinement: CheckSandbox = CheckSandbox()) -> TaskRuns:
    """The task's checks on its starting tree, then on that tree plus `solution` and `artifacts`
    (patch texts: the reference solution and the task's reference_artifacts)."""
    runs = TaskRuns(task)
    if fixture_problem:
        runs.problem = fixture_problem
        return runs
    probe = ImportProbe(stage.root)
    start_tree = stage.inputs[(task.id, "base")].tree
    runs.start = _checks_on(slot, start_tree, task, base_env, env_dir, probe, confinement,
                            stage.hidden_test_info.get(task.id, ""))
    if runs.start is None:
        runs.problem = "the suite's files conflict with the starting tree"
        return runs
    if solution is None:
        return runs
    solved, why = with_patch(stage, start_tree, solution)
    if solved is None:
        runs.problem = f"reference solution does not apply to the starting tree: {why}"
        return runs
    if artifacts:
        solved, why = with_patch(stage, solved, artifacts)
        if solved is None:
            runs.problem = f"reference_artifacts do not apply after the reference solution: {why}"
            return runs
    # As an evaluation would judge a perfect agent: steering files the solution changes are restored
    # (a solution that needs one fails here, naming the need for check_files_allowed).
    restore = check_integrity.inspect(stage, task, start_tree, solved,
                                      installed=check_integrity.installed_modules(env_dir)).restore_info
    runs.solution = _checks_on(slot, solved, task, base_env, env_dir, probe, confinement, restore)
    if runs.solution is None:
        runs.problem = "the reference solution conflicts with the suite's files"
    return runs
