"""Fix-shaped commits of first-parent history: candidates for mined tasks.

A candidate changes Python code and Python tests, within a size bound, and its subject reads
like a fix. Everything else is dropped here with the reason, so the mining report accounts for
every commit it looked at.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from pathlib import Path

from instruction_gate import git
from instruction_gate.errors import ConfigError

#: Subjects that read like a fix (a word, not a substring: "prefix" is not "fix").
FIX_WORDS = re.compile(r"\b(fix(es|ed)?|bug(fix)?|regression|crash(es|ed)?|correct(s|ed|ly)?|handle[sd]?|prevent(s|ed)?|"
                       r"resolve[sd]?|broken|wrong|incorrect|error|fail(s|ed|ing|ure)?)\b", re.IGNORECASE)
#: Subjects of changes that are not behaviour fixes even when they say "fix".
NOT_FIX = re.compile(r"^\s*(revert|merge|docs?|chore|ci|build|style|typo|bump|release|deps?)\b[:(\s!]|"
                     r"\b(typos?|spelling|docstrings?|readme|changelog|lint(ing)?|mypy|type hints?|flake8|ruff)\b",
                     re.IGNORECASE)
#: Documentation the fixture leaves alone (a release note does not change behaviour).
DOC_FILE = re.compile(r"(^|/)(docs?/|CHANGE|HISTORY|NEWS|README|AUTHORS)|\.(md|rst|txt|adoc)$", re.IGNORECASE)
#: Files whose change would alter the environment the checks run in, not the code under test.
ENVIRONMENT_FILE = re.compile(r"(^|/)(pyproject\.toml|setup\.(py|cfg)|tox\.ini|pytest\.ini|conftest\.py|"
                              r"requirements[^/]*\.txt|[^/]*\.lock|Pipfile(\.lock)?|noxfile\.py|\.github/.*)$")


def is_test_file(path: str) -> bool:
    """A Python test module as pytest's default collection finds it."""
    name = posixpath.basename(path)
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))


@dataclass(frozen=True)
class Candidate:
    sha: str
    subject: str  #: what the prompt is written from (a merge's: its pull request's title)
    date: str  #: committer date, ISO 8601
    code_files: tuple[str, ...]  #: Python files outside the tests the fix changes
    test_files: tuple[str, ...]


@dataclass(frozen=True)
class Dropped:
    sha: str
    subject: str
    reason: str


@dataclass(frozen=True)
class Limits:
    max_commits: int = 300
    max_changed_lines: int = 400
    max_files: int = 8
    any_subject: bool = False  #: every commit changing code and tests is a candidate (validation decides)


MERGE_SUBJECT = re.compile(r"^Merge (pull request|branch|remote-tracking branch)\b")


def pull_request_title(subject: str, body: str) -> str:
    """A merge commit's subject says only "Merge pull request #12 from …"; its body's first
    line is the pull request's title, which says what changed."""
    if MERGE_SUBJECT.match(subject) and body.strip():
        return body.strip().partition("\n")[0].strip()
    return subject


def _classify(sha: str, subject: str, numstat: list[tuple[int, int, str]], limits: Limits) -> str | None:
    """Why this commit is not a candidate, or None when it is one."""
    if not limits.any_subject and (NOT_FIX.search(subject) or not FIX_WORDS.search(subject)):
        return "subject does not read like a behaviour fix"
    paths = [p for _, _, p in numstat]
    if any(ENVIRONMENT_FILE.search(p) for p in paths):
        return "changes the project's environment or test configuration: " + next(p for p in paths if ENVIRONMENT_FILE.search(p))
    relevant = [(a, d, p) for a, d, p in numstat if not DOC_FILE.search(p)]
    other = [p for _, _, p in relevant if not p.endswith(".py")]
    if other:
        return f"changes files other than Python code and tests: {', '.join(other[:3])}"
    tests = [p for _, _, p in relevant if is_test_file(p)]
    code = [p for _, _, p in relevant if not is_test_file(p)]
    if not tests:
        return "changes no test module"
    if not code:
        return "changes tests only"
    if len(relevant) > limits.max_files:
        return f"changes {len(relevant)} files (more than {limits.max_files})"
    lines = sum(a + d for a, d, _ in relevant)
    if lines > limits.max_changed_lines:
        return f"changes {lines} lines (more than {limits.max_changed_lines})"
    return None


def scan(repo: Path, tip: str = "HEAD", limits: Limits = Limits()) -> tuple[list[Candidate], list[Dropped]]:
    """The fix-shaped commits among the last `limits.max_commits` first-parent commits of `tip`,
    newest first, and every other commit with why it was dropped."""
    # Merges included, diffed against their first parent: where pull requests land as merge
    # commits, first-parent history is nothing but merges, and their first parent is the base.
    log = git.out("log", "--first-parent", "--diff-merges=first-parent", f"-n{limits.max_commits}", "-z", "--numstat",
                  "--no-renames", "--format=%x01%H%x00%cI%x00%s%x00%b%x00", tip, cwd=repo)
    candidates, dropped = [], []
    for entry in log.split("\x01")[1:]:
        sha, date, subject, body, stat = (entry.split("\0", 4) + [""] * 5)[:5]
        subject = pull_request_title(subject, body)
        numstat = []
        for row in stat.strip("\0\n").split("\0"):
            fields = row.strip("\n").split("\t")
            if len(fields) == 3:
                added, deleted, path = fields
                binary = added == "-"
                numstat.append((0 if binary else int(added), 0 if binary else int(deleted), path + ("\0bin" if binary else "")))
        if any(p.endswith("\0bin") for _, _, p in numstat):
            dropped.append(Dropped(sha, subject, "changes a binary file"))
            continue
        if why := _classify(sha, subject, numstat, limits):
            dropped.append(Dropped(sha, subject, why))
            continue
        relevant = [p for _, _, p in numstat if not DOC_FILE.search(p)]
        candidates.append(Candidate(sha, subject, date, tuple(p for p in relevant if not is_test_file(p)),
                                    tuple(p for p in relevant if is_test_file(p))))
    return candidates, dropped


def one(repo: Path, sha: str) -> Candidate:
    """The commit a maintainer picked (`new-task --from-commit`), whatever its subject says."""
    found = git.git("rev-parse", "--verify", "--quiet", "--end-of-options", f"{sha}^{{commit}}", cwd=repo, check=False)
    if not found.ok:
        raise ConfigError(f"--from-commit: {sha!r} is not a commit in {repo}")
    full = found.stdout.strip()
    date, subject, body = (git.out("show", "-s", "--format=%cI%x00%s%x00%b", full, cwd=repo).split("\0") + ["", ""])[:3]
    subject = pull_request_title(subject, body)
    files = git.split_z(git.out("diff-tree", "-r", "-z", "--no-renames", "--name-only", f"{full}^", full, cwd=repo))
    relevant = [p for p in files if not DOC_FILE.search(p)]
    return Candidate(full, subject, date, tuple(p for p in relevant if not is_test_file(p)),
                     tuple(p for p in relevant if is_test_file(p)))
