"""Mined tasks written into the repository: task folders, and the manifest created or extended.

An existing manifest keeps every task and setting it has; mined tasks whose commit is already
in it are skipped, so mining twice adds only what is new.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

from instruction_gate import records
from instruction_gate.mining.proposals import Proposal


def code_path(tree_paths: set[str] | frozenset[str]) -> str:
    """Where the workspace's own code imports from: `src/` for a src layout, else the root."""
    return "{workspace}/src" if any(p.startswith("src/") and p.endswith("/__init__.py") for p in tree_paths) else "{workspace}"


def new_manifest(instruction_paths: list[str], tree_paths: set[str] | frozenset[str],
                 proposals: list[Proposal], gate_sources: Mapping[str, str]) -> dict[str, Any]:
    rules = [p.rule for p in proposals if p.rule["kind"] != "command_required"]  # tasks require the test command
    manifest: dict[str, Any] = {
        "schema_version": 1, "repeats": 2, "instruction_paths": instruction_paths or ["AGENTS.md"],
        # The workspace's code first on the path: the checks judge the agent's tree, not an installed copy.
        "defaults": {"check_env": {"PYTHONPATH": code_path(tree_paths)}, "timeout_seconds": 900},
        "tasks": [],
    }
    if rules:
        manifest["rules"] = rules
    if gate_sources:
        manifest["gate_sources"] = dict(gate_sources)
    return manifest


def merged(existing: dict[str, Any] | None, fresh: dict[str, Any], tasks: list[dict[str, Any]]) -> tuple[dict[str, Any], list[str]]:
    """The manifest to write and the ids of the tasks added."""
    manifest = existing if existing is not None else fresh
    have = {t.get("origin", {}).get("commit") for t in manifest.get("tasks", [])} | {t.get("id") for t in manifest.get("tasks", [])}
    added = [t for t in tasks if t["origin"]["commit"] not in have and t["id"] not in have]
    manifest.setdefault("tasks", []).extend(added)
    return manifest, [t["id"] for t in added]


def write(repo: Path, manifest_path: Path, manifest: dict[str, Any], files: Mapping[str, bytes]) -> None:
    for path, content in sorted(files.items()):
        target = repo / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
    manifest_path.parent.mkdir(parents=True, exist_ok=True)
    records.write_text_atomic(manifest_path, json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
