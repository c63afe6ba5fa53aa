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
        stage.instruction_texts = instruction_texts(checked.repo, checked.contract)
    except BaseException:
        stage.close()
        raise
    return stage, problems


def task_texts(checked: Checked, stage: Stage) -> tuple[dict[str, list[str]], dict[str, Path | None]]:
    """Each task's prompt texts (all turns) and its reference solution written into the stage.

    Both come from the base commit. The solution lives in the stage, outside every workspace,
    so only the adapter that is handed its path can read it.
    """
    repo, contract = checked.repo, checked.contract
    prompts = {t.id: [blob_text(repo, contract, p) for p in t.prompt_files] for t in checked.manifest.tasks}
    solutions: dict[str, Path | None] = {}
    for task in checked.manifest.tasks:
        solutions[task.id] = None
        if task.reference_solution:
            path = stage.root / "solutions" / f"{task.id}.patch"
            path.parent.mkdir(exist_ok=True)
            path.write_text(blob_text(repo, contract, task.reference_solution))
            solutions[task.id] = path
    return prompts, solutions
