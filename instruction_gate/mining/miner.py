"""Mining end to end: candidates -> task files on the base -> validation in batches -> suite.

Shared by `mine` (history) and `new-task --from-commit` (one commit a maintainer picks).
Candidates are validated in batches until enough are kept or the time budget is spent; each
batch is one scratch commit and one stage (mining/validation.py).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from instruction_gate import git, globs
from instruction_gate.agents.loading import FORMAT_GLOBS, is_instruction_file
from instruction_gate.errors import ConfigError, NotEvaluatedError
from instruction_gate.mining import entries, materials, proposals, selection, suite_writer, validation
from instruction_gate.mining.history import Candidate
from instruction_gate.mining.report import MiningReport, Row
from instruction_gate.run.sandbox import Sandbox


@dataclass(frozen=True)
class Settings:
    repo: Path
    base: str  #: a full commit id
    suite_dir: str  #: repository-relative directory of the suite's task folders
    manifest_path: Path
    env_dir: Path | None
    mechanism: Sandbox
    readable: tuple[Path, ...] = ()
    max_tasks: int = 8
    budget_seconds: float = 18 * 60
    temp_dir: Path | None = None
    write: bool = True


def _instruction_paths(tree_paths: list[str]) -> list[str]:
    # By name (AGENTS.md, CLAUDE.md, ...) and by place (Copilot's and Cursor's rule files, .claude/rules,
    # skills); a folder format the repository uses also by its glob, so a rule file added later is covered.
    found = sorted(p for p in tree_paths if is_instruction_file(p))
    folders = [g for g in FORMAT_GLOBS if "/**/" in g.removeprefix("**/") and globs.filter_paths(found, (g,))]
    return found + folders


def _existing(path: Path) -> dict[str, Any] | None:
    if not path.exists():
        return None
    from instruction_gate.suite import manifest as manifest_mod  # checked like any manifest before extending it

    manifest_mod.load(path)
    return json.loads(path.read_text()) if path.suffix == ".json" else None


def _notes(repo: Path, base: str, tree_paths: list[str]) -> list[str]:
    """What makes a mined suite blind before any task is judged."""
    if suite_writer.code_path(set(tree_paths)) != "{workspace}/src":
        return []
    config = b"".join(git.blob(f"{base}:{name}", repo, missing_ok=True) or b""
                      for name in ("pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini"))
    if b"pythonpath" in config:
        return []
    return ["src/ layout without pytest's `pythonpath` setting: the checks find the workspace's code (check_env "
            "PYTHONPATH), but the agent's own `pytest` does not: it cannot import the project (a required test "
            "command then never completes in the base arm, and validate-tasks calls the task blind), or it "
            "imports a copy installed in the environment (when a test tool depends on the project) and tests "
            "that. Add `pythonpath = [\"src\"]` to the project's pytest configuration (README: The check "
            "environment)."]


def mine(settings: Settings, candidates: list[Candidate], rows: list[Row], scanned: int,
         progress: Callable[[str], None]) -> MiningReport:
    started = time.monotonic()
    repo, base = settings.repo, settings.base
    existing = _existing(settings.manifest_path)
    if settings.manifest_path.suffix != ".json" and settings.manifest_path.exists():
        raise ConfigError(f"{settings.manifest_path}: mined tasks are added to JSON manifests only; name a .json --manifest")
    tree_paths = git.split_z(git.out("ls-tree", "-r", "-z", "--name-only", base, cwd=repo))
    proposed = proposals.propose(repo, base)
    required, gate_sources = proposals.required_test_command(proposed)
    instruction_paths = _instruction_paths(tree_paths)
    fresh = suite_writer.new_manifest(instruction_paths, set(tree_paths), proposed, gate_sources)
    ordered = selection.spread(candidates, selection.instruction_directories(tree_paths))
    posed: list[tuple[Candidate, dict[str, Any], dict[str, bytes]]] = []
    for candidate in ordered:
        try:
            task, files = entries.entry(materials.build(repo, candidate, base), settings.suite_dir, required)
        except materials.NotPosable as exc:
            rows.append(Row(candidate.sha, candidate.subject, "not-posable", str(exc)))
            continue
        posed.append((candidate, task, files))
    kept: list[tuple[dict[str, Any], dict[str, bytes]]] = []
    queue = list(posed)
    while queue and len(kept) < settings.max_tasks:
        if time.monotonic() - started > settings.budget_seconds:
            break
        batch, queue = queue[: max(2, settings.max_tasks - len(kept))], queue[max(2, settings.max_tasks - len(kept)):]
        manifest = {**fresh, "tasks": [task for _, task, _ in batch]}
        files = {path: content for _, _, f in batch for path, content in f.items()}
        outcomes = {o.task_id: o for o in validation.validate(repo, base, manifest, files, settings.env_dir,
                                                              settings.mechanism, settings.readable,
                                                              settings.temp_dir, progress)}
        broken = [o.reason for o in outcomes.values() if "the check environment looks broken" in o.reason]
        if broken and len(broken) == len(outcomes):  # one cause, not a verdict on each candidate
            raise NotEvaluatedError(f"mine: every candidate of a batch failed the same way, in the check environment, "
                                    f"not in the code: {broken[0]}; fix the environment (--check-env-dir) and mine again")
        for candidate, task, task_files in batch:
            outcome = outcomes[task["id"]]
            rows.append(Row(candidate.sha, candidate.subject, "kept" if outcome.kept else "dropped", outcome.reason,
                            task["id"], round(outcome.seconds, 1), task["origin"]["flags"]))
            if outcome.kept and len(kept) < settings.max_tasks:
                kept.append((task, task_files))
    for candidate, task, _ in queue:
        rows.append(Row(candidate.sha, candidate.subject, "not-validated",
                        "enough tasks were kept" if len(kept) >= settings.max_tasks else "the time budget was spent",
                        task["id"]))
    report = MiningReport(scanned, rows, proposed, 0.0, notes=_notes(repo, base, tree_paths))
    if settings.write and kept:
        manifest, added = suite_writer.merged(existing, fresh, [task for task, _ in kept])
        written = {p: c for task, f in kept if task["id"] in added for p, c in f.items()}
        suite_writer.write(repo, settings.manifest_path, manifest, written)
        report.written = added
        report.already = [task["id"] for task, _ in kept if task["id"] not in added]
    report.seconds = time.monotonic() - started
    return report
