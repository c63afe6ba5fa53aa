"""Run the task suite for chosen variants of one contract, with the runner's own machinery."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from instruction_gate import __version__

from instruction_gate.run import evaluation
from instruction_gate.suite.contract import Contract
from instruction_gate.suite.manifest import Manifest
from instruction_gate.run.staging import build_stage, task_texts
from instruction_gate.suite.instruction_diff import instruction_hunks
from instruction_gate.suite.prepare import Checked
from instruction_gate.run.run_store import RunStore
from instruction_gate.run.sandbox import UNISOLATED, Sandbox
from instruction_gate.secrets import Environments, Redactor

RunKey = tuple[str, int, str]


@dataclass
class SuiteRunner:
    """Everything fixed across mutants: repository, suite, adapter, repeats."""

    repo: Path
    manifest: Manifest
    adapter_argv: list[str]
    envs: Environments
    repeats: int
    jobs: int = 1
    adapter_options: dict[str, str] = field(default_factory=dict)
    temp_root: Path | None = None
    task_ids: list[str] | None = None  #: only these tasks (None: all)
    executed: int = 0  #: agent runs actually started, over every call
    sandbox: Sandbox = UNISOLATED
    readable: tuple[Path, ...] = ()  #: harness and adapter files the sandbox shows read-only
    check_env_dir: Path | None = None  #: the project's environment for checks and the agent's commands

    @property
    def tasks(self) -> list:
        return [t for t in self.manifest.tasks if self.task_ids is None or t.id in self.task_ids]

    def header(self, contract: Contract, task_ids: list[str] | None = None) -> dict[str, Any]:
        tasks = [t.id for t in self.tasks if task_ids is None or t.id in task_ids]
        return {"gate_version": __version__, "base_sha": contract.base_sha, "candidate_sha": contract.candidate_sha,
                "merge_base_sha": contract.merge_base_sha, "manifest_sha256": self.manifest.sha256,
                "repeats": self.repeats, "shard": "1/1", "tasks": tasks,
                "planned_runs": 2 * self.repeats * len(tasks),
                "changed_instruction_paths": list(contract.changed_instruction_paths),
                "isolation": self.sandbox.label,
                "instruction_hunks": instruction_hunks(self.repo, contract)}

    def run(self, contract: Contract, out: Path, variants: tuple[str, ...], task_ids: list[str] | None = None,
            extra_header: dict[str, Any] | None = None) -> RunStore:
        """Run `variants` of every (task, repeat) into `out` (only `task_ids` when given, e.g. the tasks
        a mutant can reach); returns the store with the records."""
        checked = Checked(self.repo, self.manifest, contract)
        header = {**self.header(contract, task_ids), **(extra_header or {})}
        store = RunStore(out, header, Redactor(self.envs.secret_values))
        chosen = [t.id for t in self.tasks if task_ids is None or t.id in task_ids]
        specs = [s for s in evaluation.plan(self.manifest, self.repeats, chosen, (1, 1)) if s.variant in variants]
        stage, fixture_problems = build_stage(checked, self.temp_root)
        try:
            prompts, solutions = task_texts(checked, stage)
            evaluation.Evaluation(stage, store, self.adapter_argv, self.envs, header, prompts, solutions,
                                  fixture_problems, self.adapter_options, sandbox=self.sandbox,
                                  readable=self.readable, check_env_dir=self.check_env_dir).execute(specs, self.jobs)
        finally:
            stage.close()
        self.executed += len(specs)
        store.write_index()
        return store


def adopt_base_runs(store: RunStore, base_runs: dict[RunKey, dict[str, Any]]) -> None:
    """Put the shared base runs into a mutant's store, marked as reused, so its index pairs them."""
    tasks = set(store.header["tasks"])
    for key, record in base_runs.items():
        if key[0] not in tasks:
            continue  # a task the mutant cannot reach was not run for it
        store.runs[key] = {**record, "candidate_sha": store.header["candidate_sha"], "reused": True}
    store.write_index()
