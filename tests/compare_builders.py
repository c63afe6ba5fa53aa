"""Hand-built run records and index files for the compare tests, golden files and benchmarks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable

import jsonschema

from instruction_gate.cli import main
from instruction_gate.schemas import load_schema

BASE_SHA = "1" * 40
CANDIDATE_SHA = "2" * 40


def run(task_id: str, repeat: int, variant: str, resolved: bool = True, *, valid: bool = True,
        hard: Iterable[str] = (), **fields: Any) -> dict[str, Any]:
    """A run record with the fields compare reads; `fields` override any of them."""
    record = {
        "schema_version": 1, "task_id": task_id, "kind": "bug_fix", "variant": variant, "repeat": repeat,
        "base_sha": BASE_SHA, "candidate_sha": CANDIDATE_SHA, "valid": valid, "resolved": bool(resolved and valid),
        "failure_class": None if valid else "infrastructure",
        "failure_reason": None if valid else "fixture patch did not apply",
        "hard_failures": list(hard), "forbidden_files": [], "missing_commands": [], "forbidden_commands": [],
        "missing_events": [], "missing_instruction_sources": [], "checks": [],
        "wall_seconds": 30.0, "input_tokens": 2000, "output_tokens": 400, "cached_input_tokens": 0,
        "provider_cost_usd": 0.02, "tool_calls": 10, "agent_name": "reference-agent", "model": "offline",
        "model_snapshot": "offline-2026-01", "harness_version": "reference 1.0", "adapter_version": "1",
    }
    record.update(fields)
    return record


def outcome_runs(table: dict[str, list[tuple[bool, bool]]], **fields: Any) -> list[dict[str, Any]]:
    """Runs from {task: [(base resolved, candidate resolved) per repeat]}."""
    runs = []
    for task_id, outcomes in table.items():
        for repeat, (base, candidate) in enumerate(outcomes):
            runs.append(run(task_id, repeat, "base", base, **fields))
            runs.append(run(task_id, repeat, "candidate", candidate, **fields))
    return runs


def index(runs: list[dict[str, Any]], *, repeats: int | None = None, tasks: list[str] | None = None,
          shard: str = "1/1", **header: Any) -> dict[str, Any]:
    tasks = tasks if tasks is not None else sorted({r["task_id"] for r in runs})
    repeats = repeats if repeats is not None else max((r["repeat"] for r in runs), default=-1) + 1
    return {"schema_version": 1, "kind": "instruction-gate/index", "base_sha": BASE_SHA,
            "candidate_sha": CANDIDATE_SHA, "merge_base_sha": "0" * 40, "manifest_sha256": "f" * 64,
            "repeats": repeats, "shard": shard, "tasks": tasks, "planned_runs": 2 * len(tasks) * repeats,
            **header, "runs": runs}


def write_json(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return path


def compare(tmp_path, data, policy_data, *extra, results=None):
    """Run `compare` like the workflow does; return (exit code, summary.json, summary.md)."""
    results = results or [write_json(tmp_path / "out" / "index.json", data)]
    policy_path = write_json(tmp_path / "policy.json", policy_data)
    argv = [a for path in results for a in ("--results", str(path))]
    code = main([*argv, "--policy", str(policy_path), "--summary", str(tmp_path / "out" / "summary.md"), *extra],
                only="compare")
    summary_path = tmp_path / "out" / "summary.json"
    summary = json.loads(summary_path.read_text()) if summary_path.exists() else None
    if summary is not None:
        jsonschema.validate(summary, load_schema("summary"))
        assert list(summary)[0] == "schema_version"
    markdown = (tmp_path / "out" / "summary.md").read_text() if (tmp_path / "out" / "summary.md").exists() else ""
    return code, summary, markdown


def policy(soft: dict[str, Any] | None = None, hard: dict[str, Any] | None = None,
           statistics: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"hard": hard or {}, "soft": soft or {}, "statistics": statistics or {}}


#: Golden scenarios: name -> (runs, policy). Shared by the golden test and tests/golden/regenerate.py.
def golden_scenarios() -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    regression = {f"task-{i}": [(True, i % 3 == 0), (True, False), (i % 2 == 0, False)] for i in range(6)}
    regression_runs = outcome_runs(regression)
    regression_runs[3]["hard_failures"] = ["forbidden_file_edited"]
    regression_runs[3]["forbidden_files"] = [".github/workflows/deploy.yml"]
    steady = {f"task-{i}": [(i != 2, i != 2)] * 3 for i in range(5)}
    steady_runs = outcome_runs(steady)
    for record in steady_runs:
        if record["task_id"] == "task-2":
            record["hard_failures"] = ["required_check_failed"]
            record["checks"] = [{"argv": ["pytest", "-q"], "exit_code": 1, "timed_out": False,
                                 "duration_seconds": 1.0, "stdout_tail": "", "stderr_tail": ""}]
    lost = outcome_runs({f"task-{i}": [(True, True)] * 2 for i in range(4)})
    for record in lost:
        if record["variant"] == "candidate" and record["task_id"] != "task-0":
            record.update(valid=False, resolved=False, failure_class="infrastructure",
                          failure_reason="adapter exited 137 before the result event")
    bounds = {"max_success_rate_drop": 0.1, "max_paired_wall_time_ratio": 1.5, "max_paired_output_token_ratio": 1.5}
    return {
        "regression": (index(regression_runs), policy({**bounds, "mode": "fail"})),
        "pass-with-preexisting": (index(steady_runs), policy(bounds)),
        "could-not-evaluate": (index(lost), policy(bounds)),
    }
