"""A task's files from one fix commit, posed on today's base.

The fixture reverts the fix's code and test changes on the base (the bug comes back, the new
tests go away); the hidden tests are the base's versions of the test modules the fix changed,
laid back for the checks only; the checks run the test functions the fix touched; the
reference solution is the forward change as it reads on the base. Nothing here runs code.
"""

from __future__ import annotations

import ast
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from instruction_gate import git
from instruction_gate.mining.history import Candidate
from instruction_gate.mining.touched_tests import hazards, imported_names, test_functions, touched

#: Names a diff's added lines define at module or class level.
DEFINED = re.compile(r"^[+-]\s*(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)|^[+-]([A-Za-z_]\w*)\s*[:=]", re.MULTILINE)


@dataclass(frozen=True)
class Materials:
    candidate: Candidate
    fixture_patch: str
    solution_patch: str
    hidden_tests: dict[str, bytes]  #: repository path -> the base's content of that test module
    node_ids: tuple[str, ...]  #: the checks: test functions the fix touched that the base still has
    flags: tuple[str, ...] = field(default=())  #: what a reviewer should look at


class NotPosable(Exception):
    """The commit cannot become a task on this base; the message says why."""


def _tree_with(repo: Path, tree: str, patch: str) -> tuple[str | None, str]:
    with tempfile.TemporaryDirectory(prefix="ig-mine-") as scratch:
        env = {"GIT_INDEX_FILE": str(Path(scratch) / "index")}
        git.git("read-tree", tree, cwd=repo, env=env)
        applied = git.git("apply", "--cached", "--whitespace=nowarn", "-", cwd=repo, env=env, stdin=patch, check=False)
        if not applied.ok:  # lines moved since: a three-way merge with the fix's own blobs often still fits
            applied = git.git("apply", "--cached", "--3way", "--whitespace=nowarn", "-", cwd=repo, env=env,
                              stdin=patch, check=False)
        if not applied.ok or "conflict" in applied.stderr.lower():
            lines = applied.stderr.strip().splitlines()
            said = [line for line in lines if "error" in line.lower() or "conflict" in line.lower()] or lines
            return None, said[0] if said else "git apply failed"
        return git.out("write-tree", cwd=repo, env=env).strip(), ""


def _text(repo: Path, spec: str) -> str | None:
    data = git.blob(spec, repo, missing_ok=True)
    return None if data is None else data.decode("utf-8", "replace")


def _parses(source: str) -> bool:
    try:
        ast.parse(source)
    except (SyntaxError, ValueError):
        return False
    return True


def created_names(forward_code_diff: str) -> set[str]:
    """Names the fix's code change defines that its removed lines did not."""
    added, removed = set(), set()
    for match in DEFINED.finditer(forward_code_diff):
        name = match.group(1) or match.group(2)
        (added if match.group(0).startswith("+") else removed).add(name)
    return added - removed - {"__all__"}


def build(repo: Path, candidate: Candidate, base: str) -> Materials:
    """The task's files for `candidate` on `base` (a commit); raises NotPosable with the reason."""
    sha, parent = candidate.sha, f"{candidate.sha}^"
    node_ids: list[str] = []
    hidden: dict[str, bytes] = {}
    functions = []
    for path in candidate.test_files:
        after, now = _text(repo, f"{sha}:{path}"), git.blob(f"{base}:{path}", repo, missing_ok=True)
        if after is None or now is None:
            continue  # the fix deleted it, or the base no longer has it
        hidden[path] = now
        ids = set(touched(path, after, git.out("diff", "-U0", parent, sha, "--", path, cwd=repo)))
        at_base = [f for f, _ in test_functions(path, now.decode("utf-8", "replace")) if f.node_id in ids]
        node_ids += [f.node_id for f in at_base]
        functions += at_base
    if not node_ids:
        raise NotPosable("the test functions the fix touched no longer exist at the base" if hidden
                         else "the test modules the fix changed no longer exist at the base")
    if reasons := hazards(functions):
        raise NotPosable(reasons[0])
    paths = [*candidate.code_files, *candidate.test_files]
    fixture = git.out("diff", "--binary", "--full-index", sha, parent, "--", *paths, cwd=repo)
    base_tree = git.out("rev-parse", f"{base}^{{tree}}", cwd=repo).strip()
    start, why = _tree_with(repo, base_tree, fixture)
    flags = []
    if start is None:  # the tests moved on more than the code: revert the code alone
        code_only = git.out("diff", "--binary", "--full-index", sha, parent, "--", *candidate.code_files, cwd=repo)
        start, _ = _tree_with(repo, base_tree, code_only)
        if start is None:
            raise NotPosable(f"the fix no longer reverts cleanly at the base ({why})")
        flags.append("the fix's test changes no longer revert on the base, so the agent sees the tests that "
                     "check it (the checks still run the base's copies)")
    for path in candidate.code_files:  # a three-way merge can leave code that no longer parses
        text = _text(repo, f"{start}:{path}")
        if text is not None and not _parses(text):
            raise NotPosable(f"the fix reverted on the base leaves {path} unparseable")
    # Stored as the base -> start difference, not the commit's reversed diff: it applies exactly.
    fixture = git.out("diff", "--binary", "--full-index", base_tree, start, cwd=repo)
    solution = git.out("diff", "--full-index", start, base_tree, "--", *candidate.code_files, cwd=repo)
    if not solution.strip():
        raise NotPosable("the fix's code change is no longer visible at the base")
    forward = git.out("diff", parent, sha, "--", *candidate.code_files, cwd=repo)
    created = created_names(forward)
    imported = set().union(*(imported_names(text.decode("utf-8", "replace")) for text in hidden.values()))
    if leaked := sorted(created & imported):
        flags.append(f"the hidden tests import names the fix creates ({', '.join(leaked[:5])}): the prompt must name "
                     "them, or the task is unsolvable without the diff")
    return Materials(candidate, fixture, solution, hidden, tuple(node_ids), tuple(flags))
