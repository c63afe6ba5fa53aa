"""Manifest entries and task folders for mined tasks.

Layout under the suite directory: `tasks/<id>/prompt.md`, `fixture.patch`, `solution.patch`
and `hidden/<repository path>.hidden` — a suffix the project's own test run never collects,
so the suite's copies of its tests do not run twice (or fail) in the project's CI.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any

from instruction_gate.mining.materials import Materials
from instruction_gate.mining.prompt import write as write_prompt

HIDDEN_SUFFIX = ".hidden"
#: Seconds a mined check may run: a starting tree that hangs must not stall the mining.
CHECK_TIMEOUT_SECONDS = 120


def task_id(materials: Materials) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", materials.candidate.subject.lower()).strip("-")[:40].rstrip("-")
    return f"fix-{materials.candidate.sha[:8]}" + (f"-{slug}" if slug else "")


def pytest_check(node_ids: tuple[str, ...]) -> list[str]:
    # No cache directory: the check's workspace is thrown away, and writing one is noise.
    return ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider", *node_ids]


def entry(materials: Materials, suite_dir: str, required_commands: tuple[str, ...] = ()) -> tuple[dict[str, Any], dict[str, bytes]]:
    """The manifest task and its files (repository path -> content) for one mined commit."""
    identifier = task_id(materials)
    folder = posixpath.join(suite_dir, "tasks", identifier)
    candidate = materials.candidate
    visible = any("the agent sees the tests" in flag for flag in materials.flags)
    prompt, prompt_flags = write_prompt(candidate.subject, materials.node_ids, visible)
    files = {f"{folder}/prompt.md": prompt.encode(), f"{folder}/fixture.patch": materials.fixture_patch.encode(),
             f"{folder}/solution.patch": materials.solution_patch.encode()}
    hidden = {}
    for path, content in sorted(materials.hidden_tests.items()):
        copy = f"{folder}/hidden/{path}{HIDDEN_SUFFIX}"
        files[copy] = content
        hidden[path] = copy
    task: dict[str, Any] = {
        "id": identifier, "kind": "bug_fix", "description": candidate.subject, "cwd": ".",
        "prompt_file": f"{folder}/prompt.md", "fixture_patch": f"{folder}/fixture.patch",
        "reference_solution": f"{folder}/solution.patch", "hidden_tests": hidden,
        "checks": [pytest_check(materials.node_ids)], "check_timeout_seconds": CHECK_TIMEOUT_SECONDS,
        "required_command_patterns": list(required_commands),
        "origin": {"commit": candidate.sha, "subject": candidate.subject, "prompt_reviewed": False,
                   "flags": [*materials.flags, *prompt_flags]},
    }
    return task, files
