#!/usr/bin/env python3
"""The benchmark report: every benchmark's headline figures next to their committed references.

Runs the benchmarks (all of them, or `--fast`: the subset CI runs, with fewer repetitions of the
same measurements, so its figures compare with the same references), collects the figures they
`record` (benchmarks/figures.py), and writes one table: figure, unit, this commit, the reference
(benchmarks/reference.json), the ratio, and a flag on any figure more than 25 % worse than its
reference. It informs: the exit status is 0 unless `--fail-on-regression` is given.

A reference changes only in a commit that says why (`--update-reference` rewrites the file from
this run's figures; review the diff). Timings are this machine class's (2 cores); on other
hardware read the ratios of figures measured in the same run, not the absolute values.

Usage: benchmarks/report.py [--fast] [--out FILE] [--only SCRIPT ...] [--update-reference]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from figures import FIGURES_ENV  # noqa: E402

REFERENCE = HERE / "reference.json"
THRESHOLD = 0.25  #: a figure this much worse than its reference is flagged


@dataclass(frozen=True)
class Bench:
    """One benchmark script and how the report runs it."""

    script: str
    args: tuple[str, ...] = ()  #: the full run
    fast_args: tuple[str, ...] | None = None  #: the CI subset's run (None: not in the subset)


BENCHMARKS = (
    Bench("compare_speed.py", ("--runs", "5"), ("--runs", "1")),
    Bench("agent_stream_parsing.py", (), ()),
    Bench("directive_corpus.py", (), ()),
    Bench("lint_scaling.py", ("--max-kb", "1024"), ("--max-kb", "256")),
    Bench("impact.py", (), None),
    Bench("runner_overhead.py", (), None),
    Bench("calibration.py", (), None),
    Bench("check_sandbox_cost.py", (), None),
    Bench("hard_gate_noise.py", (), None),
    Bench("hostile_scaling.py", (), None),
    Bench("lint_corpus.py", (), None),
    Bench("markdown_shapes.py", (), None),
    Bench("mining_yield.py", (), None),
    Bench("mutation_cost.py", (), None),
    Bench("output_limits.py", (), None),
    Bench("sequential.py", (), None),
)


@dataclass(frozen=True)
class Row:
    name: str
    unit: str
    better: str
    value: float | None  #: this run's figure (None: the benchmark did not produce it)
    reference: float | None  #: the committed reference (None: a new figure)

    @property
    def ratio(self) -> float | None:
        """How many times worse than the reference (above 1: worse), whichever way is better."""
        if self.value is None or self.reference is None:
            return None
        worse, better = (self.value, self.reference) if self.better == "lower" else (self.reference, self.value)
        if better == 0:
            return 1.0 if worse == 0 else float("inf")
        return worse / better

    @property
    def flag(self) -> str:
        if self.value is None:
            return "missing"
        if self.reference is None:
            return "new"
        return "WORSE" if self.ratio is not None and self.ratio > 1 + THRESHOLD else ""


def run_benchmark(bench: Bench, fast: bool, python: str = sys.executable) -> tuple[list[dict], float, str]:
    """(figures, seconds, error text) of one benchmark run in a fresh process."""
    with tempfile.TemporaryDirectory() as tmp:
        sink = Path(tmp) / "figures.jsonl"
        args = bench.fast_args if fast and bench.fast_args is not None else bench.args
        started = time.perf_counter()
        done = subprocess.run([python, str(HERE / bench.script), *args], capture_output=True, text=True,
                              env={**os.environ, FIGURES_ENV: str(sink)})
        seconds = time.perf_counter() - started
        figures = [json.loads(line) for line in sink.read_text().splitlines()] if sink.exists() else []
        error = "" if done.returncode == 0 else f"exit {done.returncode}: {done.stderr.strip()[-300:]}"
        return figures, seconds, error


def rows(figures: list[dict], reference: dict[str, dict], expected: set[str] = frozenset()) -> list[Row]:
    """One row per figure measured or expected (a referenced figure of a benchmark that ran)."""
    seen = {f["name"]: f for f in figures}
    out = [Row(f["name"], f["unit"], f["better"], f["value"], reference.get(f["name"], {}).get("value"))
           for f in figures]
    for name in sorted(expected - set(seen)):
        ref = reference[name]
        out.append(Row(name, ref["unit"], ref["better"], None, ref["value"]))
    return out


def _number(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:.3g}" if abs(value) < 1000 else f"{value:,.0f}"


def table(report: list[Row]) -> str:
    lines = ["| figure | unit | this commit | reference | ratio | flag |", "|---|---|---:|---:|---:|---|"]
    for row in report:
        ratio = "—" if row.ratio is None else f"{row.ratio:.2f}"
        lines.append(f"| {row.name} | {row.unit} | {_number(row.value)} | {_number(row.reference)} | {ratio} | {row.flag} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fast", action="store_true", help="the CI subset, fewer repetitions")
    parser.add_argument("--out", type=Path, help="also write the report (Markdown) here")
    parser.add_argument("--only", nargs="+", metavar="SCRIPT", help="run only these benchmark scripts")
    parser.add_argument("--reference", type=Path, default=REFERENCE)
    parser.add_argument("--update-reference", action="store_true", help="rewrite the references from this run")
    parser.add_argument("--fail-on-regression", action="store_true", help="exit 1 when a figure is flagged")
    args = parser.parse_args(argv)
    reference = json.loads(args.reference.read_text()) if args.reference.exists() else {}
    chosen = [b for b in BENCHMARKS if (not args.fast or b.fast_args is not None)
              and (not args.only or b.script in args.only)]
    figures: list[dict] = []
    notes = []
    for bench in chosen:
        found, seconds, error = run_benchmark(bench, args.fast)
        figures += found
        notes.append(f"- `{bench.script}`: {seconds:.1f} s" + (f" — failed ({error})" if error else ""))
    scripts = {b.script for b in chosen}
    expected = {name for name, ref in reference.items() if ref.get("script") in scripts}
    report = rows(figures, reference, expected)
    flagged = [r for r in report if r.flag == "WORSE"]  # a missing figure is shown, not held against the run
    text = (f"# Benchmark report\n\n{'Fast subset' if args.fast else 'All benchmarks'}, "
            f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs. A figure more than "
            f"{THRESHOLD:.0%} worse than its reference is flagged WORSE.\n\n{table(report)}\n\n"
            + "\n".join(notes) + "\n")
    print(text)
    if flagged:
        print(f"{len(flagged)} figure(s) flagged: {', '.join(r.name for r in flagged)}")
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    if args.update_reference:
        merged = {**reference, **{f["name"]: {k: f[k] for k in ("value", "unit", "better", "script")}
                                  for f in figures}}
        args.reference.write_text(json.dumps(dict(sorted(merged.items())), indent=1) + "\n", encoding="utf-8")
    return 1 if flagged and args.fail_on_regression else 0


if __name__ == "__main__":
    raise SystemExit(main())
