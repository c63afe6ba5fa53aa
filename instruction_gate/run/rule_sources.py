"""Where a variant's instruction files state a task's command rules, for the reviewer's evidence.

For each required or forbidden command pattern, the first instruction line (sorted by path) the
pattern matches, as `path:line`. A candidate that dropped a rule shows no line where its paired
base run shows one: that is the edit to look at.
"""

from __future__ import annotations

import re
from pathlib import Path

from instruction_gate import git
from instruction_gate.suite.contract import Contract
from instruction_gate.suite.manifest import Task


def instruction_texts(repo: Path, contract: Contract) -> dict[str, dict[str, str]]:
    """variant -> instruction path -> text (undecodable bytes replaced)."""
    texts: dict[str, dict[str, str]] = {}
    for variant, tree in (("base", contract.base_instructions), ("candidate", contract.candidate_instructions)):
        texts[variant] = {}
        for path, entry in sorted(tree.items()):
            blob = git.git("cat-file", "blob", entry.oid, cwd=repo, check=False)
            if blob.ok:
                texts[variant][path] = blob.stdout
    return texts


def rule_sources(task: Task, texts: dict[str, str]) -> dict[str, str]:
    """pattern -> `path:line` of its first matching instruction line; patterns stated nowhere are left out."""
    found: dict[str, str] = {}
    for pattern in dict.fromkeys((*task.required_command_patterns, *task.forbidden_command_patterns)):
        regex = re.compile(pattern)
        for path, text in texts.items():
            line = next((n for n, line in enumerate(text.splitlines(), 1) if regex.search(line)), None)
            if line is not None:
                found[pattern] = f"{path}:{line}"
                break
    return found
