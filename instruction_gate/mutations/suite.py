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

    @property
    def tasks(self) -> list:
        return [t for t in self.manifest.tasks if self.task_ids is None or t.id in self.task_ids]

    def header(self, contract: Contract) -> dict[str, Any]:
        return {"gate_version": __version__, "base_sha": contract.base_sha, "candidate_sha": contract.candidate_sha,
                "merge_base_sha": contract.merge_base_sha, "manifest_sha256": self.manifest.sha256,
                "repeats": self.repeats, "shard": "1/1", "tasks": [t.id for t in self.tasks],
                "planned_runs": 2 * self.repeats * len(self.tasks),
                "changed_instruction_paths": list(contract.changed_instruction_paths),
                "instruction_hunks": instruction_hunks(self.repo, contract)}

    def run(self, contract: Contract, out: Path, variants: tuple[str, ...]) -> RunStore:
        """Run `variants` of every (task, repeat) into `out`; returns the store with the records."""
        checked = Checked(self.repo, self.manifest, contract)
        header = self.header(contract)
        store = RunStore(out, header, Redactor(self.envs.secret_values))
        specs = [s for s in evaluation.plan(self.manifest, self.repeats, self.task_ids, (1, 1)) if s.variant in variants]
        stage, fixture_problems = build_stage(checked, self.temp_root)
        try:
            prompts, solutions = task_texts(checked, stage)
            evaluation.Evaluation(stage, store, self.adapter_argv, self.envs, header, prompts, solutions,
                                  fixture_problems, self.adapter_options).execute(specs, self.jobs)
        finally:
            stage.close()
        self.executed += len(specs)
        store.write_index()
        return store


def adopt_base_runs(store: RunStore, base_runs: dict[RunKey, dict[str, Any]]) -> None:
    """Put the shared base runs into a mutant's store, marked as reused, so its index pairs them."""
    for key, record in base_runs.items():
        store.runs[key] = {**record, "candidate_sha": store.header["candidate_sha"], "reused": True}
    store.write_index()
