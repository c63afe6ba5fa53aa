"""Workspaces the agent works in and the checks run in, built from git objects.

A private *stage* repository borrows the user's objects (read-only, via alternates) and holds
everything the harness builds: per (task, variant) an input commit = base tree − hidden suite +
the variant's instruction files + the fixture patch. The agent gets a fresh one-commit
repository whose objects come from a *common* store holding only files shared by every input
commit, plus a small pack of its own: no history, no suite, no other variant's files.

Each worker slot owns two directories (generation, validation) that are reset incrementally
between runs with trusted index files kept in the stage, so a run costs a handful of git calls
instead of two full checkouts. Work trees are untrusted: every harness git call uses the
stage's git directory, never the workspace's own `.git`.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from instruction_gate import git
from instruction_gate.run import hostile_tree
from instruction_gate.suite.contract import Contract, Tree

VARIANTS = ("base", "candidate")


@dataclass(frozen=True)
class InputCommit:
    commit: str
    tree: str
    pack: tuple[Path, ...]  #: objects of this input commit missing from the common store


@dataclass(frozen=True)
class CapturedPatch:
    tree: str  #: tree of the agent's final work tree
    patch: str  #: binary-safe unified diff against the input tree
    edited_files: tuple[str, ...]
    additions: int
    deletions: int
    over_limit: bool = False  #: the changed files exceed the patch limit; `patch` is then empty


class Stage:
    """Owns the temporary directory; use as a context manager so it is always removed."""

    def __init__(self, repo: Path, root: Path | None = None):
        self.repo = repo
        self.root = Path(tempfile.mkdtemp(prefix="instruction-gate-", dir=root))
        self.git_dir = self.root / "stage.git"
        self.common_dir = self.root / "common.git"
        common_objects = git.out("rev-parse", "--git-common-dir", cwd=repo).strip()
        user_objects = (repo / common_objects / "objects").resolve()
        for bare in (self.git_dir, self.common_dir):
            git.git("init", "-q", "--bare", "--template=", str(bare), cwd=self.root)
        (self.git_dir / "objects" / "info").mkdir(parents=True, exist_ok=True)
        (self.git_dir / "objects" / "info" / "alternates").write_text(f"{user_objects}\n")
        # Index-only plumbing (update-index, apply --cached) still insists on a work tree.
        self.empty_tree_dir = self.root / "empty"
        self.empty_tree_dir.mkdir()
        self.inputs: dict[tuple[str, str], InputCommit] = {}
        self.suite_index_info = ""
        self.suite_paths: tuple[str, ...] = ()
        #: task id -> index lines laying its hidden tests at their repository paths (staging.py)
        self.hidden_test_info: dict[str, str] = {}
        #: variant -> instruction path -> text, for where a rule is stated (run/rule_sources.py)
        self.instruction_texts: dict[str, dict[str, str]] = {}

    def __enter__(self) -> "Stage":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        try:
            hostile_tree.remove(self.root)  # workspaces an agent locked (chmod 000) included
        except OSError:
            shutil.rmtree(self.root, ignore_errors=True)

    # -- plumbing with a private index file -------------------------------------------
    def git(self, *args: str, index: Path | None = None, work_tree: Path | None = None, **kw):
        env = {"GIT_DIR": str(self.git_dir)}
        if index is not None:
            env["GIT_INDEX_FILE"] = str(index)
        work_tree = work_tree or self.empty_tree_dir
        env["GIT_WORK_TREE"] = str(work_tree)
        return git.git(*args, cwd=work_tree, env=env, **kw)

    def _tree_from(self, start: str, remove: list[str], add: Tree, name: str) -> str:
        index = self.root / f"{name}.index"
        self.git("read-tree", start, index=index)
        if remove:
            self.git("update-index", "--force-remove", "-z", "--stdin", index=index, stdin="\0".join(remove) + "\0")
        if add:
            info = "".join(f"{e.mode} {e.oid}\t{p}\0" for p, e in add.items())
            self.git("update-index", "-z", "--index-info", index=index, stdin=info)
        tree = self.git("write-tree", index=index).stdout.strip()
        index.unlink(missing_ok=True)
        return tree

    def _commit(self, tree: str, message: str) -> str:
        return self.git("commit-tree", tree, "-m", message).stdout.strip()

    # -- building ----------------------------------------------------------------------
    def build(self, contract: Contract, hidden: set[str], fixtures: dict[str, str | None]) -> dict[str, str]:
        """Create every input commit and the common store.

        `hidden` are repository paths removed from the agent's view; `fixtures` maps task id
        to fixture patch text (or None). Returns task id -> problem for fixtures that do not apply.
        """
        # The suite laid back in for the checks is always the base's; the workspaces start from
        # the candidate's tree instead when the contract holds its code fixed.
        hidden_tree = {p: contract.base_tree[p] for p in sorted(hidden) if p in contract.base_tree}
        self.suite_index_info = "".join(f"{e.mode} {e.oid}\t{p}\0" for p, e in hidden_tree.items())
        self.suite_paths = tuple(hidden_tree)
        base = contract.workspace_tree
        visible = self._tree_from(contract.workspace_sha, sorted(p for p in hidden if p in base), {}, "visible")
        instructions = sorted(set(contract.base_instructions) | set(contract.candidate_instructions))
        variant_trees = {
            "base": self._tree_from(visible, instructions, contract.base_instructions, "v-base"),
            "candidate": self._tree_from(visible, instructions, contract.candidate_instructions, "v-cand"),
        }
        problems: dict[str, str] = {}
        touched: set[str] = set(contract.base_instructions) | set(contract.candidate_instructions)
        trees: dict[tuple[str, str], str] = {}
        for task_id, fixture in fixtures.items():
            for variant in VARIANTS:
                tree = variant_trees[variant]
                if fixture:
                    tree, why = self.apply(tree, fixture)
                    if why:
                        problems[task_id] = f"fixture patch does not apply: {why}"
                        break
                    touched.update(git.split_z(self.git("diff-tree", "-r", "-z", "--name-only", variant_trees[variant], tree).stdout))
                trees[(task_id, variant)] = tree
        common_tree = self._tree_from(visible, sorted(touched & set(base)), {}, "common")
        common_commit = self._commit(common_tree, "instruction-gate common")
        self._pack(common_commit, self.common_dir / "objects" / "pack")
        for (task_id, variant), tree in trees.items():
            if task_id in problems:
                continue
            commit = self._commit(tree, f"instruction-gate input: {task_id}")
            pack_dir = self.root / "packs" / f"{task_id}.{variant}"
            self.inputs[(task_id, variant)] = InputCommit(commit, tree, self._pack(commit, pack_dir, exclude=common_commit))
        return problems

    def apply(self, tree: str, patch: str) -> tuple[str, str | None]:
        """`tree` with `patch` applied, or (tree, why not) when it does not apply."""
        index = self.root / f"apply-{os.urandom(4).hex()}.index"
        try:
            self.git("read-tree", tree, index=index)
            applied = self.git("apply", "--cached", "--whitespace=nowarn", "-", index=index, stdin=patch, check=False)
            if not applied.ok:
                return tree, applied.stderr.strip()[-500:] or "git apply failed"
            return self.git("write-tree", index=index).stdout.strip(), None
        finally:
            index.unlink(missing_ok=True)

    def _pack(self, tip: str, pack_dir: Path, exclude: str | None = None) -> tuple[Path, ...]:
        pack_dir.mkdir(parents=True, exist_ok=True)
        # Exclude the tree, not the commit: an unrelated negative commit only hides its history, so
        # every input pack would copy the whole common tree again (git marks only edge trees).
        revs = f"{tip}\n" + (f"^{exclude}^{{tree}}\n" if exclude else "")
        self.git("-c", "pack.compression=1", "pack-objects", "-q", "--revs", "--window=0", str(pack_dir / "pack"), stdin=revs)
        return tuple(sorted(pack_dir.glob("pack-*")))

    def validation_tree(self, agent_tree: str, restore_info: str = "") -> str | None:
        """The agent's tree with the hidden suite laid back in; None on a path conflict.

        `restore_info` (`update-index --index-info` lines, run/check_integrity.py) puts the files
        that steer the checks back to their starting state first, so the suite still wins."""
        index = self.root / f"val-{os.getpid()}-{id(agent_tree)}-{os.urandom(4).hex()}.index"
        try:
            if self._conflicts_with_suite(agent_tree):
                return None
            self.git("read-tree", agent_tree, index=index)
            if restore_info:
                self.git("update-index", "-z", "--index-info", index=index, stdin=restore_info)
            if self.suite_index_info:
                added = self.git("update-index", "-z", "--add", "--index-info", index=index,
                                 stdin=self.suite_index_info, check=False)
                if not added.ok:
                    return None
            result = self.git("write-tree", index=index, check=False)
            return result.stdout.strip() if result.ok else None
        finally:
            index.unlink(missing_ok=True)

    def _conflicts_with_suite(self, agent_tree: str) -> bool:
        """True when the agent left a file where the suite needs a directory, or the reverse.

        `update-index --index-info` would silently drop the agent's side of such a conflict, so
        the checks would judge a tree the agent never produced.
        """
        if not self.suite_paths:
            return False
        suite = set(self.suite_paths)
        parents = {p.rsplit("/", i)[0] for p in suite for i in range(1, p.count("/") + 1)}
        listed = self.git("ls-tree", "-t", "-z", "--full-tree", agent_tree, "--", *sorted(suite | parents)).stdout
        for item in git.split_z(listed):
            meta, path = item.split("\t", 1)
            is_tree = meta.split(" ")[1] == "tree"
            if (path in suite and is_tree) or (path in parents and not is_tree):
                return True
        return False


class Slot:
    """One worker's pair of directories, reused run after run."""

    def __init__(self, stage: Stage, number: int):
        self.stage = stage
        base = stage.root / f"slot-{number}"
        self.generation = base / "gen"
        self.validation = base / "val"
        self.gen_index = base / "gen.index"
        self.val_index = base / "val.index"
        for directory in (self.generation, self.validation):
            directory.mkdir(parents=True, exist_ok=True)  # a later batch of the same evaluation reuses it

    def _reset(self, work_tree: Path, index: Path, tree: str) -> None:
        """Make `work_tree` exactly `tree`, rewriting only what differs.

        What the last run left is swept first (links, FIFOs, sockets, devices, `.git`, locked
        directories: see hostile_tree), so git and the harness never follow or trip on them. If
        the incremental reset still fails, the directory is rebuilt from nothing: one run's
        leftovers never reach the next run of the slot, nor end the evaluation.
        """
        try:
            hostile_tree.sweep(work_tree)
            self._reset_incrementally(work_tree, index, tree)
        except (OSError, git.GitError):
            self._rebuild(work_tree, index, tree)

    def _reset_incrementally(self, work_tree: Path, index: Path, tree: str) -> None:
        g = self.stage.git
        g("read-tree", "--reset", "-u", tree, index=index, work_tree=work_tree)
        dirty = g("diff-files", "--name-only", "-z", index=index, work_tree=work_tree).stdout
        if dirty:
            g("checkout-index", "-f", "-z", "--stdin", index=index, work_tree=work_tree, stdin=dirty)
        g("clean", "-ffdxq", index=index, work_tree=work_tree)

    def _rebuild(self, work_tree: Path, index: Path, tree: str) -> None:
        """`tree` checked out into a new, empty `work_tree`; the old one is moved aside first
        (a rename succeeds where removing a hostile tree might not) and removed with the stage."""
        if os.path.lexists(work_tree):
            discarded = self.stage.root / "discarded"
            discarded.mkdir(exist_ok=True)
            os.rename(work_tree, discarded / f"{work_tree.parent.name}-{work_tree.name}-{os.urandom(4).hex()}")
        work_tree.mkdir()
        index.unlink(missing_ok=True)
        self.stage.git("read-tree", "--reset", "-u", tree, index=index, work_tree=work_tree)

    def prepare_generation(self, input_commit: InputCommit) -> Path:
        """Reset the generation directory and give it a fresh one-commit `.git`."""
        self._reset(self.generation, self.gen_index, input_commit.tree)
        dot_git = self.generation / ".git"
        for sub in ("objects/info", "objects/pack", "refs/heads", "refs/tags"):
            (dot_git / sub).mkdir(parents=True, exist_ok=True)
        (dot_git / "HEAD").write_text("ref: refs/heads/main\n")
        (dot_git / "config").write_text("[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n")
        (dot_git / "refs" / "heads" / "main").write_text(input_commit.commit + "\n")
        (dot_git / "objects" / "info" / "alternates").write_text(str(self.stage.common_dir / "objects") + "\n")
        for pack_file in input_commit.pack:
            shutil.copyfile(pack_file, dot_git / "objects" / "pack" / pack_file.name)
        shutil.copyfile(self.gen_index, dot_git / "index")
        return self.generation

    def capture(self, input_commit: InputCommit, max_patch_bytes: int | None = None) -> CapturedPatch:
        """Record the agent's work tree as a tree and a patch, using the trusted index.

        No patch is made when the new side of the changed files exceeds `max_patch_bytes`.
        """
        g = self.stage.git
        g("add", "-A", "--ignore-errors", index=self.gen_index, work_tree=self.generation, check=False)
        tree = g("write-tree", index=self.gen_index, work_tree=self.generation).stdout.strip()
        numstat = git.split_z(g("diff-tree", "-r", "-z", "--numstat", input_commit.tree, tree).stdout)
        edited, additions, deletions = [], 0, 0
        for item in numstat:
            added, deleted, path = item.split("\t", 2)
            edited.append(path)
            additions += int(added) if added.isdigit() else 0
            deletions += int(deleted) if deleted.isdigit() else 0
        if max_patch_bytes is not None and edited and self._changed_bytes(input_commit.tree, tree) > max_patch_bytes:
            return CapturedPatch(tree, "", tuple(edited), additions, deletions, over_limit=True)
        patch = g("diff-tree", "-p", "--binary", "--full-index", input_commit.tree, tree).stdout if edited else ""
        return CapturedPatch(tree, patch, tuple(edited), additions, deletions)

    def _changed_bytes(self, old: str, new: str) -> int:
        """Bytes of the new side of every changed file (what a binary patch must carry)."""
        raw = git.split_z(self.stage.git("diff-tree", "-r", "-z", "--no-renames", old, new).stdout)
        oids = [meta.split()[3] for meta in raw[0::2] if meta.startswith(":") and not meta.split()[3].strip("0") == ""]
        if not oids:
            return 0
        sizes = self.stage.git("cat-file", "--batch-check=%(objectsize)", stdin="\n".join(oids) + "\n").stdout
        return sum(int(n) for n in sizes.split() if n.isdigit())

    def prepare_validation(self, agent_tree: str, restore_info: str = "") -> Path | None:
        """Lay the agent's tree (with `restore_info` applied, see `Stage.validation_tree`) plus the
        suite into the validation directory; None if it cannot."""
        tree = self.stage.validation_tree(agent_tree, restore_info)
        if tree is None:
            return None
        self._reset(self.validation, self.val_index, tree)
        return self.validation
