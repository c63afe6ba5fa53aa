"""Headline figures a benchmark hands to the benchmark report (`benchmarks/report.py`).

A benchmark prints its own table for people and, for each figure worth tracking across commits,
calls `record`. Run by itself nothing else happens; run by the report, `IG_BENCH_FIGURES` names
a JSON-lines file the figures are appended to, so the report reads numbers, never parses prose.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

#: The environment variable the report sets to collect figures.
FIGURES_ENV = "IG_BENCH_FIGURES"


def record(name: str, value: float, unit: str, better: str = "lower") -> None:
    """Hand one figure to the report: `better` is `lower` (times, costs) or `higher` (rates, precision)."""
    if better not in ("lower", "higher"):
        raise ValueError(f"better must be 'lower' or 'higher', got {better!r}")
    target = os.environ.get(FIGURES_ENV)
    if not target:
        return
    line = {"name": name, "value": float(value), "unit": unit, "better": better,
            "script": Path(sys.argv[0]).name}
    with open(target, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(line) + "\n")
