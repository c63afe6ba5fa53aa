"""Vacuous evidence: checks that never ran, and suites whose tasks nothing resolves.

A check that fails because its environment is broken (a dependency missing, the command not
installed, the test runner collecting nothing) says nothing about the agent. When such a
failure shows in both runs of a pair, or in a run whose partner was lost, both runs are
re-filed as infrastructure: the pair is lost, not counted as a pre-existing failure. When it
shows in one arm only while the other arm's checks ran, it stays that arm's failure: the
agent's commands share the check environment, so it may have broken it.

Independently, a suite in which too few tasks resolve in any base run measured nothing the
agent did; the verdict is then COULD NOT EVALUATE, never PASS (policy `evidence`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from instruction_gate.verdict.policy import Policy
from instruction_gate.verdict.results import VARIANTS, ResultSet


@dataclass(frozen=True)
class Signature:
    """A regular expression searched (multi-line) in a failing check's output tails."""

    name: str
    pattern: re.Pattern[str]


def _sig(name: str, pattern: str) -> Signature:
    return Signature(name, re.compile(pattern, re.MULTILINE))


#: Built-in signatures; README "Checks that never ran" documents each. A dotted module
#: (`No module named 'pkg.sub'`) is left out on purpose: its package imported, so the code is at fault.
BUILTIN_SIGNATURES = (
    _sig("module-not-found", r"No module named '?[A-Za-z_][A-Za-z0-9_]*'?(?=[\s,;:)]|$)"),
    _sig("command-not-found", r"command not found|^\S*sh: \d+: \S+: not found|^No such file or directory: '"
                              r"|bad interpreter"),
    _sig("node-module-not-found", r"Cannot find module '[^./'][^']*'"),
    _sig("test-runner-usage", r"error: unrecognized arguments: |^ERROR: file or directory not found: "),
    _sig("no-tests-ran", r"^=* ?no tests ran\b"),
)


def signatures(policy: Policy) -> list[Signature]:
    """The built-in signatures not ignored by the policy, then the policy's own."""
    evidence = policy.evidence
    ignored = set(evidence["ignore_environment_signatures"])
    own = [_sig(s["name"], s["pattern"]) for s in evidence["environment_signatures"]]
    return [s for s in BUILTIN_SIGNATURES if s.name not in ignored] + own


def environment_failure(run: dict[str, Any], sigs: list[Signature]) -> str | None:
    """`name: matched line` of the first failing check whose output shows a broken environment."""
    for check in run.get("checks") or []:
        if not isinstance(check, dict) or check.get("timed_out") or check.get("exit_code") == 0:
            continue
        output = f"{check.get('stderr_tail') or ''}\n{check.get('stdout_tail') or ''}"
        for sig in sigs:
            found = sig.pattern.search(output)
            if found:
                start = output.rfind("\n", 0, found.start()) + 1
                end = output.find("\n", found.end())
                line = output[start:end if end >= 0 else None].strip()
                return f"{sig.name}: {line[:200]}"
        if check.get("exit_code") is None:
            return f"command-not-found: {(check.get('stderr_tail') or 'check could not start').strip()[:200]}"
    return None


@dataclass(frozen=True)
class EnvironmentBreak:
    task_id: str
    repeat: int
    variant: str
    reason: str


def reclassify(results: ResultSet, policy: Policy) -> tuple[ResultSet, list[EnvironmentBreak]]:
    """Re-file runs whose checks never ran as infrastructure (see the module docstring)."""
    sigs = signatures(policy)
    runs = dict(results.runs)
    breaks: list[EnvironmentBreak] = []
    for task_id, repeat in sorted({(t, r) for (t, r, _) in runs}):
        pair = {v: runs.get((task_id, repeat, v)) for v in VARIANTS}
        valid = {v: run is not None and run.get("valid", True) is True for v, run in pair.items()}
        found = {v: environment_failure(run, sigs) if valid[v] else None for v, run in pair.items()}
        for variant, reason in found.items():
            other = "candidate" if variant == "base" else "base"
            if reason is None or (valid[other] and found[other] is None):
                continue
            breaks.append(EnvironmentBreak(task_id, repeat, variant, reason))
            runs[(task_id, repeat, variant)] = {
                **pair[variant], "valid": False, "failure_class": "infrastructure",
                "failure_reason": f"checks could not run (environment): {reason}"}
    return (replace(results, runs=runs) if breaks else results), breaks


@dataclass(frozen=True)
class Resolution:
    """Which tasks any run resolved, over valid runs."""

    tasks: tuple[str, ...]  #: tasks with at least one valid base run, negative controls left out
    base_resolved: tuple[str, ...]  #: resolved in at least one valid base run
    never_resolved: tuple[str, ...]  #: resolved in no valid run of either arm


def resolution(results: ResultSet) -> Resolution:
    """Negative controls (`checks_pass_at_start`, or tasks of kind `negative_control`) resolve by
    construction: they count toward neither side of the share, so they cannot make a suite whose
    other checks never pass look healthy."""
    valid = [r for r in results.runs.values() if r.get("valid", True) is True]
    measured = [r for r in valid if r.get("variant") == "base" and not r.get("checks_pass_at_start")
                and r.get("kind") != "negative_control"]
    tasks = sorted({str(r["task_id"]) for r in measured})
    base = sorted({str(r["task_id"]) for r in measured if r.get("resolved")})
    anywhere = {str(r["task_id"]) for r in valid if r.get("resolved")}
    never = sorted({str(r["task_id"]) for r in valid} - anywhere)
    return Resolution(tuple(tasks), tuple(base), tuple(never))


def break_note(breaks: list[EnvironmentBreak]) -> str | None:
    """One line naming the runs whose checks never ran, with the first matched output line."""
    if not breaks:
        return None
    first, tasks = breaks[0], sorted({b.task_id for b in breaks})
    return (f"checks could not run in {len(breaks)} run(s) of task(s) {', '.join(tasks)}: {first.reason} "
            f"({first.task_id} repeat {first.repeat} {first.variant}); fix the check environment "
            "(README 'Checks that never ran')")


def vacuity(results: ResultSet, policy: Policy) -> tuple[list[str], list[str]]:
    """(reasons the verdict cannot be evaluated, warnings) from which tasks any run resolved."""
    evidence, problems, warnings = policy.evidence, [], []
    res = resolution(results)
    if res.never_resolved:
        warnings.append(f"resolved in no run of either arm: {', '.join(res.never_resolved)} "
                        "(run `validate-tasks` to see whether their checks can pass)")
    if not res.tasks:
        return problems, warnings
    share = len(res.base_resolved) / len(res.tasks)
    minimum, min_share = evidence["min_resolved_tasks"], evidence["min_resolved_share"]
    if len(res.base_resolved) < minimum or share < min_share - 1e-12:
        problems.append(f"only {len(res.base_resolved)} of {len(res.tasks)} task(s) resolved in any base run "
                        f"(policy evidence.min_resolved_tasks {minimum}, min_resolved_share {min_share:g}): "
                        "the checks measured nothing the agent did; run `validate-tasks`")
    elif share < evidence["warn_resolved_share"] - 1e-12:
        warnings.append(f"only {len(res.base_resolved)} of {len(res.tasks)} task(s) resolved in any base run "
                        f"(below evidence.warn_resolved_share {evidence['warn_resolved_share']:g})")
    return problems, warnings
