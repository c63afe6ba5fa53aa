"""Blame's agent runs: a commit per hunk subset in a scratch repository, the candidate arm of the
failing tasks run on it with the runner's machinery, and whether the failure came back.

Hunks are applied to the merge base's version of each file; the candidate's instruction text is
only ever data here (written as file contents for the agent to read), never executed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from instruction_gate import git, hunks as hunk_mod
from instruction_gate.blame.search import Step
from instruction_gate.errors import ConfigError
from instruction_gate.hunks import Hunk
from instruction_gate.mutations.scratch import ScratchRepo
from instruction_gate.mutations.suite import SuiteRunner
from instruction_gate.suite.contract import Contract, read_tree
from instruction_gate.suite.prepare import check_all


def originals(repo: Path, contract: Contract, hunks: list[Hunk]) -> dict[str, str]:
    """The merge base's text of every file the hunks touch; refused when the base branch changed
    such a file since the merge base (the hunks would not describe the candidate variant)."""
    merge_base, base = read_tree(repo, contract.merge_base_sha), read_tree(repo, contract.base_sha)
    texts = {}
    for path in dict.fromkeys(h.path for h in hunks):
        if (merge_base.get(path) and merge_base[path].oid) != (base.get(path) and base[path].oid):
            raise ConfigError(f"blame: {path} changed on the base branch since the merge base "
                              f"{contract.merge_base_sha[:12]}; rebase the candidate and evaluate again")
        entry = merge_base.get(path)
        texts[path] = git.out("cat-file", "blob", entry.oid, cwd=repo) if entry else ""
    return texts


@dataclass
class Trials:
    """Runs `SuiteRunner` on one subset of hunks at a time, for the failing tasks only."""

    scratch: ScratchRepo
    runner: SuiteRunner
    base_sha: str
    hunks: list[Hunk]
    texts: dict[str, str]
    failing: dict[str, set[str]]  #: task -> blocking hard-gate categories of the evaluation
    out: Path
    cost_usd: float = 0.0
    records: list[dict[str, Any]] = field(default_factory=list)

    def changes(self, chosen: tuple[int, ...]) -> dict[str, bytes | None]:
        picked = [self.hunks[i] for i in chosen]
        changes: dict[str, bytes | None] = {}
        for path, original in self.texts.items():
            own = [h for h in picked if h.path == path]
            if own:
                try:
                    text = hunk_mod.apply(original, own)
                except ValueError as exc:
                    raise ConfigError(f"blame: {exc}") from None
                changes[path] = text.encode("utf-8") if (text or original) else None
        return changes

    def __call__(self, chosen: tuple[int, ...]) -> Step:
        label = "+".join(str(i + 1) for i in chosen)
        sha = self.scratch.commit(self.base_sha, self.changes(chosen), f"instruction-gate blame: hunks {label}")
        contract = check_all(self.scratch.root, self.scratch.manifest_path, self.base_sha, sha).contract
        store = self.runner.run(contract, self.out / f"hunks-{label}", ("candidate",))
        records = [r for (task, _, variant), r in store.runs.items() if variant == "candidate" and task in self.failing]
        self.records += records
        self.cost_usd += sum(float(r.get("provider_cost_usd") or 0.0) for r in records)
        back = sorted({f"{r['task_id']}: {c}" for r in records if r.get("valid", True)
                       for c in r.get("hard_failures") or [] if c in self.failing[r["task_id"]]})
        invalid = sum(1 for r in records if not r.get("valid", True))
        detail = ", ".join(back) if back else "no failure came back"
        if invalid:
            detail += f" ({invalid} run(s) invalid: infrastructure)"
        return Step(chosen, bool(back), len(records), detail)
