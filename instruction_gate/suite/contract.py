"""The static contract: what a candidate may change, checked before any agent runs.

The candidate is compared with the merge base of base and candidate (a three-dot diff), so
a base branch that moved on does not make a PR look like it changed unrelated files.
The candidate variant is the base's instruction files with the candidate's own changes applied.

A candidate that also changes code (a *mixed* change) is refused by default. With
`mixed_changes="hold-code"` both arms start from the candidate's tree instead and differ only
in instruction files: the base arm gets the merge base's, the candidate arm the candidate's.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from pathlib import Path

from instruction_gate import git, globs
from instruction_gate.agents.loading import DEFAULT_INSTRUCTION_PATHS, is_instruction_file
from instruction_gate.errors import ConfigError, ContractError
from instruction_gate.suite.manifest import Manifest

REGULAR_MODES = {"100644", "100755"}
SYMLINK_MODE = "120000"
MIXED_CHANGES = ("refuse", "hold-code")


@dataclass(frozen=True)
class Entry:
    mode: str
    oid: str


Tree = dict[str, Entry]


@dataclass(frozen=True)
class Contract:
    """What the static contract established; the workspaces are built from it."""

    base_sha: str
    candidate_sha: str
    merge_base_sha: str
    base_tree: Tree  #: every file of the base commit
    base_instructions: Tree  #: instruction files in force for the base variant
    candidate_instructions: Tree  #: base's, with the candidate's changes applied
    changed_instruction_paths: tuple[str, ...]
    #: non-instruction files the candidate changes; with hold-code they are in both arms
    held_fixed: tuple[str, ...] = ()
    #: the commit and tree both arms start from: the candidate's when code is held fixed
    start_sha: str = ""
    start_tree: Tree | None = None

    @property
    def holds_code(self) -> bool:
        return bool(self.held_fixed)

    @property
    def workspace_sha(self) -> str:
        return self.start_sha or self.base_sha

    @property
    def workspace_tree(self) -> Tree:
        return self.start_tree if self.start_tree is not None else self.base_tree


def resolve_commit(repo: Path, ref: str, what: str) -> str:
    result = git.git("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", cwd=repo, check=False)
    if not result.ok:
        raise ConfigError(f"--{what}: {ref!r} is not a commit in {repo}")
    return result.stdout.strip()


def read_tree(repo: Path, commit: str) -> Tree:
    entries: Tree = {}
    for item in git.split_z(git.out("ls-tree", "-r", "-z", "--full-tree", commit, cwd=repo)):
        meta, path = item.split("\t", 1)
        mode, _type, oid = meta.split(" ")
        entries[path] = Entry(mode, oid)
    return entries


def _changes(repo: Path, old: str, new: str) -> list[tuple[str, str, str, str]]:
    """(old_mode, new_mode, status, path) for each path that differs."""
    items = git.split_z(git.out("diff-tree", "-r", "-z", "--no-renames", "--raw", old, new, cwd=repo))
    return [(meta[1:].split(" ")[0], meta.split(" ")[1], meta.split(" ")[4], path)
            for meta, path in zip(items[::2], items[1::2])]


def _symlink_problem(path: str, target: str, manifest: Manifest) -> str | None:
    resolved = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
    if target.startswith("/") or resolved.startswith("../") or resolved == "..":
        return f"{path}: symlink points outside the repository ({target})"
    if not globs.matches_any(resolved, manifest.instruction_paths):
        return f"{path}: symlink target {resolved} is not an instruction path"
    return None


def _contents(instructions: Tree) -> dict[str, str]:
    """What an agent reads of a variant: paths and content; a mode bit is not instructions."""
    return {path: entry.oid for path, entry in instructions.items()}


def check(repo: Path, manifest: Manifest, base: str, candidate: str, allow_identical: bool = False,
          base_tree: Tree | None = None, mixed_changes: str = "refuse") -> Contract:
    """Enforce the static contract; raise ContractError naming every offending path.

    `allow_identical` is for runs of the base arm alone (filling the baseline cache);
    `base_tree` saves reading the base commit's tree again when the caller has it;
    `mixed_changes` is "refuse" or "hold-code" (module docstring).
    """
    base_sha = resolve_commit(repo, base, "base")
    candidate_sha = resolve_commit(repo, candidate, "candidate")
    merge = git.git("merge-base", base_sha, candidate_sha, cwd=repo, check=False)
    if not merge.ok:
        raise ConfigError(f"base {base_sha[:12]} and candidate {candidate_sha[:12]} share no history")
    merge_base = merge.stdout.split()[0]
    is_instruction = globs.compile_globs(manifest.instruction_paths).match_file

    problems: list[str] = []
    base_tree = read_tree(repo, base_sha) if base_tree is None else base_tree
    candidate_instructions = {p: e for p, e in base_tree.items() if is_instruction(p)}
    base_instructions = dict(candidate_instructions)
    changed: list[str] = []
    code: list[str] = []
    for old_mode, new_mode, status, path in _changes(repo, merge_base, candidate_sha):
        if not is_instruction(path):
            code.append(path)
            if mixed_changes != "hold-code":
                problems.append(f"{path}: not an instruction path; the candidate may change only {list(manifest.instruction_paths)}"
                                + _known_format(path))
            continue
        changed.append(path)
        if status == "D":
            candidate_instructions.pop(path, None)
            continue
        if new_mode not in REGULAR_MODES:
            kind = {"120000": "symlink", "160000": "submodule"}.get(new_mode, f"mode {new_mode}")
            problems.append(f"{path}: candidate {'adds' if status == 'A' else 'makes'} a {kind}; instruction files must be regular files")
            continue
        if status != "A" and old_mode not in REGULAR_MODES:
            problems.append(f"{path}: candidate changes the file type (mode {old_mode} -> {new_mode})")
            continue
        candidate_instructions[path] = Entry(new_mode, "")  # filled below
    if changed:
        cand_tree = read_tree(repo, candidate_sha)
        for path in changed:
            if path in candidate_instructions and path in cand_tree:
                candidate_instructions[path] = cand_tree[path]
    for variant in (base_instructions, candidate_instructions):
        for path, entry in variant.items():
            if entry.mode == SYMLINK_MODE:
                target = git.out("cat-file", "blob", entry.oid, cwd=repo)
                if why := _symlink_problem(path, target, manifest):
                    problems.append(why)
    if code and changed and mixed_changes != "hold-code":
        raise ContractError(mixed_message(changed, code), sorted(set(problems)))
    if problems:
        raise ContractError("the candidate breaks the static contract", sorted(set(problems)))
    if code:
        base_instructions, candidate_instructions = _held_variants(repo, merge_base, candidate_sha, is_instruction)
    if _contents(base_instructions) == _contents(candidate_instructions) and not allow_identical:
        problems = [f"instruction paths: {list(manifest.instruction_paths)}"]
        if base_instructions != candidate_instructions:
            problems.append("only file modes differ (chmod): an agent reads the content, which is unchanged")
        base_changes = [c[3] for c in _changes(repo, merge_base, base_sha) if is_instruction(c[3])]
        if merge_base == candidate_sha and base_changes:
            problems.append("is --base/--candidate swapped? the candidate is an ancestor of the base "
                            f"(the base changes {', '.join(base_changes)} since the candidate)")
        raise ContractError("base and candidate instruction files are byte-identical: nothing to evaluate", problems)
    return Contract(base_sha, candidate_sha, merge_base, base_tree, base_instructions,
                    candidate_instructions, tuple(sorted(changed)), tuple(sorted(code)),
                    candidate_sha if code else "", read_tree(repo, candidate_sha) if code else None)


def _known_format(path: str) -> str:
    """A note when a file outside `instruction_paths` is one an agent loads by itself: the gate
    would treat an edit of it as code, so the manifest most likely forgot the format."""
    if not is_instruction_file(path):
        return ""
    return (f" ({path} is an instruction file agents load by themselves: add it to instruction_paths, e.g. "
            f"{', '.join(repr(g) for g in DEFAULT_INSTRUCTION_PATHS if globs.matches_any(path, (g,)))})")


def mixed_message(instructions: list[str], code: list[str]) -> str:
    """The refusal of a mixed change, naming both kinds of file."""
    unlisted = [p for p in code if is_instruction_file(p)]
    note = (f"; note: {', '.join(sorted(unlisted)[:5])} {'is an instruction file' if len(unlisted) == 1 else 'are instruction files'} "
            "agents load by themselves, outside instruction_paths: add the format there") if unlisted else ""
    return (f"the candidate breaks the static contract: it changes instruction files ({', '.join(sorted(instructions))}) "
            f"and code ({len(code)} file{'s' if len(code) != 1 else ''}, listed below) together; evaluate the "
            "instructions with the code held fixed (policy contract.mixed_changes: hold-code, or --mixed-changes "
            "hold-code), or split the pull request" + note)


def _held_variants(repo: Path, merge_base: str, candidate_sha: str, is_instruction) -> tuple[Tree, Tree]:
    """hold-code: the merge base's instruction files (base arm) and the candidate's (candidate arm)."""
    before = {p: e for p, e in read_tree(repo, merge_base).items() if is_instruction(p)}
    after = {p: e for p, e in read_tree(repo, candidate_sha).items() if is_instruction(p)}
    return before, after
