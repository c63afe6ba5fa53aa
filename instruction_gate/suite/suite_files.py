"""Suite files the manifest references, checked at the base commit before anything runs.

Prompts, turns, fixture patches, reference solutions and task directories must exist in the
base tree; so must check programs given as repository paths (`scripts/check.sh`, `python
scripts/check.py`, relative to the task's cwd), unless the task's fixture patch creates them.
"""

from __future__ import annotations

import posixpath
import re
import shutil
from pathlib import Path
from typing import Mapping

from instruction_gate import git, proc
from instruction_gate.untrusted import quote
from instruction_gate.suite.contract import REGULAR_MODES, Tree
from instruction_gate.suite.manifest import Manifest, Task

#: Interpreters whose first operand is the script they run (`python scripts/check.py`).
SCRIPT_INTERPRETERS = re.compile(r"(python[0-9.]*|bash|sh|zsh|dash|node|ruby|perl)")


def program_file(argv: list[str] | tuple[str, ...]) -> tuple[int, str] | None:
    """Which argument names the file a command runs, if one does: a first word that is a path
    (contains '/'), or the script operand of an interpreter (`python scripts/x.py`)."""
    if not argv:
        return None
    if "/" in argv[0]:
        return 0, argv[0]
    if len(argv) > 1 and SCRIPT_INTERPRETERS.fullmatch(argv[0]) and not argv[1].startswith("-"):
        return 1, argv[1]
    return None


def _directories(tree: Tree) -> set[str]:
    """Every directory of the tree, "." included."""
    dirs = {posixpath.dirname(p) for p in tree}
    return {"."} | {"/".join(d.split("/")[: i + 1]) for d in dirs if d for i in range(d.count("/") + 1)}


def patch_targets(patch: str) -> set[str]:
    """Paths a git-style patch writes (`+++ b/path`, renames, copies); quoted names are not decoded."""
    targets = set()
    for line in patch.splitlines():
        for prefix in ("+++ b/", "rename to ", "copy to "):
            if line.startswith(prefix):
                targets.add(line[len(prefix):].split("\t")[0])
    return targets


def missing_suite_files(manifest: Manifest, base_tree: Tree, label: str, repo: Path | None = None) -> list[str]:
    """Files the manifest references that are absent from the base commit.

    With `repo`, check programs given as repository paths are included too (`scripts/check.sh`,
    `python scripts/check.py`, relative to the task's cwd); one the task's fixture patch creates
    counts as present.
    """
    problems = []
    all_dirs = _directories(base_tree)
    for i, task in enumerate(manifest.tasks):
        where = f"{label}::$.tasks[{i}]"
        names = [("prompt_file", task.prompt_files[0])] + [(f"turns[{j}]", p) for j, p in enumerate(task.prompt_files[1:])]
        names += [("fixture_patch", task.fixture_patch), ("reference_solution", task.reference_solution),
                  ("reference_artifacts", task.reference_artifacts)]
        names += [(f"hidden_tests[{target!r}]", source) for target, source in task.hidden_tests]
        for key, path in names:
            if path and path not in base_tree:
                problems.append(f"{where}.{key}: {path} does not exist at the base commit")
            elif path and base_tree[path].mode not in REGULAR_MODES:
                # A symlink's blob is its target's path: the agent would get that as its prompt.
                problems.append(f"{where}.{key}: {path} is not a regular file at the base commit "
                                f"(mode {base_tree[path].mode}); suite files must be regular files")
        if task.cwd not in all_dirs:
            problems.append(f"{where}.cwd: directory {task.cwd} does not exist at the base commit")
        if repo is not None:
            problems += _missing_check_programs(repo, task, base_tree, all_dirs, where)
    return problems


def unavailable_check_programs(manifest: Manifest, label: str, env: Mapping[str, str]) -> list[str]:
    """Check programs named bare (`pytest`, `npm`) that are not on the PATH checks will get.

    Checked before any agent runs, because a missing program fails every check of both arms
    the same way: the runs would be spent and the comparison empty. Not part of `validate`,
    whose job (the static contract) may run without the project's toolchain installed.
    """
    search = proc.child_path(env)
    problems = []
    for i, task in enumerate(manifest.tasks):
        for j, argv in enumerate(task.checks):
            if argv and "/" not in argv[0] and shutil.which(argv[0], path=search) is None:
                problems.append(f"{label}::$.tasks[{i}].checks[{j}][0]: {quote(argv[0])} is not an executable "
                                f"on the checks' PATH ({search})")
    return problems


def _missing_check_programs(repo: Path, task: Task, base_tree: Tree, all_dirs: set[str], where: str) -> list[str]:
    problems = []
    fixture_targets: set[str] | None = None
    for j, argv in enumerate(task.checks):
        found = program_file(argv)
        if found is None or posixpath.isabs(found[1]):
            continue  # a program on PATH or a host path: not a repository file
        index, program = found
        path = posixpath.normpath(posixpath.join(task.cwd, program))
        if path == ".." or path.startswith("../") or path in base_tree or path in all_dirs:
            continue
        if fixture_targets is None:  # read only when needed: most checks name programs on PATH
            fixture = task.fixture_patch if task.fixture_patch in base_tree else None
            fixture_targets = patch_targets(git.out("cat-file", "blob", base_tree[fixture].oid, cwd=repo)) if fixture else set()
        if path in fixture_targets:
            continue
        shown = program if path == program else f"{program} (from cwd {task.cwd}: {path})"
        problems.append(f"{where}.checks[{j}][{index}]: {shown} does not exist at the base commit"
                        + (" and the fixture patch does not create it" if task.fixture_patch else ""))
    return problems
