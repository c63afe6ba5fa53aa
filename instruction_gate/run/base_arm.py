"""Can the suite see what it gates? One base-arm run per task, and one without instruction files.

The evaluation itself does the runs (same workspaces, sandbox, checks and rules): the candidate
is a scratch commit of the base with every instruction file deleted. Per task, from the records:
- a rule that fails in the base run, or a required command that never ran to completion there,
  cannot fail because of an edit (it already fails): blind;
- a task whose base run does exactly what the run without instructions does (same commands,
  same edits, same rule outcomes) gives an instruction edit nothing to change: blind.
"""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from instruction_gate import records
from instruction_gate.mining import scratch
from instruction_gate.errors import NotEvaluatedError

#: The offline reference agent's adapter, shipped with the harness.
REFERENCE_ADAPTER = Path(__file__).resolve().parents[2] / "adapters" / "reference"


@dataclass
class BaseArm:
    """What one task's base run did, and why the suite cannot see an edit through it, if so."""

    task_id: str
    blind: list[str] = field(default_factory=list)
    satisfied: list[str] = field(default_factory=list)  #: rule ids the base run satisfied
    commands: list[dict[str, Any]] = field(default_factory=list)  #: {command, exit_code} as the agent ran them


def without_instructions(repo: Path, base: str, instruction_paths: list[str]) -> str:
    """A commit of `base` minus its instruction files (objects only; no ref moves)."""
    return scratch.commit_with(repo, base, {}, instruction_paths, "instruction-gate: no instruction files")


def _commands(run_dir: Path) -> list[dict[str, Any]]:
    path = run_dir / "events.jsonl"
    if not path.exists():
        return []
    found = []
    for line in path.read_text(errors="replace").splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict) and event.get("type") == "tool" and event.get("command"):
            found.append({"command": event["command"], "exit_code": event.get("exit_code")})
    return found


def _behaviour(run: dict[str, Any], commands: list[dict[str, Any]]) -> tuple:
    return (tuple(c["command"] for c in commands), tuple(sorted(run.get("edited_files") or [])),
            tuple(sorted((r["id"], r["outcome"]) for r in run.get("rules") or [])))


def judge(index: dict[str, Any], out: Path) -> dict[str, BaseArm]:
    runs = {(r["task_id"], r["variant"]): r for r in index.get("runs", [])}
    found: dict[str, BaseArm] = {}
    for (task_id, variant), run in sorted(runs.items()):
        if variant != "base":
            continue
        arm = found.setdefault(task_id, BaseArm(task_id))
        if not run.get("valid"):
            arm.blind.append(f"the base run did not complete ({run.get('failure_reason') or run.get('failure_class')})")
            continue
        run_dir = records.run_dir(out, task_id, run["repeat"], "base")
        arm.commands = _commands(run_dir)
        for rule in run.get("rules") or []:
            if rule["outcome"] == "satisfied":
                arm.satisfied.append(rule["id"])
            elif rule["outcome"] == "violated":
                evidence = "; ".join(str(e) for e in rule.get("evidence") or [])[:200]
                arm.blind.append(f"rule {rule['id']} fails in the base run{': ' + evidence if evidence else ''}")
        bare = runs.get((task_id, "candidate"))
        if bare is not None and bare.get("valid") and not arm.blind:
            bare_commands = _commands(records.run_dir(out, task_id, bare["repeat"], "candidate"))
            if _behaviour(run, arm.commands) == _behaviour(bare, bare_commands):
                arm.blind.append("the instruction files change nothing the agent does: without them it runs the "
                                 "same commands and edits the same files")
    return found


def probe(repo: Path, manifest: Path, base: str, instruction_paths: list[str], adapter: str,
          extra: list[str], temp_dir: Path | None, keep: Path | None = None) -> dict[str, BaseArm]:
    """Run the base and no-instruction arms once per task; the judgement per task id. `keep`:
    where the runs' records stay (`--base-arm-out`); otherwise they go with a temporary directory."""
    from instruction_gate.cli import build_parser, execute  # the evaluation as a user runs it

    bare = without_instructions(repo, base, instruction_paths)
    with tempfile.TemporaryDirectory(prefix="ig-base-arm-", dir=temp_dir) as holder:
        out = keep.absolute() if keep is not None else Path(holder) / "runs"
        argv = ["--repo", str(repo), "--manifest", str(manifest), "--base", base, "--candidate", bare, "--out", str(out),
                "--adapter", adapter, "--repeats", "1", *extra]
        shown = io.StringIO()
        with contextlib.redirect_stdout(shown):
            code = execute(build_parser("evaluate").parse_args(argv))
        if code not in (0, 1) or not (out / "index.json").exists():
            raise NotEvaluatedError(f"validate-tasks: the base-arm runs could not be made (evaluate exit {code}): "
                                    f"{shown.getvalue().strip()[-500:]}")
        return judge(json.loads((out / "index.json").read_text()), out)
