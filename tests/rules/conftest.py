"""One evaluation of the whole example suite, shared by the tests that need real runs."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from instruction_gate import demo_repo
from instruction_gate.suite.manifest import load
from tests.conftest import REPO_ROOT


@pytest.fixture(scope="session")
def example_runs(tmp_path_factory):
    """(output dir, manifest, run records) of the example suite: reference agent, one repeat, the
    `contradiction` mutation as candidate (its AGENTS.md forbids running pytest)."""
    root = tmp_path_factory.mktemp("example")
    repo = demo_repo.build(root / "demo", demo_repo.resolve_candidate("contradiction"))
    out = root / "out"
    completed = subprocess.run(
        [sys.executable, str(REPO_ROOT / "runner.py"), "--repo", str(repo.path),
         "--manifest", str(repo.suite / "manifest.json"), "--base", repo.base, "--candidate", repo.candidate,
         "--out", str(out), "--repeats", "1", "--jobs", "2",
         "--adapter", f"{sys.executable} {REPO_ROOT / 'adapters' / 'reference'}"],
        cwd=repo.path, capture_output=True, text=True, timeout=600)
    assert completed.returncode in (0, 1) and "recorded" in completed.stderr, completed.stderr
    records = [json.loads(p.read_text()) for p in sorted(out.glob("*/repeat-*/*/run.json"))]
    return out, load(repo.suite / "manifest.json"), records
