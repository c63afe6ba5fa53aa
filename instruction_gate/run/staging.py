"""Build: the stage with every input commit, and each task's prompts and reference solution."""

from __future__ import annotations

from pathlib import Path

from instruction_gate.run.rule_sources import instruction_texts
from instruction_gate.run.workspace import Stage
from instruction_gate.suite.prepare import Checked, blob_text, hidden_paths


def build_stage(checked: Checked, temp_root: Path | None = None) -> tuple[Stage, dict[str, str]]:
    """Create the stage with every input commit; returns it and fixture problems by task id."""
    stage = Stage(checked.repo, temp_root)
    try:
        fixtures = {t.id: blob_text(checked.repo, checked.contract, t.fixture_patch) if t.fixture_patch else None
                    for t in checked.manifest.tasks}
        problems = stage.build(checked.contract, hidden_paths(checked), fixtures)
        if checked.contract.holds_code:
            problems = _held_code_problems(checked, stage, problems)
        stage.instruction_texts = instruction_texts(checked.repo, checked.contract)
        stage.hidden_test_info = hidden_test_info(checked)
    except BaseException:
        stage.close()
        raise
    return stage, problems


def hidden_test_info(checked: Checked) -> dict[str, str]:
    """Per task, index lines putting each hidden test's base blob at its repository path."""
    tree = checked.contract.base_tree
    return {t.id: "".join(f"{tree[source].mode} {tree[source].oid}\t{target}\0" for target, source in t.hidden_tests)
            for t in checked.manifest.tasks if t.hidden_tests}


def task_texts(checked: Checked, stage: Stage) -> tuple[dict[str, list[str]], dict[str, str | None]]:
    """Each task's prompt texts (all turns) and its reference solution's text, from the base commit.

    The solution is never written where a path could lead an agent to it: the runner hands it
    by content to the offline reference adapter only.
    """
    repo, contract = checked.repo, checked.contract
    prompts = {t.id: [blob_text(repo, contract, p) for p in t.prompt_files] for t in checked.manifest.tasks}
    solutions = {t.id: blob_text(repo, contract, t.reference_solution) if t.reference_solution else None
                 for t in checked.manifest.tasks}
    return prompts, solutions


def _held_code_problems(checked: Checked, stage: Stage, problems: dict[str, str]) -> dict[str, str]:
    """Tasks the suite cannot pose on the candidate's code: fixture or reference solution no longer applies.

    Such a task is not evaluable for this pull request (its runs are recorded as infrastructure
    failures with this reason), not a failure of either arm's agent.
    """
    found = {task: f"not evaluable with this pull request's code: {why}" for task, why in problems.items()}
    for task in checked.manifest.tasks:
        if task.id in found or not task.reference_solution:
            continue
        solution = blob_text(checked.repo, checked.contract, task.reference_solution)
        # The base arm's tree: the candidate's code with the instruction files the solution was written against.
        _tree, why = stage.apply(stage.inputs[(task.id, "base")].tree, solution)
        if why:
            found[task.id] = f"not evaluable with this pull request's code: reference solution does not apply: {why}"
    return found
