"""The benchmark report flags a figure that got worse than its reference, and only then.

A test of the report, not of any timing: the benchmarks here are tiny scripts in tmp_path whose
"slowed branch" does the same work three times over.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import textwrap

import pytest

from tests.conftest import REPO_ROOT

# Loaded under a name of its own: `report` is also a test package here.
_SPEC = importlib.util.spec_from_file_location("benchmark_report", REPO_ROOT / "benchmarks" / "report.py")
report = sys.modules["benchmark_report"] = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(report)

WORK = """
    import sys, time
    sys.path.insert(0, {benchmarks!r})
    from figures import record
    started = time.perf_counter()
    for _ in range({rounds}):
        time.sleep(0.05)
    record("work: seconds", time.perf_counter() - started, "s")
    record("work: throughput", 1 / (time.perf_counter() - started), "1/s", "higher")
"""


def _bench(tmp_path, name: str, rounds: int) -> report.Bench:
    script = tmp_path / f"{name}.py"
    script.write_text(textwrap.dedent(WORK.format(benchmarks=str(REPO_ROOT / "benchmarks"), rounds=rounds)))
    return report.Bench(str(script))


def _reference(tmp_path, rounds: int) -> dict:
    figures, _, error = report.run_benchmark(_bench(tmp_path, "reference", rounds), fast=False)
    assert not error
    return {f["name"]: {**f, "script": "work"} for f in figures}


def test_a_slowed_branch_is_flagged_and_an_unchanged_one_is_not(tmp_path):
    reference = _reference(tmp_path, rounds=2)
    slowed, _, error = report.run_benchmark(_bench(tmp_path, "slowed", rounds=6), fast=False)
    assert not error
    rows = {row.name: row for row in report.rows(slowed, reference)}
    assert rows["work: seconds"].flag == "WORSE" and rows["work: seconds"].ratio > 2
    assert rows["work: throughput"].flag == "WORSE"  # higher is better: the ratio is read the other way
    same, _, _ = report.run_benchmark(_bench(tmp_path, "same", rounds=2), fast=False)
    assert all(row.flag == "" for row in report.rows(same, reference))


def test_a_faster_figure_is_not_flagged_and_new_or_missing_figures_are_named():
    reference = {"old: seconds": {"value": 2.0, "unit": "s", "better": "lower", "script": "x.py"}}
    figures = [{"name": "old: seconds", "value": 1.0, "unit": "s", "better": "lower"},
               {"name": "new: seconds", "value": 1.0, "unit": "s", "better": "lower"}]
    rows = {row.name: row for row in report.rows(figures, reference)}
    assert rows["old: seconds"].flag == "" and rows["old: seconds"].ratio == pytest.approx(0.5)
    assert rows["new: seconds"].flag == "new"
    missing = report.rows([], reference, expected={"old: seconds"})
    assert [(row.name, row.flag) for row in missing] == [("old: seconds", "missing")]


def test_the_report_prints_the_table_and_fails_only_when_asked(tmp_path, monkeypatch, capsys):
    bench = _bench(tmp_path, "slow", rounds=6)
    reference = tmp_path / "reference.json"
    reference.write_text(json.dumps({"work: seconds": {"value": 0.1, "unit": "s", "better": "lower",
                                                       "script": bench.script}}))
    monkeypatch.setattr(report, "BENCHMARKS", (bench,))
    out = tmp_path / "report.md"
    assert report.main(["--reference", str(reference), "--out", str(out)]) == 0  # informs by default
    assert report.main(["--reference", str(reference), "--fail-on-regression"]) == 1
    text = out.read_text()
    assert "| work: seconds | s |" in text and "WORSE" in text
    assert "flagged: work: seconds" in capsys.readouterr().out


def test_every_benchmark_the_report_runs_exists_and_the_committed_references_name_them():
    scripts = {bench.script for bench in report.BENCHMARKS}
    assert all((REPO_ROOT / "benchmarks" / script).is_file() for script in scripts)
    reference = json.loads(report.REFERENCE.read_text())
    assert reference and {entry["script"] for entry in reference.values()} <= scripts
    assert all(entry["better"] in ("lower", "higher") for entry in reference.values())
