"""Golden summary.md files: the reviewer's view must not change by accident.

After an intended change run `tests/golden/regenerate.py` and review the diff.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from compare_builders import golden_scenarios

GOLDEN = Path(__file__).resolve().parent / "golden"
_spec = importlib.util.spec_from_file_location("golden_regenerate", GOLDEN / "regenerate.py")
regenerate = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(regenerate)


@pytest.mark.parametrize("name", sorted(golden_scenarios()))
def test_summary_markdown_matches_golden_file(name, tmp_path):
    data, policy_data = golden_scenarios()[name]
    expected = (GOLDEN / f"{name}.md").read_text(encoding="utf-8")
    assert regenerate.render_scenario(data, policy_data, tmp_path) == expected


def test_every_golden_file_has_a_scenario():
    assert {p.stem for p in GOLDEN.glob("*.md")} == set(golden_scenarios())
