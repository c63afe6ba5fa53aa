"""Wiring the baseline cache into an evaluation: fill it (trusted jobs) or reuse from it (opt-in).

Reuse order within a batch of runs: every run without a cached base partner executes first,
candidate runs included; then each cached base run is checked against the agent, model and
harness versions those candidate runs reported, and adopted (`reused: true`) or refused, in
which case the base run executes after all. A reused run still counts against the budget's
`max_agent_runs` as if it ran, so a cap never depends on what the cache holds.
"""

from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass, field
from typing import Any

from instruction_gate import git
from instruction_gate.run.baseline_cache import BaselineCache, Lookup, key_parts, provenance_mismatch, reused_record
from instruction_gate.run.evaluation import Evaluation, RunSpec
from instruction_gate.suite.prepare import Checked
from instruction_gate.run.run_store import run_dir
from instruction_gate.console import say


@dataclass
class Reuse:
    """Cached base runs available to this evaluation, and what was refused."""

    cache: BaselineCache
    lookup: Lookup
    refused: list[str] = field(default_factory=list)  #: refusals found after running (provenance)
    reused: int = 0

    def as_record(self) -> dict[str, Any]:
        """The `baseline_cache` block of index.json."""
        return {"reused_runs": self.reused, "refused": self.lookup.refusals + self.refused,
                "misses": len(self.lookup.misses), "max_age_days": self.cache.max_age_days}


def task_keys(checked: Checked, evaluation: Evaluation) -> dict[str, dict[str, Any]]:
    """Cache key parts per task whose base input commit could be built."""
    contract, stage = checked.contract, evaluation.stage
    base_tree = git.out("rev-parse", f"{contract.base_sha}^{{tree}}", cwd=checked.repo).strip()
    suite = hashlib.sha256(stage.suite_index_info.encode()).hexdigest()  # hidden suite paths, modes, blobs
    instructions = {path: entry.oid for path, entry in contract.base_instructions.items()}
    return {task.id: key_parts(task=task, manifest_sha256=checked.manifest.sha256, base_tree=base_tree,
                               input_commit=stage.inputs[(task.id, "base")].commit, suite_digest=suite,
                               adapter_argv=evaluation.adapter_argv, adapter_options=evaluation.adapter_options,
                               base_instructions=instructions, repo=checked.repo,
                               check_files=evaluation.check_files)
            for task in checked.manifest.tasks if (task.id, "base") in stage.inputs}


def fill(cache: BaselineCache, keys: dict[str, dict[str, Any]], evaluation: Evaluation, specs: list[RunSpec],
         jobs: int) -> int:
    """Trusted base-branch job: run the base arm only and store its valid runs. Returns runs stored."""
    base_specs = [s for s in specs if s.variant == "base"]
    evaluation.execute(base_specs, jobs)
    stored = 0
    for task_id, parts in keys.items():
        runs = [(evaluation.store.full_record(r), _patch(evaluation, r)) for (t, _, v), r in sorted(evaluation.store.runs.items())
                if t == task_id and v == "base"]
        stored += cache.store(parts, runs)
    return stored


def _patch(evaluation: Evaluation, record: dict[str, Any]) -> str:
    path = run_dir(evaluation.store.out, record["task_id"], record["repeat"], "base") / "patch.diff"
    return path.read_text(encoding="utf-8") if path.is_file() else ""


def prepare(cache: BaselineCache, keys: dict[str, dict[str, Any]], specs: list[RunSpec]) -> Reuse:
    lookup = Lookup()
    for task_id, parts in keys.items():
        repeats = sorted({s.repeat for s in specs if s.task.id == task_id})
        if repeats:
            cache.lookup(parts, repeats, lookup)
    for line in lookup.refusals:
        say(f"baseline cache: refused {line}", file=sys.stderr)
    say(f"baseline cache: {len(lookup.hits)} base runs available, {len(lookup.refusals)} refused, "
          f"{len(lookup.misses)} not cached", file=sys.stderr)
    return Reuse(cache, lookup)


def execute(evaluation: Evaluation, specs: list[RunSpec], jobs: int, reuse: Reuse | None) -> None:
    """Run `specs`, taking base runs from the cache where they are available and verified."""
    if reuse is None:
        evaluation.execute(specs, jobs)
        return
    store = evaluation.store
    cached = {s: reuse.lookup.hits[(s.task.id, s.repeat)] for s in specs
              if s.variant == "base" and (s.task.id, s.repeat) in reuse.lookup.hits
              and not store.has(s.task.id, s.repeat, "base")}
    evaluation.execute([s for s in specs if s not in cached], jobs)
    candidate_runs = [r for (_, _, variant), r in store.runs.items() if variant == "candidate"]
    refused = []
    for spec, hit in cached.items():
        problem = provenance_mismatch(hit, candidate_runs)
        if not evaluation.budget.admit(spec):
            continue  # the budget stopped this pair; its candidate run never started either
        if problem:
            reuse.refused.append(f"{spec.task.id} repeat {spec.repeat}: mismatched, {problem}")
            say(f"baseline cache: refused {reuse.refused[-1]}", file=sys.stderr)
            del reuse.lookup.hits[(spec.task.id, spec.repeat)]
            refused.append(spec)
            continue
        store.write(reused_record(hit, store.header, spec.order), hit.patch)
        reuse.reused += 1
    if refused:
        evaluation.execute(refused, jobs)
