"""Build the demo repository: the example project with this harness vendored at `evals/instructions/`.

The result has the layout a user's repository has after adopting the gate, and two commits:
the base, and a candidate that only edits instruction files (a benign edit, one of the
shipped mutations, or a user-supplied AGENTS.md).
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


def _commit(repo: Path, message: str) -> str:
    git.git("add", "-A", cwd=repo)
    git.git("commit", "-q", "--allow-empty", "--no-gpg-sign", "-m", message, cwd=repo)
    return git.out("rev-parse", "HEAD", cwd=repo).strip()


def build(dest: Path, candidate: Candidate) -> DemoRepo:
    """Create the demo repository at `dest` (which must not exist) with base and candidate commits."""
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
    base = _commit(dest, "Example shop with the instruction gate at evals/instructions")
    if candidate.patch is not None:
        applied = git.git("apply", "--whitespace=nowarn", str(candidate.patch), cwd=dest, check=False)
        if not applied.ok:
            raise ConfigError(f"{candidate.patch}: does not apply to the example: {applied.stderr.strip()}")
    elif candidate.agents_file is not None:
        shutil.copyfile(candidate.agents_file, dest / "AGENTS.md")
    head = _commit(dest, f"Candidate instructions: {candidate.name}")
    return DemoRepo(dest, base, head)
