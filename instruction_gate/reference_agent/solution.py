"""Make the task's change by applying its reference solution, minus files the agent may not edit."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from instruction_gate import proc

_DIFF_HEADER = re.compile(r"^diff --git a/(.+?) b/(.+)$")
#: Characters `git apply --exclude` reads as a pattern; each is written as a one-character class.
_GLOB_SPECIAL = re.compile(r"([*?[])")
#: `git apply --summary`: " create mode 100644 path", or " create path" when the patch gives no mode.
_SUMMARY = re.compile(r"^ (create|delete)(?: mode \d+)? (.+)$")


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


def file_changes(patch: str, cwd: Path | None = None) -> list[FileChange]:
    """Files a patch touches, with the kind of change, in patch order: from its `diff --git`
    headers, or (none there, `cwd` given) as `git apply` reads it — a `diff -u` patch or a
    reversed `git diff -R` one (`diff --git b/x a/x`) is still a patch `validate-tasks` accepts."""
    changes = _from_headers(patch)
    if changes or cwd is None or not patch.strip():
        return changes
    return _as_git_reads(patch, cwd)


def _as_git_reads(patch: str, cwd: Path) -> list[FileChange]:
    result = proc.run(["git", "apply", "--numstat", "--summary", "-"], cwd, stdin=patch)
    if not result.ok:
        return []
    paths, kinds = [], {}
    for line in result.stdout.splitlines():
        summary = _SUMMARY.match(line)
        if summary:
            kinds[summary[2]] = "add" if summary[1] == "create" else "delete"
        elif line.count("\t") >= 2:
            paths.append(line.split("\t", 2)[2])
    return [FileChange(path, kinds.get(path, "modify")) for path in paths]


def _from_headers(patch: str) -> list[FileChange]:
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
    changes = file_changes(patch, repo_root)
    outcome = Application(applied=[c for c in changes if c.path not in withhold],
                          withheld=[c for c in changes if c.path in withhold])
    if not changes and patch.strip():
        # Never a silent no-op: the agent would report success having changed nothing.
        outcome.error = "the reference solution is no patch git apply can read"
        return outcome
    if not outcome.applied:
        return outcome
    sections = _sections(patch)
    if all(c.path in sections for c in outcome.applied):
        selected, argv = "".join(sections[c.path] for c in outcome.applied), ["git", "apply", "--whitespace=nowarn", "-"]
    else:  # no `diff --git` headers: git reads the whole patch and leaves out what is withheld
        excluded = ["--exclude=" + _GLOB_SPECIAL.sub(r"[\1]", c.path) for c in outcome.withheld]
        selected, argv = patch, ["git", "apply", "--whitespace=nowarn", *excluded, "-"]
    result = proc.run(argv, repo_root, stdin=selected)
    if not result.ok:
        outcome.error = (result.stderr or result.start_error or "git apply failed").strip()[-500:]
        outcome.applied = []
        return outcome
    outcome.patch_bytes = len(selected.encode())
    return outcome
