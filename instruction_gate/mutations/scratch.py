"""A private scratch repository for mutant commits; the user's repository is only read.

It borrows the user's objects through alternates, so a mutant commit costs a few blobs and
one tree. Its work tree holds only a copy of the suite manifest (so the manifest sits at the
same repository-relative path, which decides what is hidden from the agent).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from instruction_gate import git
from instruction_gate.errors import ConfigError
from instruction_gate.suite.contract import Contract, read_tree
from instruction_gate import globs
from instruction_gate.suite.manifest import Manifest

_MUTANT_REFS = "refs/instruction-gate/mutants"


class ScratchRepo:
    """Use as a context manager: the directory is removed on exit."""

    def __init__(self, user_repo: Path, manifest_path: Path, temp_root: Path | None = None):
        self.user_repo = user_repo
        if not manifest_path.resolve().is_relative_to(user_repo.resolve()):
            # Its repository-relative path decides what is hidden from the agent.
            raise ConfigError(f"--manifest {manifest_path}: must lie inside the repository {user_repo}")
        relative = manifest_path.resolve().relative_to(user_repo.resolve())
        self.root = Path(tempfile.mkdtemp(prefix="instruction-gate-mutants-", dir=temp_root))
        try:
            git.git("init", "-q", "--template=", str(self.root), cwd=self.root)
            common = git.out("rev-parse", "--git-common-dir", cwd=user_repo).strip()
            objects = (user_repo / common / "objects").resolve()
            (self.root / ".git" / "objects" / "info").mkdir(parents=True, exist_ok=True)
            (self.root / ".git" / "objects" / "info" / "alternates").write_text(f"{objects}\n")
            self.manifest_path = self.root / relative
            self.manifest_path.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(manifest_path, self.manifest_path)
        except BaseException:
            shutil.rmtree(self.root, ignore_errors=True)  # never leave a scratch directory behind
            raise
        self._count = 0

    def __enter__(self) -> "ScratchRepo":
        return self

    def __exit__(self, *exc) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def _git(self, *args: str, index: Path | None = None, stdin: str | bytes | None = None) -> str:
        env = {"GIT_INDEX_FILE": str(index)} if index is not None else None
        return git.out(*args, cwd=self.root, env=env, stdin=stdin).strip()

    def commit(self, base_sha: str, changes: dict[str, bytes | None], message: str) -> str:
        """A commit on top of `base_sha` with `changes` applied (None deletes), under a private ref."""
        index = self.root / ".git" / "mutant.index"
        self._git("read-tree", base_sha, index=index)
        modes = {p: e.mode for p, e in read_tree(self.root, base_sha).items() if p in changes}
        for path, data in sorted(changes.items()):
            if data is None:
                self._git("update-index", "--force-remove", "--", path, index=index)
                continue
            oid = self._git("hash-object", "-w", "--stdin", stdin=data)
            self._git("update-index", "--add", "--cacheinfo", f"{modes.get(path, '100644')},{oid},{path}",
                      index=index)
        tree = self._git("write-tree", index=index)
        commit = self._git("commit-tree", tree, "-p", base_sha, "-m", message)
        self._count += 1
        self._git("update-ref", f"{_MUTANT_REFS}/{self._count}", commit)
        index.unlink(missing_ok=True)
        return commit

    def instruction_files(self, base_sha: str, manifest: Manifest) -> dict[str, bytes]:
        """The base commit's regular instruction files."""
        tree = read_tree(self.root, base_sha)
        return {path: git.blob(entry.oid, self.root)
                for path, entry in sorted(tree.items())
                if entry.mode in ("100644", "100755") and globs.matches_any(path, manifest.instruction_paths)}

    def control_contract(self, base_sha: str, manifest: Manifest) -> Contract:
        """The A/A control: a candidate whose instruction files are the base's, byte for byte."""
        tree = read_tree(self.root, base_sha)
        instructions = {p: e for p, e in tree.items() if globs.matches_any(p, manifest.instruction_paths)}
        return Contract(base_sha, base_sha, base_sha, tree, instructions, dict(instructions), ())
