"""Base-run reuse: base runs recorded by a trusted job, reused by later evaluations of the same base.

A base run depends only on the base side: the base tree, the suite and harness, the adapter and
its options (the model), the agent behind it, and the base instruction files. Each task gets a
cache key over exactly those inputs; an entry is stored under `DIR/<task>/<key>/` with one
record and patch per repeat and a `key.json` listing the key's parts and a digest per file.

Refused, and reported, instead of reused:
  stale       no entry for this key, but one for the same task with other parts (says which);
              or an entry older than the maximum age (models drift behind the same name)
  mismatched  a file whose digest differs from key.json, a record for another task or input
              commit, a run that was not valid; or, after this evaluation's candidate runs,
              an agent, model or harness version that differs from what the candidate reported
Only valid runs (no infrastructure failure) are ever stored. Writing is for trusted jobs on the
base branch only; pull-request evaluations read (see README, "Spending fewer runs").
"""

from __future__ import annotations

import hashlib
import json
import shlex
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from instruction_gate import __version__
from instruction_gate.records import read_json_record, write_json_atomic, write_text_atomic

#: Record fields that must agree between a reused base run and this evaluation's candidate runs.
PROVENANCE = ("agent_name", "model", "model_snapshot", "harness_version", "adapter_version", "container_digest")
DEFAULT_MAX_AGE_DAYS = 7.0


def _digest(text: str | bytes) -> str:
    return hashlib.sha256(text.encode() if isinstance(text, str) else text).hexdigest()


def _file_digest(argument: str) -> str | None:
    path = Path(argument)
    return _digest(path.read_bytes()) if path.is_file() else None


def portable_argv(argv: list[str], repo: Path | None) -> list[str]:
    """The adapter command with paths inside the repository written relative to it.

    The checkout's location differs between runners, jobs and act's copies; where the adapter
    lives does not shape a run, its content (`adapter_files`) does.
    """
    if repo is None:
        return list(argv)
    root = repo.resolve()
    portable = []
    for argument in argv:
        path = Path(argument)
        inside = path.is_absolute() and path.resolve().is_relative_to(root)
        portable.append(f"<repo>/{path.resolve().relative_to(root).as_posix()}" if inside else argument)
    return portable


def key_parts(*, task: Any, manifest_sha256: str, base_tree: str, input_commit: str, suite_digest: str,
              adapter_argv: list[str], adapter_options: dict[str, str],
              base_instructions: dict[str, str], repo: Path | None = None,
              check_files: str = "restore") -> dict[str, Any]:
    """Everything that shaped a base run of `task`, by name (the key is their digest)."""
    names = portable_argv(adapter_argv, repo)
    return {
        "task": task.id,
        "task_definition": _digest(json.dumps(task.raw, sort_keys=True)),
        "manifest_sha256": manifest_sha256,
        "base_tree": base_tree,
        "input_commit": input_commit,  # base tree - suite + base instructions + fixture
        "suite": suite_digest,
        "harness": __version__,
        "adapter": shlex.join(names),
        "adapter_files": {name: d for name, arg in zip(names, adapter_argv) if (d := _file_digest(arg))},
        "adapter_options": dict(sorted(adapter_options.items())),
        "base_instructions": dict(sorted(base_instructions.items())),
        # Restored or left in place, the agent's check configuration changes what the checks judged.
        "check_files": check_files,
    }


def key_of(parts: dict[str, Any]) -> str:
    return _digest(json.dumps(parts, sort_keys=True))[:32]


@dataclass
class Hit:
    """A cached base run for one (task, repeat), not yet verified against this evaluation's agent."""

    task_id: str
    repeat: int
    record: dict[str, Any]
    patch: str
    key: str


@dataclass
class Lookup:
    hits: dict[tuple[str, int], Hit] = field(default_factory=dict)
    refusals: list[str] = field(default_factory=list)  #: one line per refused entry, with the reason
    misses: list[str] = field(default_factory=list)  #: (task, repeat) with nothing cached


class BaselineCache:
    def __init__(self, root: Path, max_age_days: float = DEFAULT_MAX_AGE_DAYS):
        self.root = root
        self.max_age_days = max_age_days

    def _entry(self, task_id: str, key: str) -> Path:
        return self.root / _digest(task_id)[:16] / key

    # -- writing (trusted base-branch jobs only) --------------------------------------------
    def store(self, parts: dict[str, Any], runs: list[tuple[dict[str, Any], str]]) -> int:
        """Store the valid runs of one task; returns how many were stored."""
        entry = self._entry(parts["task"], key_of(parts))
        files: dict[str, str] = {}
        for record, patch in runs:
            if not record.get("valid") or record.get("failure_class") == "infrastructure" or record.get("reused"):
                continue
            name = f"repeat-{record['repeat']}"
            body = json.dumps(record, indent=2) + "\n"
            write_text_atomic(entry / f"{name}.json", body)
            write_text_atomic(entry / f"{name}.patch", patch)
            files[f"{name}.json"], files[f"{name}.patch"] = _digest(body), _digest(patch)
        if files:
            write_json_atomic(entry / "key.json", {"schema_version": 1, "kind": "instruction-gate/baseline-cache",
                                                   "parts": parts, "files": files,
                                                   "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds")})
        return len(files) // 2

    # -- reading ------------------------------------------------------------------------------
    def lookup(self, parts: dict[str, Any], repeats: list[int], found: Lookup) -> None:
        """Add the usable cached runs of one task to `found`, and every refusal with its reason."""
        task_id, key = parts["task"], key_of(parts)
        entry = self._entry(task_id, key)
        meta_path = entry / "key.json"
        if not meta_path.is_file():
            stale = self._stale_reason(parts, entry.parent, key)
            (found.refusals if stale else found.misses).append(f"{task_id}: {stale or 'not cached'}")
            return
        meta = read_json_record(meta_path)
        age = _age_days(meta.get("created_at"))
        if age is None or age > self.max_age_days:
            found.refusals.append(f"{task_id}: stale, recorded {meta.get('created_at')} "
                                  f"(older than {self.max_age_days:g} days)")
            return
        for repeat in repeats:
            name = f"repeat-{repeat}"
            if f"{name}.json" not in meta.get("files", {}):
                found.misses.append(f"{task_id} repeat {repeat}: not cached")
                continue
            problem, record, patch = self._read_run(entry, name, meta["files"], parts)
            if problem:
                found.refusals.append(f"{task_id} repeat {repeat}: mismatched, {problem}")
            else:
                found.hits[(task_id, repeat)] = Hit(task_id, repeat, record, patch, key)

    def _read_run(self, entry: Path, name: str, digests: dict[str, str], parts: dict[str, Any]):
        try:
            body = (entry / f"{name}.json").read_text(encoding="utf-8")
            patch = (entry / f"{name}.patch").read_text(encoding="utf-8")
        except OSError as exc:
            return f"unreadable ({exc.strerror})", None, None
        if _digest(body) != digests.get(f"{name}.json") or _digest(patch) != digests.get(f"{name}.patch"):
            return "content does not match its digest in key.json", None, None
        record = json.loads(body)
        if record.get("task_id") != parts["task"] or record.get("variant") != "base":
            return "record is not a base run of this task", None, None
        if record.get("input_commit") != parts["input_commit"]:
            return f"record's input commit {record.get('input_commit')} is not {parts['input_commit']}", None, None
        if not record.get("valid"):
            return "record is not a valid run", None, None
        return None, record, patch

    def _stale_reason(self, parts: dict[str, Any], task_dir: Path, key: str) -> str | None:
        others = sorted(task_dir.glob("*/key.json"), key=lambda p: p.stat().st_mtime, reverse=True) if task_dir.is_dir() else []
        if not others:
            return None
        newest = read_json_record(others[0]).get("parts", {})
        changed = sorted(name for name in set(parts) | set(newest) if parts.get(name) != newest.get(name))
        return f"stale, the cached entry differs in {', '.join(changed)}"


def _age_days(stamp: Any) -> float | None:
    try:
        created = datetime.fromisoformat(str(stamp))
    except ValueError:
        return None
    return (datetime.now(timezone.utc) - created).total_seconds() / 86400


def provenance_mismatch(hit: Hit, candidate_runs: list[dict[str, Any]]) -> str | None:
    """Why a cached base run does not come from the agent this evaluation ran, or None."""
    for name in PROVENANCE:
        cached = hit.record.get(name)
        seen = {run.get(name) for run in candidate_runs if run.get(name) is not None}
        if seen and (cached is None or cached not in seen or len(seen) > 1):
            return f"{name} {cached!r} vs {sorted(map(str, seen))} in this evaluation's candidate runs"
    return None


def reused_record(hit: Hit, header: dict[str, Any], order: int) -> dict[str, Any]:
    """The cached record as a base run of this evaluation, marked as reused."""
    return {**hit.record, "base_sha": header["base_sha"], "candidate_sha": header["candidate_sha"],
            "merge_base_sha": header["merge_base_sha"], "order": order, "reused": True,
            "reused_from": {"cache_key": hit.key, "base_sha": hit.record.get("base_sha"),
                            "started_at": hit.record.get("started_at")}}
