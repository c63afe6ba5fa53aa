"""What a run's checks execute is the suite's choice: the files the agent changed that steer them
(suite/steering_files.py) are restored from the run's starting tree before the checks, or, with
the policy's `check_files: "fail"`, left in place and failed as the hard gate `check_files_changed`.

Everything happens on git objects: one `diff-tree` of the starting and the captured tree, paths
matched in Python, at most two `ls-tree` calls (directories that are packages, check targets that
exist at the start), and the restore is a few index lines `Stage.validation_tree` applies before
the suite is laid in (so the suite still wins). No checkout.
"""

from __future__ import annotations

import functools
import os
import pkgutil
import posixpath
import sys
from pathlib import Path
from dataclasses import dataclass
from typing import Any, Iterable

from instruction_gate import git
from instruction_gate.run.workspace import Stage
from instruction_gate.suite.manifest import Task
from instruction_gate.suite.steering_files import check_targets, classify, covering, shadow_directory

RESTORE, FAIL = "restore", "fail"
#: policy.json `check_files`: what happens to a changed file that steers the checks.
MODES = (RESTORE, FAIL)


@dataclass(frozen=True)
class SteeringChange:
    path: str
    kind: str  #: steering_files kind (test_config, shadow_module, check_target, ...)
    start: tuple[str, str] | None  #: (mode, oid) in the starting tree; None: absent there
    zero_oid: str  #: the all-zero object name of this repository's hash (an index removal line)

    @property
    def index_line(self) -> str:
        """The `update-index --index-info` line putting the starting state back (mode 0 removes)."""
        mode, oid = self.start or ("0", self.zero_oid)
        return f"{mode} {oid}\t{self.path}\0"


@dataclass(frozen=True)
class Integrity:
    """The steering files one run changed, and what the policy does with them."""

    changes: tuple[SteeringChange, ...]
    mode: str = RESTORE
    hidden_tests: str = ""  #: the task's hidden tests as index lines (`Stage.hidden_test_info`)

    @property
    def restore_info(self) -> str:
        """Index lines for `Stage.validation_tree`: the restores (when restoring), then the task's
        hidden tests, which win over whatever the agent left at their paths in either mode."""
        restores = "".join(c.index_line for c in self.changes) if self.mode == RESTORE else ""
        return restores + self.hidden_tests

    @property
    def left(self) -> list[str]:
        """Paths left in the agent's state for the checks (policy `fail`): the hard gate's evidence."""
        return [c.path for c in self.changes] if self.mode == FAIL else []

    def as_record(self) -> list[dict[str, Any]]:
        """run.json `check_files_changed`, sorted by path."""
        action = "restored" if self.mode == RESTORE else "left"
        return [{"path": c.path, "kind": c.kind, "action": action} for c in sorted(self.changes, key=lambda c: c.path)]


NOTHING = Integrity(())


def _diff(stage: Stage, start_tree: str, agent_tree: str) -> dict[str, tuple[str, str, str]]:
    """Changed path -> (mode, oid, status) of its starting side (status A: absent at the start)."""
    items = git.split_z(stage.git("diff-tree", "-r", "-z", "--no-renames", start_tree, agent_tree).stdout)
    changed = {}
    for meta, path in zip(items[0::2], items[1::2]):
        old_mode, _, old_oid, _, status = meta.lstrip(":").split(" ")
        changed[path] = (old_mode, old_oid, status)
    return changed


def _present(stage: Stage, tree: str, paths: Iterable[str]) -> set[str]:
    """Which of `paths` (files or directories) exist in `tree`."""
    paths = sorted(set(paths))
    if not paths:
        return set()
    listed = stage.git("--literal-pathspecs", "ls-tree", "-z", "--full-tree", "--name-only", tree, "--", *paths).stdout
    return set(git.split_z(listed)) & set(paths)


def _init(directory: str) -> str:
    return posixpath.join(directory, "__init__.py")


@functools.lru_cache(maxsize=8)
def installed_modules(env_dir: Path | None = None) -> frozenset[str]:
    """Top-level modules installed where checks import from: the harness's site-packages (the
    embedded example's pytest and its dependencies) and the check environment's."""
    places = [p for p in sys.path if os.path.basename(p) in ("site-packages", "dist-packages") and os.path.isdir(p)]
    if env_dir is not None:
        places += [str(p) for p in env_dir.glob("lib/python*/site-packages") if p.is_dir()]
    return frozenset(module.name for module in pkgutil.iter_modules(places))


def inspect(stage: Stage, task: Task, start_tree: str, agent_tree: str, mode: str = RESTORE,
            installed: frozenset[str] = frozenset()) -> Integrity:
    """The files the agent changed (from `start_tree`, the input commit's tree, to `agent_tree`,
    the captured tree) that steer `task`'s checks; `installed`: `installed_modules()`."""
    changed = _diff(stage, start_tree, agent_tree)
    hidden_tests = stage.hidden_test_info.get(task.id, "")
    if not changed:
        return Integrity((), mode, hidden_tests)
    targets = check_targets(task)
    added = {p for p, (_, _, status) in changed.items() if status == "A"}
    directories = {d for p in changed if (d := shadow_directory(p, installed if p in added else frozenset()))
                   is not None} - targets.exposed
    named = {t for p in changed for t in covering(p, targets.paths)}
    inits = {_init(d) for d in directories}
    at_start = _present(stage, start_tree, named | inits)
    in_agent_tree = _present(stage, agent_tree, inits)
    packages = {d for d in directories if _init(d) in at_start and _init(d) in in_agent_tree}
    kinds = classify(changed, targets, packages=packages, present_at_start=at_start & named, added=added,
                     installed=installed,
                     suite=stage.suite_paths, allowed=task.check_files_allowed)
    zero = "0" * len(next(iter(changed.values()))[1])
    return Integrity(tuple(SteeringChange(path, kind, None if changed[path][2] == "A" else changed[path][:2], zero)
                           for path, kind in sorted(kinds.items())), mode, hidden_tests)
