"""Judge one finished run by every rule of its task: the `rules` and `rule_metrics` record fields."""

from __future__ import annotations

from typing import Any, Sequence

from instruction_gate.rules.bundle import Commit, RunBundle
from instruction_gate.rules.metrics import run_metrics
from instruction_gate.rules.model import Rule, evaluate


def judge(rules: Sequence[Rule], events: list[dict[str, Any]], turn_count: int, edited_files: Sequence[str],
          additions: int, deletions: int, created: dict[str, bytes | None] | None,
          commits: tuple[Commit, ...] | None) -> dict[str, Any]:
    bundle = RunBundle.from_events(events, turn_count, edited_files=tuple(edited_files), additions=additions,
                                   deletions=deletions, created=created, commits=commits)
    results = [evaluate(rule, bundle).to_record() for rule in rules]
    return {"rules": results, "rule_metrics": run_metrics(results, turn_count)}
