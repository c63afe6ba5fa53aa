"""Compare's side of impact analysis: the runner's `impact` block of index.json, read without git.

The runner decided which tasks could see the change and ran only those; the soft metrics are
therefore over affected tasks alone. This module says so in the summary, and turns "no task
can see this change" into the verdict the policy asks for (`impact.when_no_task_affected`).
"""

from __future__ import annotations

from typing import Any

from instruction_gate.errors import EXIT_GATE_FAILURE, EXIT_PASS
from instruction_gate.verdict.decision import Decision
from instruction_gate.verdict.policy import Policy


def view(headers: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The impact block (every shard of one evaluation records the same one), or None."""
    blocks = [h["impact"] for h in headers if isinstance(h.get("impact"), dict)]
    return blocks[0] if blocks else None


def no_task_decision(block: dict[str, Any], policy: Policy) -> Decision:
    """The verdict when no task could see the change: the policy decides whether that blocks."""
    changed = ", ".join(block.get("changed_paths") or []) or "no file"
    message = (f"the suite has no task that can see this change ({changed}) under {block.get('discovery')} "
               "discovery: no agent run could have shown a difference; add a task whose working "
               "directory reaches these files")
    if block.get("hint"):
        message += f"; {block['hint']}"
    setting = policy.impact["when_no_task_affected"]
    if setting == "fail":
        return Decision("fail", EXIT_GATE_FAILURE, f"FAIL: {message}", errors=[message],
                        failures=["impact.when_no_task_affected"])
    return Decision("pass", EXIT_PASS, f"PASS (no evidence): {message}",
                    warnings=[message] if setting == "warn" else [])


def outran(block: dict[str, Any] | None, runs: dict[tuple[str, int, str], dict[str, Any]]) -> list[str]:
    """Warnings for runs whose agent reported loading an instruction file the rule did not predict.

    The rule decided which tasks to skip; an agent that loads more than it assumes may also see
    a change from a task the rule called unaffected. Only the runs that did happen can show it.
    """
    if block is None or block.get("mode") != "skip":
        return []
    predicted = {t.get("task_id"): set(t.get("reachable") or []) for t in block.get("tasks", [])}
    found: dict[str, set[str]] = {}
    for (task_id, _repeat, _variant), run in runs.items():
        sources = run.get("instruction_sources")
        if task_id in predicted and isinstance(sources, list):
            found.setdefault(task_id, set()).update(str(s) for s in sources if str(s) not in predicted[task_id])
    return [f"impact analysis: {task_id} loaded {', '.join(sorted(paths)[:5])}, which the "
            f"{block.get('discovery')} discovery rule does not predict from its cwd; the agent reads more than "
            "the rule assumes, so a task left unrun may have seen the change; set `impact: run` in the policy "
            "if this persists" for task_id, paths in sorted(found.items()) if paths]


def summary_block(block: dict[str, Any] | None) -> dict[str, Any] | None:
    """summary.json's `impact`: what was run, what was not, and why."""
    if block is None:
        return None
    keys = ("mode", "discovery", "changed_paths", "unreachable_changes", "affected", "unaffected")
    return {**{k: block.get(k) for k in keys}, **({"unbounded": block["unbounded"]} if block.get("unbounded") else {}),
            **{k: block[k] for k in ("other_agents", "hint") if block.get(k)},
            "tasks": [{**{k: t.get(k) for k in ("task_id", "cwd", "affected", "reason")},
                       **({"agents": t["agents"]} if t.get("agents") else {})} for t in block.get("tasks", [])]}
