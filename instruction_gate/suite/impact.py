"""Impact analysis: which tasks can see an instruction change, decided before any agent runs.

A task is affected when the instruction bytes its agent can reach (`exposure.reachable`)
differ between the arms, or when its fixture patch touches an instruction file (the fixture
lands on both arms' instructions, so the static view cannot vouch for it). Everything else
is unaffected: its true paired difference is zero, so running it only spends agent runs and
dilutes the success-rate estimate. The result goes into index.json (`impact`), where compare
reads it without git.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from instruction_gate.agents.loading import loading_agents
from instruction_gate.suite import arm_files, exposure
from instruction_gate.suite.adapter_discovery import discovery_for  # noqa: F401  (callers' entry point)
from instruction_gate.suite.exposure import Discovery
from instruction_gate.suite.prepare import Checked, blob_text, hidden_paths


@dataclass(frozen=True)
class TaskImpact:
    """Whether one task can see the change, and why."""

    task_id: str
    cwd: str
    affected: bool
    reason: str
    changed: tuple[str, ...]  #: reachable files whose reachable bytes differ between the arms
    reachable: tuple[str, ...] = ()  #: every instruction file the rule says it can reach, either arm
    #: agent -> which of its rules lets the task see the change ("sees services/payments/CLAUDE.md
    #: below its cwd"); empty when unaffected or affected for another reason (fixture, unbounded)
    agents: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Impact:
    mode: str  #: skip | run (run: every task is run whatever it can see)
    discovery: str  #: codex | claude | both
    tasks: tuple[TaskImpact, ...]
    changed_paths: tuple[str, ...]  #: instruction files the candidate changes
    unreachable: tuple[str, ...]  #: changed files no task can reach
    unbounded: str = ""  #: why the agent may load files the rules cannot predict (all tasks then run)
    #: Unreachable changed file -> the agents outside this discovery mode that load it by themselves
    #: (a Copilot or Cursor file under the default `both`: the rules followed here cannot see it).
    other_agents: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def hint(self) -> str:
        """What to change when the unreachable files belong to agents this evaluation does not follow."""
        agents = sorted({a for _, found in self.other_agents for a in found})
        if not agents:
            return ""
        files = ", ".join(path for path, _ in self.other_agents[:5])
        return (f"{files} {'is' if len(self.other_agents) == 1 else 'are'} loaded by {', '.join(agents)}, whose "
                f"rules this evaluation does not follow ({self.discovery} discovery): evaluate with that agent or "
                f"set the adapter option discovery={agents[0] if len(agents) == 1 else 'all'}")

    @property
    def affected(self) -> list[str]:
        return [t.task_id for t in self.tasks if t.affected]

    def selected(self) -> list[str]:
        """Task ids to run: the affected ones under `skip`, every task under `run`."""
        return [t.task_id for t in self.tasks if t.affected or self.mode == "run"]

    def record(self) -> dict[str, Any]:
        """The `impact` block of index.json."""
        return {"mode": self.mode, "discovery": self.discovery, "changed_paths": list(self.changed_paths),
                "unreachable_changes": list(self.unreachable), "affected": self.affected,
                **({"unbounded": self.unbounded} if self.unbounded else {}),
                **({"other_agents": {p: list(a) for p, a in self.other_agents}, "hint": self.hint()}
                   if self.other_agents else {}),
                "unaffected": [t.task_id for t in self.tasks if not t.affected],
                "tasks": [{"task_id": t.task_id, "cwd": t.cwd, "affected": t.affected, "reason": t.reason,
                           "changed": list(t.changed), "reachable": list(t.reachable), "agents": dict(t.agents)}
                          for t in self.tasks]}


def _differences(base: exposure.Exposure, candidate: exposure.Exposure) -> list[str]:
    return sorted(p for p in {*base, *candidate} if base.get(p) != candidate.get(p))


def _how(base: exposure.Exposure, candidate: exposure.Exposure, path: str) -> str:
    reach = candidate.get(path) or base.get(path)
    return "at start" if reach is not None and reach.eager else "below its cwd"


def _by_agent(base: exposure.Exposure, candidate: exposure.Exposure, changed: list[str]) -> dict[str, str]:
    """agent -> why it sees the change: each changed file it loads, and how (either arm's account)."""
    seen: dict[str, list[str]] = {}
    for path in changed:
        ways = dict((base.get(path) or exposure.Reach(None, None)).agents)
        ways.update((candidate.get(path) or exposure.Reach(None, None)).agents)
        for agent, how in ways.items():
            seen.setdefault(agent, []).append(f"sees {path} {how}" if how in ("at start", "below its cwd") else how)
    return {agent: "; ".join(items[:3]) + (f" and {len(items) - 3} more" if len(items) > 3 else "")
            for agent, items in sorted(seen.items())}


def touchable(tree_paths: Iterable[str], cwd: str, patches: Iterable[str]) -> list[str]:
    """Repository paths a task can touch, for path-scoped rules: the files below its `cwd` and
    those its fixture and reference solution patches name."""
    prefix = "" if cwd in ("", ".") else cwd.strip("/") + "/"
    return sorted({*(p for p in tree_paths if p.startswith(prefix)), *patches})


def _targets(root: Path, paths: list[str]) -> list[str]:
    """Repository paths the given files resolve to through symlinks (inside `root`)."""
    real_root = Path(os.path.realpath(root))
    found = []
    for path in paths:
        real = Path(os.path.realpath(root / path))
        if real.is_relative_to(real_root):
            found.append(real.relative_to(real_root).as_posix())
    return found


def analyse(checked: Checked, rules: Discovery, mode: str = "skip", temp_root: Path | None = None,
            task_ids: Iterable[str] | None = None) -> Impact:
    """Per task of the manifest (or of `task_ids`): affected or not, with the reason."""
    manifest, contract = checked.manifest, checked.contract
    wanted = set(task_ids) if task_ids is not None else None
    tasks = [t for t in manifest.tasks if wanted is None or t.id in wanted]
    results: list[TaskImpact] = []
    # An agent configured to load files the rules cannot see may see the change from any task.
    unbounded = bool(rules.unbounded and contract.changed_instruction_paths)
    reached: set[str] = set()
    with arm_files.temp_dir(temp_root) as tmp:
        hidden = hidden_paths(checked)
        arms = arm_files.arm_trees(checked.repo, contract, hidden, manifest.instruction_paths,
                                   rules.names, Path(tmp), rules.import_syntaxes)
        watched = set(arms.files["base"]) | set(arms.files["candidate"]) | set(contract.changed_instruction_paths)
        visible = [p for p in contract.workspace_tree if p not in hidden]
        for task in tasks:
            cwd = "" if task.cwd in (".", "") else task.cwd
            patches = [path for patch in (task.fixture_patch, task.reference_solution) if patch
                       for path in arm_files.patch_paths(blob_text(checked.repo, contract, patch))]
            files = touchable(visible, cwd, patches)
            base = exposure.reachable(arms.base, cwd, rules, files)
            candidate = exposure.reachable(arms.candidate, cwd, rules, files)
            changed = _differences(base, candidate)
            # A symlink (CLAUDE.md -> AGENTS.md) reaches its target: the target's change is seen too.
            reached.update(changed, *(_targets(root, changed) for root in (arms.base, arms.candidate)))
            fixture = (sorted(arm_files.patch_paths(blob_text(checked.repo, contract, task.fixture_patch)) & watched)
                       if task.fixture_patch else [])
            agents = _by_agent(base, candidate, changed) if changed and not unbounded else {}
            if unbounded:
                reason = f"{rules.unbounded}; impact analysis cannot bound it, so every task runs"
            elif agents:  # which agent's rule lets it see which file, and how
                reason = "; ".join(f"{agent}: {why}" for agent, why in agents.items())
            elif changed:
                seen = ", ".join(f"{p} ({_how(base, candidate, p)})" for p in changed[:5])
                reason = f"sees {seen}" + (f" and {len(changed) - 5} more" if len(changed) > 5 else "")
            elif fixture:
                reason = f"its fixture patch touches instruction files ({', '.join(fixture[:5])}); run to be safe"
            else:
                reason = f"no instruction file reachable from {task.cwd!r} differs between the arms"
            affected = bool(changed or fixture or unbounded)
            results.append(TaskImpact(task.id, task.cwd, affected, reason, tuple(changed),
                                      tuple(sorted({*base, *candidate})), tuple(agents.items())))
    changed_paths = tuple(contract.changed_instruction_paths)
    unreachable = () if rules.unbounded else tuple(p for p in changed_paths if p not in reached)
    followed = set(rules.agents)
    others = tuple((p, found) for p in unreachable
                   if (found := tuple(a for a in loading_agents(p, rules.settings) if a not in followed)))
    return Impact(mode, rules.mode, tuple(results), changed_paths, unreachable, rules.unbounded, others)
