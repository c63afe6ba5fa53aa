#!/usr/bin/env python3
"""Regenerate the golden summary.md files from the scenarios in tests/compare_builders.py.

Run after an intended change to the summary layout, then review the diff:
    .venv/bin/python tests/golden/regenerate.py && git diff tests/golden
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent.parent)]

from compare_builders import golden_scenarios  # noqa: E402
from instruction_gate.verdict.comparison import compare  # noqa: E402
from instruction_gate.verdict.policy import policy_from_dict  # noqa: E402
from instruction_gate.verdict.results import ResultSet, add_file  # noqa: E402
from instruction_gate.report.summary_md import render  # noqa: E402


def render_scenario(data: dict, policy_data: dict, workdir: Path) -> str:
    """The Markdown compare writes for `data` (an index) under `policy_data`."""
    import json

    path = workdir / "index.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    results = ResultSet()
    add_file(results, path)
    return render(compare(results, policy_from_dict(policy_data)))


def main() -> int:
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        for name, (data, policy_data) in golden_scenarios().items():
            workdir = Path(scratch) / name
            workdir.mkdir()
            target = HERE / f"{name}.md"
            target.write_text(render_scenario(data, policy_data, workdir), encoding="utf-8")
            print(f"wrote {target.relative_to(HERE.parent.parent)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
