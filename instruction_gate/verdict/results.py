"""Loading evaluation results: index.json files, directories of shard outputs, bare record lists.

Several inputs are merged into one `ResultSet`. A run (task, repeat, variant) present twice,
or inputs evaluating different base/candidate commits or suites, are refused (exit 2): merging
them would silently compare the wrong things.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from instruction_gate.errors import ConfigError, NotEvaluatedError
from instruction_gate.records import read_json_record
from instruction_gate.schemas import schema_problems

RunKey = tuple[str, int, str]  #: (task_id, repeat, variant)
VARIANTS = ("base", "candidate")
#: Header fields that must agree between merged inputs (null/absent agrees with anything).
_CONSISTENT_FIELDS = ("base_sha", "candidate_sha", "manifest_sha256")


@dataclass
class ResultSet:
    """Every run record of one evaluation, merged from one or more inputs."""

    runs: dict[RunKey, dict[str, Any]] = field(default_factory=dict)
    origin: dict[RunKey, Path] = field(default_factory=dict)  #: the file each run came from
    sources: list[Path] = field(default_factory=list)
    header: dict[str, Any] = field(default_factory=dict)  #: agreed base_sha, candidate_sha, ...
    planned_pairs: set[tuple[str, int]] = field(default_factory=set)  #: from index headers (tasks x repeats)
    shards: list[str] = field(default_factory=list)
    headers: list[dict[str, Any]] = field(default_factory=list)  #: each input index's header (without runs)
    header_origin: dict[str, str] = field(default_factory=dict)  #: the input that set each header field


def index_files(path: Path) -> list[Path]:
    """`path` itself, or every index.json below a directory (shard outputs), sorted."""
    if path.is_dir():
        found = sorted(path.rglob("index.json"))
        if not found:
            raise NotEvaluatedError(f"{path}: no index.json found (no results to compare)")
        return found
    if not path.exists():
        raise NotEvaluatedError(f"{path}: no such results file (did the evaluation run?)")
    return [path]


def _key(run: Any, where: str) -> RunKey:
    if not isinstance(run, dict):
        raise ConfigError(f"{where}: a run record must be an object")
    problems = []
    if not isinstance(run.get("task_id"), str):
        problems.append(f"{where}.task_id: missing or not a string")
    if not isinstance(run.get("repeat"), int) or isinstance(run.get("repeat"), bool):
        problems.append(f"{where}.repeat: missing or not an integer")
    if run.get("variant") not in VARIANTS:
        problems.append(f"{where}.variant: must be 'base' or 'candidate'")
    if not isinstance(run.get("valid", True), bool):
        problems.append(f"{where}.valid: must be a boolean")
    # Every field present must have its documented type and range: "resolved": "yes" would count
    # as a success, hard_failures given as a string would be read letter by letter.
    problems += schema_problems("run-record", run, where, partial=True, finite=True)  # read by records.loads
    if problems:
        raise ConfigError(f"{where}: malformed run record", problems)
    return run["task_id"], run["repeat"], run["variant"]


def _agree(result: ResultSet, name: str, value: Any, label: str) -> None:
    if value is None:
        return
    known = result.header.get(name)
    if known is None:
        result.header[name] = value
        result.header_origin[name] = label
    elif known != value:
        raise ConfigError(f"results disagree on {name}: {known!r} in {result.header_origin.get(name, 'an earlier input')} "
                          f"vs {value!r} in {label}; compare the outputs of one evaluation only")


def add_file(result: ResultSet, path: Path) -> None:
    data = read_json_record(path)
    if isinstance(data, list):
        header, runs, runs_path = {}, data, "$"
    elif isinstance(data, dict) and isinstance(data.get("runs"), list):
        header, runs, runs_path = data, data["runs"], "$.runs"
    else:
        raise ConfigError(f"{path}::$: expected an index (object with 'runs') or a list of run records")
    for name in _CONSISTENT_FIELDS:
        _agree(result, name, header.get(name), str(path))
    for name in ("merge_base_sha", "gate_version"):
        result.header.setdefault(name, header.get(name))
    if isinstance(header.get("tasks"), list) and isinstance(header.get("repeats"), int):
        result.planned_pairs.update((t, r) for t in header["tasks"] for r in range(header["repeats"]))
    if header.get("shard"):
        result.shards.append(str(header["shard"]))
    result.headers.append({k: v for k, v in header.items() if k != "runs"})
    for position, run in enumerate(runs):
        key = _key(run, f"{path}::{runs_path}[{position}]")
        if key in result.runs:
            first = result.origin[key]
            raise ConfigError(f"duplicate run {key[0]} repeat {key[1]} {key[2]}: in {first} and in {path}; "
                              "each run may appear in one input only (overlapping shards?)")
        result.runs[key] = run
        result.origin[key] = path
    for name in ("base_sha", "candidate_sha"):
        for position, value in _distinct(runs, name):
            _agree(result, name, value, f"{path}::{runs_path}[{position}].{name}")
    result.sources.append(path)


def _distinct(runs: list[dict[str, Any]], name: str) -> list[tuple[int, Any]]:
    """(first position, value) of each distinct non-null value of `name` among the runs."""
    first: dict[Any, int] = {}
    for position, run in enumerate(runs):
        value = run.get(name)
        if value is not None and value not in first:
            first[value] = position
    return [(position, value) for value, position in first.items()]


def nothing_affected(headers: list[dict[str, Any]]) -> bool:
    """The runner's impact analysis found no task that can see the change (so no run is expected)."""
    blocks = [h["impact"] for h in headers if isinstance(h.get("impact"), dict)]
    return bool(blocks) and blocks[0].get("mode") == "skip" and not blocks[0].get("affected")


def load_results(paths: list[Path]) -> ResultSet:
    """Merge every input; exit 3 when there is nothing at all to compare."""
    result = ResultSet()
    files = [f for path in paths for f in index_files(path)]
    seen: set[Path] = set()
    for path in files:
        resolved = path.resolve()
        if resolved in seen:
            raise ConfigError(f"{path}: given twice (directly or through a directory)")
        seen.add(resolved)
        add_file(result, path)
    if not result.runs and not nothing_affected(result.headers):
        raise NotEvaluatedError(f"no run records in {', '.join(map(str, files))}")
    return result


def dump_index(path: Path, runs: list[dict[str, Any]], **header: Any) -> None:
    """Write an index.json (used by tests and benchmarks to build inputs)."""
    payload = {"schema_version": 1, "kind": "instruction-gate/index", **header, "runs": runs}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload) + "\n", encoding="utf-8")
