"""Parse -> check: from command-line values to a checked manifest and contract, and what the suite hides."""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from instruction_gate import git, globs
from instruction_gate.errors import ConfigError
from instruction_gate.rules.model import Rule
from instruction_gate.rules.suite import compile_rules, module_paths
from instruction_gate.suite import contract as contract_mod
from instruction_gate.suite import manifest as manifest_mod
from instruction_gate.suite import suite_files
from instruction_gate.suite.contract import Contract
from instruction_gate.suite.manifest import Manifest


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


def check_all(repo: Path, manifest_path: Path, base: str, candidate: str, allow_identical: bool = False,
              warn: Callable[[str], None] | None = None, mixed_changes: str = "refuse") -> Checked:
    """Manifest schema and semantics, files at the base commit, and the static contract.

    `warn` receives what does not stop the evaluation but may surprise: a manifest on disk
    that differs from the base commit's.
    """
    repo = repo_root(repo)
    manifest = manifest_mod.load(manifest_path)
    base_sha = contract_mod.resolve_commit(repo, base, "base")
    base_tree = contract_mod.read_tree(repo, base_sha)
    label, in_repo = str(manifest_path), repository_path(repo, manifest_path)
    problems = suite_files.missing_suite_files(manifest, base_tree, label, repo)
    if manifest.tasks and all(t.prompt_files[0] not in base_tree for t in manifest.tasks):
        # One cause, said once, instead of every path the contract diff would list next.
        absent = f" (nor {in_repo})" if in_repo and in_repo not in base_tree else ""
        raise ConfigError(f"the base commit {base_sha[:12]} does not contain the suite: no task's prompt file exists "
                          f"there{absent}; was the suite added after --base? Pass a base commit that has it",
                          problems[:3] + ([f"... and {len(problems) - 3} more"] if len(problems) > 3 else []))
    if warn and (drift := manifest_drift(repo, manifest, base_tree, base_sha)):
        warn(drift)
    if problems:
        raise ConfigError(f"{manifest_path}: references files missing at the base commit", problems)
    if overlap := suite_overlap(repo, manifest, base_tree):
        raise ConfigError(f"{manifest_path}: instruction_paths match suite files; narrow them (a candidate could "
                          "edit what the suite hides from the agent)", overlap[:20] + (
                              [f"... and {len(overlap) - 20} more"] if len(overlap) > 20 else []))
    checked = contract_mod.check(repo, manifest, base_sha, candidate, allow_identical, base_tree, mixed_changes)
    return Checked(repo, manifest, checked)


def repository_path(repo: Path, path: Path) -> str | None:
    """`path` relative to the repository root, or None when it lies outside."""
    relative = os.path.relpath(path.resolve(), repo.resolve())
    return None if relative == ".." or relative.startswith(".." + os.sep) else Path(relative).as_posix()


def manifest_drift(repo: Path, manifest: Manifest, base_tree: contract_mod.Tree, base_sha: str) -> str | None:
    """Why the manifest on disk is not the base commit's, if it is inside the repository and is not.

    CI checks out the base, where both agree; locally an edited manifest is easily mistaken
    for an edited suite, whose other files are still read from the base commit.
    """
    relative = repository_path(repo, manifest.path)
    if relative is None:
        return None
    entry = base_tree.get(relative)
    if entry is not None and git.out("hash-object", "--", str(manifest.path.resolve()), cwd=repo).strip() == entry.oid:
        return None
    how = "is not in" if entry is None else "differs from its version at"
    return (f"{relative} {how} the base commit {base_sha[:12]}: the manifest on disk is used, while prompts, "
            "checks and task files come from the base commit, so uncommitted edits to them are ignored")


def suite_overlap(repo: Path, manifest: Manifest, tree: contract_mod.Tree) -> list[str]:
    """Suite files that `instruction_paths` match: a candidate could edit a hidden prompt or
    check, and the edited copy would reach the agent's workspace as an instruction file."""
    suite = suite_paths(repo, manifest, tree)
    if in_repo := repository_path(repo, manifest.path):
        suite.add(in_repo)
    instruction = globs.compile_globs(manifest.instruction_paths).match_file
    return [f"{manifest.path}::$.instruction_paths: matches the suite file {p}" for p in sorted(suite) if instruction(p)]


def hidden_paths(checked: Checked) -> set[str]:
    """Base files the agent must not see (see `suite_paths`); instruction files are never among
    them, `check_all` refuses a manifest whose instruction paths match a suite file.

    With code held fixed the workspaces start from the candidate's tree, so its files in those
    places are hidden too: a pull request cannot slip its own checks or tests into the suite.
    """
    return suite_paths(checked.repo, checked.manifest, {**checked.contract.base_tree, **checked.contract.workspace_tree})


def suite_paths(repo: Path, manifest: Manifest, tree: contract_mod.Tree) -> set[str]:
    """The suite directory, task files and directories, `hidden_paths`, custom rule modules."""
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
    return hidden


def blob_text(repo: Path, contract: Contract, path: str) -> str:
    return git.out("cat-file", "blob", contract.base_tree[path].oid, cwd=repo)


def compile_checked(checked: Checked) -> dict[str, list[Rule]]:
    """Declared rules of a checked suite; custom rule modules are read from the base commit."""
    tree = checked.contract.base_tree

    def read_source(path: str) -> str:
        if path not in tree:
            raise FileNotFoundError(f"{path} does not exist at the base commit")
        return blob_text(checked.repo, checked.contract, path)

    return compile_rules(checked.manifest.raw, read_source, str(checked.manifest.path))
