"""Build the demo repository: the example project with this harness vendored at `evals/instructions/`.

The result has the layout a user's repository has after adopting the gate, and two commits:
the base, and a candidate that only edits instruction files (a benign edit, one of the
shipped mutations, or a user-supplied AGENTS.md). `build_history` instead gives it a history
of instruction changes to backtest: edits alone and with code, a regression, a merge.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from instruction_gate import git
from instruction_gate.errors import ConfigError

#: The harness checkout this module belongs to (holds runner.py, manifest.json, tasks/, ...).
PROJECT_ROOT = Path(__file__).resolve().parent.parent
EXAMPLE_REPO = PROJECT_ROOT / "examples" / "repo"
CANDIDATES_DIR = PROJECT_ROOT / "examples" / "candidates"
BENIGN_PATCH = CANDIDATES_DIR / "benign.patch"
MUTATIONS_DIR = PROJECT_ROOT / "mutations"
#: Where the suite lives inside the demo repository, as in the reference layout.
SUITE_DIR = "evals/instructions"
#: What is vendored into SUITE_DIR: the harness, its suite and its policy.
HARNESS_ITEMS = ("runner.py", "compare.py", "mutate.py", "blame.py", "instruction_gate", "schemas", "adapters",
                 "manifest.json", "policy.json", "tasks", "mutations")
_JUNK = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", "var")


@dataclass(frozen=True)
class Candidate:
    """How the candidate commit differs from the base."""

    name: str  #: short label for output paths and messages
    patch: Path | None = None  #: a patch against the example's instruction files
    agents_file: Path | None = None  #: a user file that replaces the root AGENTS.md


@dataclass(frozen=True)
class DemoRepo:
    path: Path
    base: str
    candidate: str

    @property
    def suite(self) -> Path:
        return self.path / SUITE_DIR


def mutation_names() -> list[str]:
    return sorted(p.stem for p in MUTATIONS_DIR.glob("*.patch"))


def resolve_candidate(spec: str) -> Candidate:
    """`benign`, `mixed` (examples/candidates/), a mutation name, or the path of an instruction
    file to use as AGENTS.md."""
    if spec in ("benign", "mixed"):
        return Candidate(spec, patch=CANDIDATES_DIR / f"{spec}.patch")
    if spec in mutation_names():
        return Candidate(spec, patch=MUTATIONS_DIR / f"{spec}.patch")
    path = Path(spec).expanduser()
    if path.is_file():
        return Candidate("custom", agents_file=path.resolve())
    raise ConfigError(f"--candidate: {spec!r} is neither 'benign', 'mixed', a mutation "
                      f"({', '.join(mutation_names())}) nor an existing file")


def _commit(repo: Path, message: str, day: int | None = None) -> str:
    """Commit everything; `day` dates it that many days into 2026 (a history needs distinct dates)."""
    git.git("add", "-A", cwd=repo)
    env = None if day is None else {f"GIT_{who}_DATE": f"2026-01-{day:02d}T12:00:00+0000" for who in ("AUTHOR", "COMMITTER")}
    git.git("commit", "-q", "--allow-empty", "--no-gpg-sign", "-m", message, cwd=repo, env=env)
    return git.out("rev-parse", "HEAD", cwd=repo).strip()


def _vendor(dest: Path, day: int | None = None) -> str:
    """The example project with the harness at SUITE_DIR, committed; returns the commit."""
    missing = [item for item in HARNESS_ITEMS if not (PROJECT_ROOT / item).exists()]
    if missing:
        raise ConfigError(f"cannot build the demo: {', '.join(missing)} missing from {PROJECT_ROOT}")
    shutil.copytree(EXAMPLE_REPO, dest, ignore=_JUNK)
    suite = dest / SUITE_DIR
    suite.mkdir(parents=True)
    for item in HARNESS_ITEMS:
        source = PROJECT_ROOT / item
        if source.is_dir():
            shutil.copytree(source, suite / item, ignore=_JUNK, symlinks=True)
        else:
            shutil.copy2(source, suite / item)
    git.git("init", "-q", "-b", "main", cwd=dest)
    return _commit(dest, "Example shop with the instruction gate at evals/instructions", day)


def build(dest: Path, candidate: Candidate) -> DemoRepo:
    """Create the demo repository at `dest` (which must not exist) with base and candidate commits."""
    base = _vendor(dest)
    if candidate.patch is not None:
        applied = git.git("apply", "--whitespace=nowarn", str(candidate.patch), cwd=dest, check=False)
        if not applied.ok:
            raise ConfigError(f"{candidate.patch}: does not apply to the example: {applied.stderr.strip()}")
    elif candidate.agents_file is not None:
        shutil.copyfile(candidate.agents_file, dest / "AGENTS.md")
    head = _commit(dest, f"Candidate instructions: {candidate.name}")
    return DemoRepo(dest, base, head)


#: The demo history's contradiction, the one regression (the `contradiction` mutation's line).
NEVER_PYTEST = "- Never run `pytest` yourself; CI runs the whole suite on every push.\n"
_TESTS_LINE = "- Run the tests with `python -m pytest -q` before finishing.\n"


def _edit(repo: Path, path: str, old: str, new: str) -> None:
    text = (repo / path).read_text(encoding="utf-8")
    if old not in text:
        raise ConfigError(f"cannot build the demo history: {path} no longer contains {old!r}")
    (repo / path).write_text(text.replace(old, new, 1), encoding="utf-8")


def build_history(dest: Path) -> list[str]:
    """The demo repository with a history of instruction changes; returns its commits, oldest first.

    After the vendoring commit: a benign AGENTS.md edit; a mixed commit (docs + AGENTS.md); a
    code-only commit; the regression (a contradiction of the test command); a mixed commit that
    reverts it with a changelog entry; a merge of a branch that edits CLAUDE.md; a last edit.
    """
    commits = [_vendor(dest, day=1)]
    _edit(dest, "AGENTS.md", "- Keep functions small", "- Prefer clear names to comments that repeat the code.\n- Keep functions small")
    commits.append(_commit(dest, "AGENTS.md: prefer clear names", day=2))
    with (dest / "docs" / "guide.md").open("a", encoding="utf-8") as guide:  # the end: no task's fixture is there
        guide.write("\n## Agents\nSee AGENTS.md for how coding agents work here.\n")
    _edit(dest, "AGENTS.md", "- `docs/` is the user guide.", "- `docs/` is the user guide; keep it in step with the code.")
    commits.append(_commit(dest, "Docs and AGENTS.md: the guide follows the code", day=3))
    _edit(dest, "README.md", "\n", "\nMaintained by the shop team.\n")
    commits.append(_commit(dest, "README: maintainers", day=4))
    _edit(dest, "AGENTS.md", _TESTS_LINE, _TESTS_LINE + NEVER_PYTEST)
    commits.append(_commit(dest, "AGENTS.md: CI runs the tests", day=5))
    _edit(dest, "AGENTS.md", NEVER_PYTEST, "")
    _edit(dest, "CHANGELOG.md", "\n", "\n- Agents run the tests again before finishing.\n")
    commits.append(_commit(dest, "Revert the CI-only testing rule; changelog", day=6))
    git.git("checkout", "-q", "-b", "claude-rules", cwd=dest)
    _edit(dest, "CLAUDE.md", "- Never run `git push --force`.", "- Never run `git push --force`.\n- Keep commits small.")
    _commit(dest, "CLAUDE.md: small commits", day=7)
    git.git("checkout", "-q", "main", cwd=dest)
    git.git("merge", "-q", "--no-ff", "--no-gpg-sign", "-m", "Merge branch claude-rules", "claude-rules", cwd=dest,
            env={f"GIT_{who}_DATE": "2026-01-08T12:00:00+0000" for who in ("AUTHOR", "COMMITTER")})
    commits.append(git.out("rev-parse", "HEAD", cwd=dest).strip())
    _edit(dest, "AGENTS.md", "Humans: start with README.md.", "Humans: start with README.md and CONTRIBUTING.md.")
    commits.append(_commit(dest, "AGENTS.md: point humans to CONTRIBUTING.md too", day=9))
    return commits
