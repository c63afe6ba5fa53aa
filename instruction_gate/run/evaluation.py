"""The paired evaluation: plan the runs, execute them on worker slots, record each one."""

from __future__ import annotations

import hashlib
import queue
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from instruction_gate import __version__, proc

from instruction_gate.run import adapter, check_env, check_sandbox, gates, sandbox_paths
from instruction_gate.run.budget import Budget
from instruction_gate.run import check_integrity
from instruction_gate.run.check_sandbox import CheckSandbox
from instruction_gate.run.limits import OutputLimits, limit_reason
from instruction_gate.run.sandbox import UNISOLATED, Sandbox, View, fresh_dir
from instruction_gate.suite.manifest import Manifest, Task
from instruction_gate.rules.judge import judge_run
from instruction_gate.rules.model import Rule
from instruction_gate.run.rule_sources import rule_sources
from instruction_gate.run.run_store import RunStore
from instruction_gate.secrets import Environments
from instruction_gate.run.workspace import Slot, Stage
from instruction_gate.console import say

#: Agent CLIs' configuration directory variables and where they go inside the private home.
#: GEMINI_CLI_HOME names the directory that holds `.gemini/` (the CLI's stand-in for the home
#: directory), so it moves to the private home itself.
_AGENT_CONFIG_DIRS = {"CODEX_HOME": ".codex", "CLAUDE_CONFIG_DIR": ".claude", "GEMINI_CLI_HOME": "."}

@dataclass(frozen=True)
class RunSpec:
    task: Task
    repeat: int
    variant: str
    order: int  #: 0 when this variant runs first in its pair


def plan(manifest: Manifest, repeats: int, task_ids: list[str] | None, shard: tuple[int, int]) -> list[RunSpec]:
    """Runs in execution order. Pairs alternate ABBA: even repeats run base first, odd candidate first.

    A shard K/N takes every N-th task (by manifest order) starting at the K-th, so all runs of
    a task, and so all its pairs, stay in one shard.
    """
    tasks = [t for t in manifest.tasks if task_ids is None or t.id in task_ids]
    k, n = shard
    tasks = [t for i, t in enumerate(tasks) if i % n == k - 1]
    specs = []
    for task in tasks:
        for repeat in range(repeats):
            order = ("base", "candidate") if repeat % 2 == 0 else ("candidate", "base")
            specs += [RunSpec(task, repeat, variant, position) for position, variant in enumerate(order)]
    return specs


@dataclass
class Evaluation:
    """Everything a run needs; one instance per evaluation."""

    stage: Stage
    store: RunStore
    adapter_argv: list[str]
    envs: Environments
    header: dict[str, Any]
    prompts: dict[str, list[str]]
    solutions: dict[str, str | None]  #: task id -> reference solution text (reference adapter only)
    fixture_problems: dict[str, str]
    adapter_options: dict[str, str] = field(default_factory=dict)
    rules: dict[str, list[Rule]] = field(default_factory=dict)  #: task id -> declared policy rules
    #: Set when the runner itself is interrupted; runs cut short by that are not recorded.
    stopping: threading.Event = field(default_factory=threading.Event)
    #: Spending caps; a run the budget refuses is not started (and not recorded).
    budget: Budget = field(default_factory=Budget)
    #: Confines every adapter run; UNISOLATED only on the user's explicit opt-out.
    sandbox: Sandbox = UNISOLATED
    #: What the sandbox shows read-only besides the system: the harness and the adapter's files.
    readable: tuple[Path, ...] = ()
    limits: OutputLimits = field(default_factory=OutputLimits)
    #: The project's environment (`--check-env-dir`) for checks and the agent's commands; None: the harness's.
    check_env_dir: Path | None = None
    #: policy `check_files`: changed files that steer the checks are restored, or left and failed
    check_files: str = check_integrity.RESTORE

    def execute(self, specs: list[RunSpec], jobs: int) -> None:
        todo = [s for s in specs if not self.store.has(s.task.id, s.repeat, s.variant)]
        slots: queue.Queue[Slot] = queue.Queue()
        for number in range(max(1, min(jobs, len(todo) or 1))):
            slots.put(Slot(self.stage, number))
        done = len(specs) - len(todo)
        total = len(specs)

        def work(spec: RunSpec) -> dict[str, Any] | None:
            if not self.budget.admit(spec):
                return None
            slot = slots.get()
            try:
                record = self.run_one(slot, spec)
            finally:
                slots.put(slot)
            self.budget.settle(record)
            # Every future keeps its result until the pool ends: not every run's events.
            return {k: v for k, v in record.items() if k != "events"}

        with ThreadPoolExecutor(max_workers=slots.qsize()) as pool:
            futures = [pool.submit(work, spec) for spec in todo]
            try:
                for future in futures:
                    record = future.result()
                    if record is None:
                        continue
                    done += 1
                    say(f"[{done}/{total}] {progress_line(record)}", file=sys.stderr, flush=True)
            except BaseException:
                self.stopping.set()
                for pending in futures:
                    pending.cancel()
                proc.kill_all_live()
                raise

    def run_one(self, slot: Slot, spec: RunSpec) -> dict[str, Any]:
        task = spec.task
        started_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
        base_record = self._skeleton(spec, started_at)
        if task.id in self.fixture_problems:
            record = {**base_record, "failure_class": "infrastructure", "failure_reason": self.fixture_problems[task.id]}
            self.store.write(record, "")
            return record
        input_commit = self.stage.inputs[(task.id, spec.variant)]
        generation = slot.prepare_generation(input_commit)
        # A home private to this run: agent CLIs keep config, sessions and caches there.
        home = fresh_dir(generation.parent / "home")
        request = self._request(spec, generation, home)
        cwd = generation / task.cwd
        # The check environment stays read-only even under a writable directory: the checks run it next.
        env_paths = sandbox_paths.check_env_paths(self.check_env_dir)
        view = View((generation, home), (*self.readable, *env_paths, self.stage.common_dir / "objects"), cwd,
                    protected=env_paths)
        outcome = adapter.invoke(self.adapter_argv, request, self._private(self.envs.adapter, home), cwd,
                                 task.timeout_seconds, self.sandbox, view, self.limits, self.envs.broker_token)
        classification = gates.classify(outcome, task.timeout_seconds)
        captured = slot.capture(input_commit, self.limits.patch_bytes)
        if captured.over_limit and classification.valid:
            classification = gates.Classification("agent", limit_reason("patch"))
        checks: list[dict[str, Any]] = []
        patch_applied = True
        steering = check_integrity.NOTHING
        if classification.valid:
            steering = check_integrity.inspect(self.stage, task, input_commit.tree, captured.tree, self.check_files,
                                               check_integrity.installed_modules(self.check_env_dir))
            validation = slot.prepare_validation(captured.tree, steering.restore_info)
            patch_applied = validation is not None
            if validation is not None:
                env = check_env.check_environment(self.envs.agent, task, validation, self.check_env_dir)
                confinement = self.checks_sandbox(env)
                checks = check_env.run_checks(
                    task, validation, env, confinement, confinement.home(validation.parent.name),
                    fresh=lambda: slot.prepare_validation(captured.tree, steering.restore_info),
                    reports=fresh_dir(validation.parent / "check-reports"))
        checks_passed = all(check_env.passed(c) for c in checks)
        evidence = gates.evidence_from(outcome, list(captured.edited_files), patch_applied, checks_passed,
                                       steering.left)
        gate_fields = gates.hard_failures(task, classification, outcome, evidence) if classification.valid else {
            "hard_failures": ["agent_not_completed"]}
        result = outcome.result or {}
        record = {
            **base_record, **gate_fields, **outcome.provenance(),
            "input_commit": input_commit.commit,
            "valid": classification.valid,
            "resolved": classification.failure_class is None and patch_applied and checks_passed,
            "failure_class": classification.failure_class, "failure_reason": classification.failure_reason,
            "failure_detail": classification.failure_detail,
            "edited_files": list(captured.edited_files), "checks": checks,
            "check_files_changed": steering.as_record(),
            "wall_seconds": outcome.wall_seconds,
            **{k: _int_or_none(result.get(k)) for k in ("input_tokens", "output_tokens", "cached_input_tokens", "tool_calls")},
            "provider_cost_usd": _float_or_none(result.get("provider_cost_usd")),
            "diff_files": len(captured.edited_files), "diff_additions": captured.additions,
            "diff_deletions": captured.deletions,
            "instruction_sources": sorted(evidence.instruction_sources),
            "rule_sources": rule_sources(task, self.stage.instruction_texts.get(spec.variant, {})),
            "adapter_exit_code": outcome.exit_code, "adapter_stderr_tail": outcome.stderr_tail,
            "malformed_event_lines": outcome.malformed_lines, "events": outcome.events,
            "isolation": self.sandbox.label, "event_bytes": outcome.event_bytes,
        }
        if isinstance(result.get("instruction_bytes"), dict):
            record["instruction_bytes"] = result["instruction_bytes"]
        # Whether an instruction was used: only what the adapter reported (absent: it cannot tell).
        record.update({k: names for k in ("skills_invoked", "lazy_instruction_sources")
                       if (names := reported_names(result.get(k))) is not None})
        if (unread := _int_or_none(result.get("not_understood"))) is not None and unread >= 0:
            record["not_understood"] = unread  # the offline agent's instruction lines it has no directive for
        if classification.valid:
            record.update(judge_run(task, self.rules, outcome.events, captured, self.stage, slot.generation, input_commit))
        if self.stopping.is_set():
            # Our own shutdown killed this run, not the agent: no evidence, so --resume redoes it.
            return record
        self.store.write(record, captured.patch)
        return record

    def checks_sandbox(self, env: dict[str, str]) -> CheckSandbox:
        """The sandbox a run's checks get (run/check_sandbox.py)."""
        return check_sandbox.for_checks(self.sandbox, self.readable, self.check_env_dir, env, self.stage.root,
                                        (self.stage.repo,))

    def _skeleton(self, spec: RunSpec, started_at: str) -> dict[str, Any]:
        """A record with every field present, as for a run that never started."""
        prompt = "\n\n".join(self.prompts[spec.task.id])
        return {
            "schema_version": 1, "task_id": spec.task.id, "kind": spec.task.kind, "variant": spec.variant,
            "repeat": spec.repeat, "order": spec.order, "base_sha": self.header["base_sha"],
            "candidate_sha": self.header["candidate_sha"], "merge_base_sha": self.header["merge_base_sha"],
            "input_commit": None, "prompt_sha256": hashlib.sha256(prompt.encode()).hexdigest(),
            "valid": False, "resolved": False, "failure_class": None, "failure_reason": None,
            "failure_detail": None, "hard_failures": [], "edited_files": [], "forbidden_files": [], "missing_commands": [],
            "forbidden_commands": [], "missing_events": [], "missing_instruction_sources": [], "checks": [],
            "wall_seconds": None, "input_tokens": None, "output_tokens": None, "cached_input_tokens": None,
            "provider_cost_usd": None, "tool_calls": None, "diff_files": 0, "diff_additions": 0,
            "diff_deletions": 0, "instruction_sources": [], "agent_name": None, "model": None,
            "model_snapshot": None, "harness_version": None, "adapter_version": None, "container_digest": None,
            "gate_version": __version__, "adapter_exit_code": None, "adapter_stderr_tail": None,
            "malformed_event_lines": 0, "events": [], "started_at": started_at, "reused": False,
            "isolation": self.sandbox.label, "event_bytes": 0,
            "checks_pass_at_start": spec.task.checks_pass_at_start, "check_files_changed": [],
        }

    def _private(self, env: dict[str, str], home: Path) -> dict[str, str]:
        """`env` with the run's private home (and per-user directories under it)."""
        if not self.sandbox.isolated:
            return dict(env)
        private = {k: v for k, v in env.items() if not k.startswith("XDG_")}
        # Agent configuration directories named outside the sandbox are invisible in it: they
        # move into the private home, where the adapter writes its own configuration each run.
        moved = {name: str(home / default) for name, default in _AGENT_CONFIG_DIRS.items() if name in env}
        for directory in moved.values():
            Path(directory).mkdir(parents=True, exist_ok=True)
        return {**private, **moved, "HOME": str(home), "TMPDIR": "/tmp"}

    def _request(self, spec: RunSpec, generation: Path, home: Path) -> dict[str, Any]:
        task = spec.task
        agent_env = self._private(self.envs.agent, home)
        agent_env["PATH"] = check_env.agent_path(agent_env, self.check_env_dir)
        if self.check_env_dir is not None:
            agent_env["VIRTUAL_ENV"] = str(self.check_env_dir)
        solution = self.solutions.get(task.id) if adapter.is_reference_adapter(self.adapter_argv) else None
        turns = self.prompts[task.id]
        return {
            "schema_version": 1, "workspace": str(generation / task.cwd), "repo_root": str(generation),
            "cwd": task.cwd, "prompt": turns[0], "turns": turns, "task_id": task.id,
            "variant": spec.variant, "repeat": spec.repeat,
            "limits": {"timeout_seconds": task.timeout_seconds, "max_tool_calls": task.max_tool_calls,
                       "max_provider_cost_usd": task.max_provider_cost_usd,
                       "network": self.sandbox.network if self.sandbox.isolated else "unrestricted"},
            # The solution only ever by content, only to the offline reference agent: a path
            # would point any agent at it.
            "agent_env": agent_env, "reference_solution": None,
            "reference_solution_patch": solution,
            "adapter_options": self.adapter_options,
        }


def _int_or_none(value: Any) -> int | None:
    number = gates.reported_number(value)
    return None if number is None else int(number)


#: At most this many names of one list field of a result event reach the run record.
MAX_REPORTED_NAMES = 200


def reported_names(value: Any) -> list[str] | None:
    """A result event's list of names (skills, files) as recorded: its strings once each, in
    order, capped; None when the adapter reported no list."""
    if not isinstance(value, list):
        return None
    names = [v for v in value if isinstance(v, str) and 0 < len(v) <= 1000]
    return list(dict.fromkeys(names))[:MAX_REPORTED_NAMES]


def _float_or_none(value: Any) -> float | None:
    return gates.reported_number(value)


def progress_line(record: dict[str, Any]) -> str:
    head = f"{record['task_id']} r{record['repeat']} {record['variant']}"
    seconds = f" in {record['wall_seconds']:.1f}s" if record.get("wall_seconds") is not None else ""
    if not record["valid"]:
        return f"{head}: not evaluated ({record['failure_reason']})"
    if record["resolved"] and not record["hard_failures"]:
        return f"{head}: resolved{seconds}"
    state = "resolved" if record["resolved"] else "not resolved"
    return f"{head}: {state}{seconds} ({', '.join(record['hard_failures'])})"


def candidate_regressions(runs: dict[tuple[str, int, str], dict[str, Any]]) -> list[str]:
    """Hard failures a candidate run has that its paired base run does not."""
    found = []
    for (task_id, repeat, variant), record in sorted(runs.items()):
        base = runs.get((task_id, repeat, "base"))
        if variant != "candidate" or not record["valid"] or base is None or not base["valid"]:
            continue
        new = sorted(set(record["hard_failures"]) - set(base["hard_failures"]))
        found += [f"{task_id} r{repeat}: {name}" for name in new]
    return found
