"""The candidate's instruction edit (merge base → candidate) as hunks, for index.json.

Compare has no git (tests/test_layout.py), so the runner records the hunks it evaluated; compare
names them next to the behaviour they explain, and blame re-applies subsets of them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from instruction_gate import git, hunks
from instruction_gate.suite.contract import Contract

#: Hunks recorded per evaluation; a larger edit keeps the first ones (attribution then says less).
MAX_HUNKS = 200


def instruction_hunks(repo: Path, contract: Contract) -> list[dict[str, Any]]:
    """`-U0` hunks of every changed instruction file, in diff order, as index.json entries."""
    if not contract.changed_instruction_paths:
        return []
    diff = git.out("diff", "-U0", "--no-color", "--no-ext-diff", "--no-textconv", contract.merge_base_sha,
                   contract.candidate_sha, "--", *contract.changed_instruction_paths, cwd=repo)
    return [h.as_dict() for h in hunks.parse(diff)[:MAX_HUNKS]]
