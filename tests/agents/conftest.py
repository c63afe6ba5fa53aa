"""Fixtures for the agent adapter tests (helpers live in agent_helpers.py)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    return root
