"""Which commits a backtest replays, and the commit pairs it hands the gate.

A past commit cannot be evaluated as it stands: its parent usually lacks the suite, or has an
older one. So every commit and its parent are re-committed in a private scratch repository
(objects borrowed through alternates; the user's repository is only read) with the suite
files of the trusted ref laid over them: the arms differ in what the commit changed outside
the suite, and the suite, checks and hidden tests are the trusted ref's. Pinned identity and
dates make these commits a pure function of their trees, so a resumed backtest finds the
same pair again.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from instruction_gate import git, globs
from instruction_gate.errors import ConfigError
from instruction_gate.suite import manifest as manifest_mod
from instruction_gate.suite.contract import Tree, read_tree
from instruction_gate.suite.prepare import suite_paths


@dataclass(frozen=True)
class InstructionCommit:
    """A first-parent commit that changes instruction files."""

    sha: str
    parent: str  #: first parent: what the commit is evaluated against
    date: str  #: committer date, ISO 8601
    subject: str
    instruction_files: tuple[str, ...]
    code_files: tuple[str, ...]  #: other files it changes (held fixed when evaluated)

    @property
    def mixed(self) -> bool:
        return bool(self.code_files)


def instruction_commits(repo: Path, instruction_paths: tuple[str, ...], revisions: str) -> list[InstructionCommit]:
    """Oldest first: first-parent commits of `revisions` (a rev-list range) changing instruction files.

    A merge commit is diffed against its first parent, i.e. what the merge brought into the
    branch; a root commit has no parent to compare with and is left out.
    """
    listed = git.git("rev-list", "--first-parent", "--reverse", "--parents", revisions, "--", cwd=repo, check=False)
    if not listed.ok:
        raise ConfigError(f"--range: {revisions!r} is not a revision range of {repo}: {listed.stderr.strip()[:200]}")
    is_instruction = globs.compile_globs(instruction_paths).match_file
    found = []
    for line in listed.stdout.splitlines():
        sha, *parents = line.split()
        if not parents:
            continue
        names = git.split_z(git.out("diff-tree", "-r", "-z", "--name-only", "--no-renames", parents[0], sha, cwd=repo))
        instructions = tuple(sorted(n for n in names if is_instruction(n)))
        if not instructions:
            continue
        date, subject = git.out("show", "-s", "--format=%cI%x00%s", sha, cwd=repo).rstrip("\n").split("\0", 1)
        found.append(InstructionCommit(sha, parents[0], date, subject, instructions,
                                       tuple(sorted(set(names) - set(instructions)))))
    return found


class Replay:
    """The scratch repository holding (parent, commit) pairs with the trusted suite laid over both."""

    def __init__(self, repo: Path, manifest_bytes: bytes, manifest_rel: str, suite_ref: str, temp_root: Path | None = None):
        self.repo = repo
        self.root = Path(tempfile.mkdtemp(prefix="instruction-gate-backtest-", dir=temp_root))
        git.git("init", "-q", "--template=", str(self.root), cwd=self.root)
        common = git.out("rev-parse", "--git-common-dir", cwd=repo).strip()
        (self.root / ".git" / "objects" / "info").mkdir(parents=True, exist_ok=True)
        (self.root / ".git" / "objects" / "info" / "alternates").write_text(f"{(repo / common / 'objects').resolve()}\n")
        # The manifest sits at its repository path, which decides what the suite hides.
        self.manifest_path = self.root / manifest_rel
        self.manifest_path.parent.mkdir(parents=True, exist_ok=True)
        self.manifest_path.write_bytes(manifest_bytes)
        self.manifest = manifest_mod.load(self.manifest_path)
        trusted = read_tree(self.root, suite_ref)
        self.suite: Tree = {p: trusted[p] for p in sorted(suite_paths(self.root, self.manifest, trusted))}
        self.suite[manifest_rel] = trusted[manifest_rel]

    def digest(self, policy: bytes) -> str:
        """What a finished row depends on besides its commit: the suite's files and the policy."""
        listing = "".join(f"{e.mode} {e.oid}\t{p}\n" for p, e in sorted(self.suite.items()))
        return hashlib.sha256(listing.encode() + b"\0" + policy).hexdigest()

    def __enter__(self) -> "Replay":
        return self

    def __exit__(self, *exc) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def _overlaid(self, commit: str, parent: str | None) -> str:
        tree = read_tree(self.root, commit)
        stale = sorted(suite_paths(self.root, self.manifest, tree) | ({*self.suite} & set(tree)))
        index = self.root / ".git" / "replay.index"
        env = {"GIT_INDEX_FILE": str(index)}
        git.git("read-tree", commit, cwd=self.root, env=env)
        if stale:
            git.git("update-index", "--force-remove", "-z", "--stdin", cwd=self.root, env=env, stdin="\0".join(stale) + "\0")
        info = "".join(f"{e.mode} {e.oid}\t{p}\0" for p, e in self.suite.items())
        git.git("update-index", "-z", "--add", "--index-info", cwd=self.root, env=env, stdin=info)
        written = git.out("write-tree", cwd=self.root, env=env).strip()
        index.unlink(missing_ok=True)
        parents = ["-p", parent] if parent else []
        made = git.out("commit-tree", written, *parents, "-m", f"instruction-gate backtest: {commit}", cwd=self.root).strip()
        git.git("update-ref", f"refs/instruction-gate/backtest/{made}", made, cwd=self.root)
        return made

    def pair(self, commit: InstructionCommit) -> tuple[str, str]:
        """(base, candidate) commits of the scratch repository for `commit`, the candidate a child of the base."""
        base = self._overlaid(commit.parent, None)
        return base, self._overlaid(commit.sha, base)
