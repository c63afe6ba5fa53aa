"""Parse -> build: from command-line values to a checked manifest, contract and stage."""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass
from pathlib import Path

from instruction_gate import contract as contract_mod
from instruction_gate import git, globs, manifest as manifest_mod
from instruction_gate.contract import Contract
from instruction_gate.errors import ConfigError
from instruction_gate.manifest import Manifest
from instruction_gate.rules.suite import module_paths
from instruction_gate.workspace import Stage


@dataclass(frozen=True)
class Checked:
    repo: Path
    manifest: Manifest
    contract: Contract


def repo_root(path: Path) -> Path:
    result = git.git("rev-parse", "--show-toplevel", cwd=path, check=False) if path.is_dir() else None
    if result is None or not result.ok:
        raise ConfigError(f"--repo: {path} is not a git repository")
    return Path(result.stdout.strip())


def check_all(repo: Path, manifest_path: Path, base: str, candidate: str, allow_identical: bool = False) -> Checked:
    """Manifest schema and semantics, files at the base commit, and the static contract."""
    repo = repo_root(repo)
    manifest = manifest_mod.load(manifest_path)
    checked = contract_mod.check(repo, manifest, base, candidate, allow_identical)
    problems = contract_mod.missing_suite_files(manifest, checked.base_tree, str(manifest_path))
    if problems:
        raise ConfigError(f"{manifest_path}: references files missing at the base commit", problems)
    return Checked(repo, manifest, checked)


def hidden_paths(checked: Checked) -> set[str]:
    """Base files the agent must not see: the suite directory, task files, `hidden_paths`."""
    repo, manifest, tree = checked.repo, checked.manifest, checked.contract.base_tree
    hidden: set[str] = set()
    suite_dir = Path(os.path.relpath(manifest.path.resolve().parent, repo))
    if not str(suite_dir).startswith(".."):
        prefix = "" if str(suite_dir) == "." else suite_dir.as_posix() + "/"
        if prefix:  # a manifest at the repository root hides only what it names
            hidden.update(p for p in tree if p.startswith(prefix))
    for task in manifest.tasks:
        hidden.update(task.suite_files())
        # Task directories hold checks, hidden tests and solutions next to the prompt.
        task_dir = posixpath.dirname(task.prompt_files[0])
        if task_dir:
            hidden.update(p for p in tree if p.startswith(task_dir + "/"))
    hidden.update(globs.filter_paths(tree, manifest.hidden_paths))
    hidden.update(module_paths(manifest.raw))  # custom rule modules are suite files too
    instruction = globs.compile_globs(manifest.instruction_paths).match_file
    return {p for p in hidden if not instruction(p)}


def blob_text(repo: Path, contract: Contract, path: str) -> str:
    return git.out("cat-file", "blob", contract.base_tree[path].oid, cwd=repo)


def build_stage(checked: Checked, temp_root: Path | None = None) -> tuple[Stage, dict[str, str]]:
    """Create the stage with every input commit; returns it and fixture problems by task id."""
    stage = Stage(checked.repo, temp_root)
    try:
        fixtures = {t.id: blob_text(checked.repo, checked.contract, t.fixture_patch) if t.fixture_patch else None
                    for t in checked.manifest.tasks}
        problems = stage.build(checked.contract, hidden_paths(checked), fixtures)
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
