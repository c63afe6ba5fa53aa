"""Judge one finished run by every rule of its task: the `rules` and `rule_metrics` record fields."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from instruction_gate.rules import capture
from instruction_gate.rules.bundle import Commit, RunBundle
from instruction_gate.rules.metrics import run_metrics
from instruction_gate.rules.model import Rule, evaluate
from instruction_gate.rules.suite import all_rules


def judge(rules: Sequence[Rule], events: list[dict[str, Any]], turn_count: int, edited_files: Sequence[str],
          additions: int, deletions: int, created: dict[str, bytes | None] | None,
          commits: tuple[Commit, ...] | None) -> dict[str, Any]:
    bundle = RunBundle.from_events(events, turn_count, edited_files=tuple(edited_files), additions=additions,
                                   deletions=deletions, created=created, commits=commits)
    results = [evaluate(rule, bundle).to_record() for rule in rules]
    return {"rules": results, "rule_metrics": run_metrics(results, turn_count)}


def judge_run(task: Any, declared: dict[str, list[Rule]], events: list[dict[str, Any]], captured: Any,
              stage: Any, work_tree: Path, input_commit: Any) -> dict[str, Any]:
    """Rule fields of a valid run, reading created files and commits from the agent's workspace."""
    created = capture.created_files(stage, input_commit.tree, captured.tree, work_tree)
    commits = capture.agent_commits(stage, work_tree, input_commit.commit)
    return judge(all_rules(task, declared), events, len(task.prompt_files), captured.edited_files,
                 captured.additions, captured.deletions, created, commits)
