"""What compare needs to attribute failures to instruction lines, recorded in index.json: the
candidate's instruction edit (merge base → candidate) as hunks, and the suite's gate sources.

Compare has no git and no manifest (tests/test_layout.py), so the runner records both; compare
names them next to the behaviour they explain.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from instruction_gate import git, hunks
from instruction_gate.suite.contract import Contract
from instruction_gate.suite.manifest import Manifest

#: Hunks recorded per evaluation; a larger edit keeps the first ones (attribution then says less).
MAX_HUNKS = 200


def instruction_hunks(repo: Path, contract: Contract) -> list[dict[str, Any]]:
    """`-U0` hunks of every changed instruction file, in diff order, as index.json entries."""
    if not contract.changed_instruction_paths:
        return []
    diff = git.out("diff", "-U0", "--no-color", "--no-ext-diff", "--no-textconv", contract.merge_base_sha,
                   contract.candidate_sha, "--", *contract.changed_instruction_paths, cwd=repo)
    return [h.as_dict() for h in hunks.parse(diff)[:MAX_HUNKS]]


def gate_sources(manifest: Manifest, task_ids: set[str]) -> dict[str, dict[str, str]]:
    """Per task, the instruction line each hard gate enforces (manifest `gate_sources`, the task's
    own overriding), for index.json; tasks that declare none are left out."""
    shared = manifest.raw.get("gate_sources") or {}
    found = {t.id: {**shared, **(t.raw.get("gate_sources") or {})} for t in manifest.tasks if t.id in task_ids}
    return {task: sources for task, sources in sorted(found.items()) if sources}
