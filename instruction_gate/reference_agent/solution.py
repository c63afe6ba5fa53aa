"""Make the task's change by applying its reference solution, minus files the agent may not edit."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from instruction_gate import proc

_DIFF_HEADER = re.compile(r"^diff --git a/(.+?) b/(.+)$")


@dataclass(frozen=True)
class FileChange:
    path: str  #: repository-relative
    change: str  #: add, modify or delete


@dataclass
class Application:
    """The outcome of applying a reference solution."""

    applied: list[FileChange] = field(default_factory=list)
    withheld: list[FileChange] = field(default_factory=list)  #: left alone: protected or awaiting approval
    error: str | None = None  #: `git apply` refused the patch
    patch_bytes: int = 0  #: bytes of the part applied, the agent's "output"


def file_changes(patch: str) -> list[FileChange]:
    """Files a git-style patch touches, with the kind of change, in patch order."""
    changes: list[FileChange] = []
    for block in re.split(r"(?m)^(?=diff --git )", patch):
        header = _DIFF_HEADER.match(block.splitlines()[0]) if block.strip() else None
        if not header:
            continue
        if re.search(r"(?m)^new file mode", block):
            changes.append(FileChange(header.group(2), "add"))
        elif re.search(r"(?m)^deleted file mode", block):
            changes.append(FileChange(header.group(1), "delete"))
        else:
            changes.append(FileChange(header.group(2), "modify"))
    return changes


def _sections(patch: str) -> dict[str, str]:
    parts = [b for b in re.split(r"(?m)^(?=diff --git )", patch) if b.startswith("diff --git ")]
    return {change.path: part for change, part in zip(file_changes(patch), parts)}


def apply_solution(patch: str, repo_root: Path, withhold: set[str]) -> Application:
    """`git apply` the patch text in `repo_root`, skipping every path in `withhold`."""
    changes = file_changes(patch)
    outcome = Application(applied=[c for c in changes if c.path not in withhold],
                          withheld=[c for c in changes if c.path in withhold])
    if not outcome.applied:
        return outcome
    sections = _sections(patch)
    selected = "".join(sections[c.path] for c in outcome.applied)
    result = proc.run(["git", "apply", "--whitespace=nowarn", "-"], repo_root, stdin=selected)
    if not result.ok:
        outcome.error = (result.stderr or result.start_error or "git apply failed").strip()[-500:]
        outcome.applied = []
        return outcome
    outcome.patch_bytes = len(selected.encode())
    return outcome
