"""A commit that never lands: the base plus candidate suite files, for validating mined tasks.

Built with plumbing on a private index, so the user's working tree, index and refs are never
touched; its objects are unreferenced and `git gc` removes them.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Mapping, Sequence

from instruction_gate import git


def commit_with(repo: Path, base: str, files: Mapping[str, bytes], remove: Sequence[str] = (),
                message: str = "instruction-gate: mined tasks under validation") -> str:
    """A commit whose tree is `base`'s minus `remove`, plus `files` (repository path -> content)."""
    with tempfile.TemporaryDirectory(prefix="ig-scratch-") as scratch:
        env = {"GIT_INDEX_FILE": str(Path(scratch) / "index")}
        git.git("read-tree", base, cwd=repo, env=env)
        if remove:
            git.git("update-index", "--force-remove", "--", *remove, cwd=repo, env=env)
        lines = []
        for path, content in sorted(files.items()):
            oid = git.out("hash-object", "-w", "--stdin", cwd=repo, stdin=content).strip()
            lines.append(f"100644 {oid}\t{path}\0")
        if lines:
            git.git("update-index", "-z", "--add", "--index-info", cwd=repo, env=env, stdin="".join(lines))
        tree = git.out("write-tree", cwd=repo, env=env).strip()
    return git.out("commit-tree", tree, "-p", base, "-m", message, cwd=repo).strip()
