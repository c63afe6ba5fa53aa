"""Last step of the composite action: one outcome from the step exit codes and summary.json.

The action's steps record their exit codes instead of failing, so that this step always
runs, writes every action output to `$GITHUB_OUTPUT`, explains an early stop in the job
summary, and exits with the gate's code. Standard library only: it must still run when
setting up the action's own environment failed.
Run as `python -P -m instruction_gate.report.action_report` with the step exit codes in the environment.
"""

from __future__ import annotations

import json
import os
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from instruction_gate.report.github import escape_data

EXIT_MEANINGS = {0: "pass", 1: "gate failure", 2: "usage or configuration error", 3: "could not evaluate"}
#: Which stages each mode runs, in order.
MODE_STAGES = {"changes": ("changes",), "validate": ("validate",), "evaluate": ("evaluate",),
               "compare": ("compare",), "all": ("validate", "evaluate", "compare"),
               "mutate": ("mutate",), "baseline": ("baseline",), "validate-tasks": ("tasks",), "blame": ("blame",),
               "mine": ("mine",)}
STAGE_TITLES = {"changes": "change detection", "validate": "static contract", "evaluate": "paired evaluation",
                "compare": "compare", "mutate": "mutation testing", "baseline": "baseline recording",
                "tasks": "task validation", "blame": "blame", "mine": "mining"}
#: Stages run by the action's one "Agent runs" step (its exit code is AGENT_RUNS_EXIT).
AGENT_STAGES = ("evaluate", "mutate", "baseline", "blame")
LOG_TAIL_LINES = 40


@dataclass
class Outcome:
    """What the action reports: its outputs, and the code the job step exits with."""

    exit_code: int
    exit_reason: str
    verdict: str = ""
    summary_path: str = ""
    summary_json_path: str = ""
    valid_pairs: str = ""
    failing_tasks: tuple[str, ...] = ()
    stopped_at: str | None = None  #: the stage whose failure ended the run before compare decided
    mutation_score: str = ""  #: mode mutate: killed/total as a fraction
    reused_base_runs: str = ""  #: base runs taken from (mode baseline: stored in) the baseline cache

    def outputs(self) -> dict[str, str]:
        return {"verdict": self.verdict, "exit-code": str(self.exit_code), "exit-reason": self.exit_reason,
                "summary-path": self.summary_path, "summary-json-path": self.summary_json_path,
                "valid-pairs": self.valid_pairs, "failing-tasks": json.dumps(list(self.failing_tasks)),
                "mutation-score": self.mutation_score, "reused-base-runs": self.reused_base_runs}


def _code(value: str | None) -> int | None:
    return int(value) if value and value.strip().lstrip("-").isdigit() else None


def failing_tasks(summary: Mapping[str, Any]) -> tuple[str, ...]:
    """Task ids behind summary.json's blocking findings.

    Tasks with a blocking hard-gate failure; and, when a metric gate failed, the tasks that
    lost a repeat (resolved with the base instructions, not with the candidate's).
    """
    names = {str(h["task_id"]) for h in summary.get("hard_failures") or [] if h.get("blocking")}
    metric_failed = any(not str(f).startswith("hard.") and f != "minimum_valid_pairs"
                        for f in summary.get("failures") or [])
    if metric_failed:
        names.update(str(t["task_id"]) for t in summary.get("tasks") or [] if t.get("lost_repeats"))
    return tuple(sorted(names))


def decide(mode: str, codes: Mapping[str, int | None], output_dir: Path | None) -> Outcome:
    """Combine the stages' exit codes (None: did not run) into the action's outcome."""
    if mode not in MODE_STAGES:
        return Outcome(2, f"unknown mode {mode!r}", "error")
    for stage in MODE_STAGES[mode]:
        code = codes.get(stage)
        title = STAGE_TITLES[stage]
        if code is None:
            return Outcome(3, f"{title} did not run: an earlier step of the action failed", "error", stopped_at=stage)
        # A shard's hard-gate regressions are data for compare, not a failure of the shard.
        stage_failed = code not in (0, 1) if stage == "evaluate" else code != 0
        if stage in ("compare", "mutate", "tasks", "mine"):
            break
        if stage == "validate" and code == 1 and codes.get("lint") == 1:
            return _lint_outcome(output_dir)
        if stage_failed:
            # Exit 1 is a gate verdict only for compare, a recorded regression for evaluate and
            # the lint's blocking finding (above); from the static contract itself it is a crash.
            expected = code in (2, 3)
            meaning = EXIT_MEANINGS[code] if expected else "unexpected exit, see the step's log"
            return Outcome(code if expected else 3, f"{title} exited {code}: {meaning}", "error", stopped_at=stage)
    if mode == "mutate":
        return _mutate_outcome(codes["mutate"], output_dir)
    if mode == "validate-tasks":
        return _tasks_outcome(codes["tasks"], output_dir)
    if mode == "mine":
        return _mine_outcome(codes["mine"], output_dir)
    if "compare" not in MODE_STAGES[mode]:
        return _with_cache_counts(Outcome(0, f"{STAGE_TITLES[MODE_STAGES[mode][0]]} finished"), output_dir)
    return _with_cache_counts(_compare_outcome(codes["compare"], output_dir), output_dir)


def _tasks_outcome(code: int, output_dir: Path | None) -> Outcome:
    """validate-tasks: 0 every task valid, 1 some are not (named in failing-tasks), else an error."""
    report = _read_json(output_dir / "task-validation.json" if output_dir else None) or {}
    bad = tuple(sorted(str(t.get("task_id")) for t in report.get("tasks") or [] if t.get("status") != "valid"))
    paths = {"summary_path": str(output_dir / "task-validation.md"),
             "summary_json_path": str(output_dir / "task-validation.json")} if output_dir else {}
    if code == 0:
        return Outcome(0, "task validation: every task's checks fail before and pass after its reference solution",
                       "pass", **paths)
    if code == 1:
        return Outcome(1, f"task validation: {len(bad)} task(s) not valid: {', '.join(bad)}", "fail",
                       failing_tasks=bad, **paths)
    meaning = EXIT_MEANINGS.get(code, "unexpected exit, see the step's log")
    return Outcome(code if code in (2, 3) else 3, f"task validation exited {code}: {meaning}", "error", **paths)


def _mine_outcome(code: int, output_dir: Path | None) -> Outcome:
    """mine: 0 tasks kept (written into the checkout), 1 none kept, else an error."""
    report = _read_json(output_dir / "mining-report.json" if output_dir else None) or {}
    paths = {"summary_path": str(output_dir / "mining-report.md"),
             "summary_json_path": str(output_dir / "mining-report.json")} if output_dir else {}
    if code in (0, 1):
        said = (f"mining: {report.get('kept', 0)} task(s) kept of {report.get('validated', 0)} validated, "
                f"{len(report.get('written') or [])} written")
        return Outcome(code, said, "pass" if code == 0 else "fail", **paths)
    meaning = EXIT_MEANINGS.get(code, "unexpected exit, see the step's log")
    return Outcome(code if code in (2, 3) else 3, f"mining exited {code}: {meaning}", "error", **paths)


def _read_json(path: Path | None) -> dict[str, Any] | None:
    if path is None or not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _with_cache_counts(outcome: Outcome, output_dir: Path | None) -> Outcome:
    """Base runs reused from, or (mode baseline) stored in, the baseline cache, from index.json."""
    index = _read_json(output_dir / "index.json" if output_dir else None) or {}
    block = index.get("baseline_cache") or {}
    count = block.get("stored_runs", block.get("reused_runs"))
    if isinstance(count, int):
        outcome.reused_base_runs = str(count)
        if "stored_runs" in block:
            outcome.exit_reason = f"baseline cache: stored {count} base runs"
    return outcome


def _mutate_outcome(code: int, output_dir: Path | None) -> Outcome:
    """Mutate exits 0 (score reported), 1 (A/A control killed or score below the minimum), 2 or 3."""
    report_md = output_dir / "mutation.md" if output_dir else None
    report_json = output_dir / "mutation.json" if output_dir else None
    report = _read_json(report_json)
    outcome = Outcome(code if code in EXIT_MEANINGS else 3,
                      f"mutation testing exited {code}: {EXIT_MEANINGS.get(code, 'unexpected error')}",
                      {0: "pass", 1: "fail"}.get(code, "error"), stopped_at=None if report else "mutate")
    if report is None:
        return outcome
    score, control = report.get("score") or {}, (report.get("control") or {}).get("status")
    ratio = score.get("ratio")
    outcome.mutation_score = "" if ratio is None else f"{ratio:.4g}"
    unreachable = f", {score['unreachable']} unreachable" if score.get("unreachable") else ""
    outcome.exit_reason = (f"mutation score {score.get('killed')}/{score.get('total')} killed, "
                           f"{score.get('survived')} survived{unreachable}; A/A control {control}")
    outcome.summary_path = str(report_md) if report_md and report_md.is_file() else ""
    outcome.summary_json_path = str(report_json)
    return outcome


def _lint_outcome(output_dir: Path | None) -> Outcome:
    """The static contract's lint found blocking findings the candidate introduces: the gate fails."""
    report = _read_json(output_dir / "lint.json" if output_dir else None) or {}
    blocking = [f for f in report.get("findings") or [] if isinstance(f, dict) and f.get("blocking")]
    named = ", ".join(f"{f.get('rule_id')} {f.get('rule')} at {f.get('path')}:{f.get('line')}" for f in blocking[:5])
    more = f" and {len(blocking) - 5} more" if len(blocking) > 5 else ""
    reason = (f"FAIL: the instruction lint found {len(blocking)} new blocking finding(s): {named}{more}" if blocking
              else "FAIL: the instruction lint found a new blocking finding (see lint.md)")
    lint_md = output_dir / "lint.md" if output_dir else None
    return Outcome(1, reason, "fail", summary_path=str(lint_md) if lint_md and lint_md.is_file() else "")


def _compare_outcome(code: int, output_dir: Path | None) -> Outcome:
    summary_md = output_dir / "summary.md" if output_dir else None
    summary_json = output_dir / "summary.json" if output_dir else None
    outcome = Outcome(code, f"compare exited {code}: {EXIT_MEANINGS.get(code, 'unexpected error')}")
    if code not in EXIT_MEANINGS:
        outcome.exit_code = 3
    if summary_md and summary_md.is_file():
        outcome.summary_path = str(summary_md)
    if summary_json and summary_json.is_file():
        outcome.summary_json_path = str(summary_json)
        summary = json.loads(summary_json.read_text(encoding="utf-8"))
        outcome.verdict = str(summary.get("verdict") or "")
        outcome.valid_pairs = str(summary.get("valid_pairs", ""))
        outcome.failing_tasks = failing_tasks(summary)
        if summary.get("headline"):
            outcome.exit_reason = str(summary["headline"])
    if not outcome.verdict:
        outcome.verdict = {0: "pass", 1: "fail"}.get(code, "error")
    if outcome.exit_code == 1 and outcome.failing_tasks:
        outcome.exit_reason += f"; failing tasks: {', '.join(outcome.failing_tasks)}"
    return outcome


def stopped_note(outcome: Outcome, log_dir: Path) -> str:
    """Job-summary Markdown for a run that stopped before compare could write its summary."""
    lines = [f"## instruction-gate: {outcome.exit_reason}", ""]
    log = log_dir / f"instruction-gate-{outcome.stopped_at}.log"
    if log.is_file():
        tail = log.read_text(encoding="utf-8", errors="replace").splitlines()[-LOG_TAIL_LINES:]
        lines += ["```text", *(line.replace("```", "'''") for line in tail), "```", ""]
    return "\n".join(lines)


def output_line(name: str, value: str) -> str:
    """One `$GITHUB_OUTPUT` entry. A value with a line break (a headline quoting a task's text)
    uses GitHub's delimiter form with a random delimiter, so it can never add another output."""
    if "\n" not in value and "\r" not in value:
        return f"{name}={value}\n"
    delimiter = f"ghadelimiter_{uuid.uuid4()}"
    return f"{name}<<{delimiter}\n{value}\n{delimiter}\n"


def _append(path: str | None, text: str) -> None:
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(text)


def main(env: Mapping[str, str] = os.environ) -> int:
    mode = env.get("MODE", "all")
    output_dir = Path(env["OUTPUT_DIR"]) if env.get("OUTPUT_DIR") else None
    if _code(env.get("INPUTS_EXIT")) == 2:
        outcome = Outcome(2, "the action's inputs were refused: see the errors of its 'Check inputs' step", "error")
    else:
        codes = {stage: _code(env.get(f"{stage.upper()}_EXIT"))
                 for stage in ("changes", "validate", "lint", "tasks", "compare", "mine")}
        codes.update({stage: _code(env.get("AGENT_RUNS_EXIT")) for stage in AGENT_STAGES if stage in MODE_STAGES.get(mode, ())})
        outcome = decide(mode, codes, output_dir)
    _append(env.get("GITHUB_OUTPUT"), "".join(output_line(k, v) for k, v in outcome.outputs().items()))
    if outcome.stopped_at:
        _append(env.get("GITHUB_STEP_SUMMARY"), stopped_note(outcome, Path(env.get("RUNNER_TEMP", "."))))
    level = "notice" if outcome.exit_code == 0 else "error"
    print(f"::{level} title=instruction-gate::{escape_data(outcome.exit_reason)}")
    return outcome.exit_code


if __name__ == "__main__":
    sys.exit(main())
