"""One backtest row: the gate on one (parent, commit) pair, run as CI runs it (runner.py, compare.py).

Each commit owns `OUT/commits/<sha>/`: the evaluation's records under `results/`, the
comparison's `summary.md`/`summary.json`, and `row.json`, written last, which marks the
commit finished. A commit without `row.json` is continued with `--resume` next time.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from instruction_gate import proc
from instruction_gate.backtest.history import InstructionCommit
from instruction_gate.records import write_json_atomic

#: The harness this package belongs to: runner.py and compare.py sit next to the package.
HARNESS = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Setup:
    """What every commit of one backtest shares."""

    scratch: Path  #: the replay repository (runner --repo)
    manifest: Path  #: the trusted manifest inside it
    policy: Path  #: the trusted ref's policy (or `{}`), copied into the output directory
    runner_flags: tuple[str, ...]  #: --adapter, --jobs, --repeats, --tasks, --adapter-option ...
    temp_dir: Path


def finished(directory: Path) -> dict[str, Any] | None:
    path = directory / "row.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def _error_line(stderr: str) -> str:
    lines = [line for line in stderr.strip().splitlines() if line.strip()]
    picked = next((line for line in lines if "error:" in line), lines[-1] if lines else "no output")
    problems = [line.strip() for line in lines if line.startswith("  ")][:3]
    return " ".join([picked.split("error:", 1)[-1].strip(), *problems])[:600]


def evaluate(commit: InstructionCommit, base: str, candidate: str, directory: Path, setup: Setup) -> dict[str, Any]:
    """Evaluate, compare, and write `row.json`; returns the row."""
    results = directory / "results"
    argv = [sys.executable, str(HARNESS / "runner.py"), "--repo", str(setup.scratch), "--manifest", str(setup.manifest),
            "--base", base, "--candidate", candidate, "--out", str(results), "--temp-dir", str(setup.temp_dir),
            "--mixed-changes", "hold-code", "--policy", str(setup.policy), *setup.runner_flags]
    if (results / "index.json").is_file():
        argv.append("--resume")
    evaluated = proc.run(argv, setup.scratch, tail_bytes=20000)
    row: dict[str, Any] = {
        "commit": commit.sha, "parent": commit.parent, "date": commit.date, "subject": commit.subject,
        "instruction_files": list(commit.instruction_files), "code_files": list(commit.code_files),
        "mode": "hold-code" if commit.mixed else "instructions only", "verdict": "error",
        "exit_code": evaluated.exit_code, "success_delta": None, "blocking": [], "runs": 0, "detail": None,
        "summary": None}
    if evaluated.exit_code not in (0, 1, 3) or not (results / "index.json").is_file():
        row["detail"] = _error_line(evaluated.start_error or evaluated.stderr)
        row["verdict"] = "error" if evaluated.exit_code == 2 else "not evaluated"
        write_json_atomic(directory / "row.json", row)
        return row
    summary = directory / "summary.md"
    compare = [sys.executable, str(HARNESS / "compare.py"), "--results", str(results), "--summary", str(summary),
               "--policy", str(setup.policy)]
    compared = proc.run(compare, setup.scratch)
    row.update(_from_summary(directory / "summary.json", compared.exit_code))
    if compared.exit_code not in (0, 1) and not row["detail"]:
        row["detail"] = _error_line(compared.stderr)
    write_json_atomic(directory / "row.json", row)
    return row


def _from_summary(path: Path, exit_code: int | None) -> dict[str, Any]:
    if not path.is_file():
        return {"verdict": "error", "exit_code": exit_code}
    data = json.loads(path.read_text(encoding="utf-8"))
    resolved = (data.get("metrics") or {}).get("resolved") or {}
    cost = ((data.get("spending") or {}).get("cost") or {})
    blocking = sorted({f"{f['task_id']}: {f['category']}" for f in data.get("hard_failures", []) if f.get("blocking")})
    verdict = "not evaluated" if exit_code == 3 else data["verdict"]
    return {"verdict": verdict, "exit_code": exit_code, "blocking": blocking,
            "success_delta": {k: resolved.get(k) for k in ("estimate", "low", "high")} if resolved else None,
            "runs": int(cost.get("agent_runs") or 0) - int(cost.get("reused_runs") or 0),
            "detail": None if verdict in ("pass", "fail") else data.get("headline"), "summary": "summary.md"}
