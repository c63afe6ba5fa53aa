"""The final-state evidence rules need beyond the patch: created files' bytes and the agent's commits.

The agent's workspace is untrusted. Created files are read with no symlink followed and only
when they are regular files inside the workspace; the agent's commits are read through the
harness's own git directory (trusted config, hooks off), borrowing the workspace's objects
read-only, with the commit id taken from the workspace's HEAD only when it is plain hex, and
only when its object directory holds plain files and directories (a FIFO would stall git, a
link or an edited `info/alternates` would have the runner read objects from elsewhere on the host).
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from instruction_gate import git
from instruction_gate.rules.bundle import Commit
from instruction_gate.run.workspace import Stage
from instruction_gate.untrusted import is_path_text

#: Created files larger than this are not read; rules that need their content end undetermined.
MAX_CREATED_FILE_BYTES = 1 << 20
#: Commits read per run (an agent committing in a loop must not stall the harness).
MAX_COMMITS = 50
#: Entries of the agent's object directory inspected before it is borrowed; more: not read.
MAX_OBJECT_ENTRIES = 100_000
_HEX = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


def created_paths(stage: Stage, input_tree: str, agent_tree: str) -> list[str]:
    out = stage.git("diff-tree", "-r", "-z", "--name-only", "--diff-filter=A", input_tree, agent_tree).stdout
    return git.split_z(out)


def read_regular_file(root: Path, path: str) -> bytes | None:
    """Bytes of `root/path` if it is a regular file reached without symlinks; else None."""
    try:
        fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
        for part in path.split("/")[:-1]:
            next_fd = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = next_fd
        file_fd = os.open(path.split("/")[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=fd)
        os.close(fd)
        with os.fdopen(file_fd, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_CREATED_FILE_BYTES:
                return None
            return handle.read(MAX_CREATED_FILE_BYTES + 1)[:MAX_CREATED_FILE_BYTES]
    except OSError:
        return None


def created_files(stage: Stage, input_tree: str, agent_tree: str, work_tree: Path) -> dict[str, bytes | None]:
    return {p: read_regular_file(work_tree, p) for p in created_paths(stage, input_tree, agent_tree)}


def workspace_head(dot_git: Path) -> str | None:
    """The commit the workspace's HEAD names (loose or packed ref, or detached), when it is plain hex.

    The agent owns these files: each is read only when it is a regular file reached without a
    symlink, capped (a FIFO would block the runner, a link to /dev/zero would never end).
    """
    def read(path: str) -> str | None:
        data = read_regular_file(dot_git, path)
        return None if data is None else data.decode("utf-8", errors="replace")

    head = (read("HEAD") or "").strip()
    if _HEX.fullmatch(head):
        return head
    ref = head.removeprefix("ref: ").strip()
    if not ref.startswith("refs/") or ".." in ref or not is_path_text(ref):
        return None
    loose = read(ref)
    if loose is not None:
        value = loose.strip()
        return value if _HEX.fullmatch(value) else None
    for line in (read("packed-refs") or "").splitlines():
        parts = line.split(" ", 1)
        if len(parts) == 2 and parts[1] == ref and _HEX.fullmatch(parts[0]):
            return parts[0]
    return None


def agent_commits(stage: Stage, work_tree: Path, input_commit: str) -> tuple[Commit, ...] | None:
    """Commits the agent added on top of its input commit, oldest first; None when unreadable."""
    head = workspace_head(work_tree / ".git")
    if head is None:
        return None
    if head == input_commit:
        return ()
    objects = work_tree / ".git" / "objects"
    if not _plain_object_dir(objects, stage.common_dir / "objects"):
        return None
    env = {"GIT_DIR": str(stage.git_dir), "GIT_ALTERNATE_OBJECT_DIRECTORIES": str(objects)}
    result = git.git("-c", "log.showSignature=false", "log", "-z", "--reverse", f"--max-count={MAX_COMMITS}",
                     "--format=%H%n%B", head, f"^{input_commit}", "--", cwd=stage.root, env=env, check=False)
    if not result.ok:
        return None
    commits = []
    for entry in git.split_z(result.stdout):
        sha, _, message = entry.strip("\n").partition("\n")
        commits.append(Commit(sha, message.strip("\n")))
    return tuple(commits)


def _plain_object_dir(objects: Path, common_objects: Path) -> bool:
    """True when `objects` (and `.git` above it) is a real directory holding only regular files and
    directories, whose `info/alternates` names nothing but the stage's common store."""
    for path in (objects.parent, objects):
        try:
            if not stat.S_ISDIR(os.lstat(path).st_mode):
                return False
        except OSError:
            return False
    pending, seen = [str(objects)], 0
    while pending:
        try:
            with os.scandir(pending.pop()) as entries:
                for entry in entries:
                    seen += 1
                    if seen > MAX_OBJECT_ENTRIES:
                        return False
                    if entry.is_dir(follow_symlinks=False):
                        pending.append(entry.path)
                    elif not entry.is_file(follow_symlinks=False):
                        return False
        except OSError:
            return False
    alternates = read_regular_file(objects, "info/alternates")
    return alternates is None or alternates.decode("utf-8", "replace").split() in ([], [str(common_objects)])
