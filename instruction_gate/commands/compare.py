"""`compare`: paired results + policy -> summary.md, summary.json, annotations and the exit code.

Exit 0 pass, 1 gate failure, 2 bad flags/policy/results, 3 could not evaluate (no results, too
few valid pairs, unequal arm coverage). A summary is written for 0, 1 and 3.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from pathlib import Path

from instruction_gate.report import github
from instruction_gate.verdict.comparison import compare
from instruction_gate.errors import NotEvaluatedError
from instruction_gate.verdict.policy import load_policy
from instruction_gate.outputs import check_outputs
from instruction_gate.records import write_json_atomic, write_text_atomic
from instruction_gate.verdict.results import ResultSet, load_results
from instruction_gate.report import chart_md
from instruction_gate.report.summary_json import build_summary
from instruction_gate.report.summary_md import render
from instruction_gate.console import say


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--results", type=Path, action="append", required=True, metavar="PATH",
                        help="index.json, a list of run records, or a directory of shard outputs; repeatable")
    parser.add_argument("--policy", type=Path, required=True, help="policy.json (schemas/policy.schema.json)")
    parser.add_argument("--summary", type=Path, required=True, help="where to write the Markdown summary, with summary.json and the chart beside it "
                             "(its directory is created)")
    parser.add_argument("--json", type=Path, default=None, dest="json_path",
                        help="where to write summary.json (default: --summary with a .json suffix)")


def _inputs(args: argparse.Namespace) -> list[Path]:
    """Every file compare reads: the policy, each --results path and the index files below directories."""
    found = [args.policy, *args.results]
    for path in args.results:
        if path.is_dir():
            found += path.rglob("index.json")
    return found


def run(args: argparse.Namespace) -> int:
    # The records become a few hundred thousand long-lived objects and compare frees almost none:
    # the cyclic collector walking them again and again cost a tenth of the run at 10,000
    # records. It is paused for the command (garbage is freed by reference counting as always).
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _run(args)
    finally:
        if collecting:
            gc.enable()


def _run(args: argparse.Namespace) -> int:
    # summary.md -> summary.json, summary.svg; pr-12.md -> pr-12.json, ...: several may share a folder
    json_path = args.json_path or args.summary.with_suffix(".json")
    # --summary names a small report bundle (md, json, svg): like an --out, its directory is made.
    check_outputs({"--summary": args.summary, "--json": json_path, "--summary (its chart)": args.summary.with_suffix(".svg")},
                  _inputs(args), dirs={"--summary (its directory)": args.summary.parent})
    policy = load_policy(args.policy)
    load_problems = []
    try:
        results = load_results(args.results)
    except NotEvaluatedError as exc:
        results, load_problems = ResultSet(), [str(exc)]
    comparison = compare(results, policy, load_problems)
    summary = build_summary(comparison)
    chart_path, chart = args.summary.with_suffix(".svg"), chart_md.svg(comparison)
    markdown = render(comparison, chart_path.name if chart else None)
    if chart:
        write_text_atomic(chart_path, chart)
    write_text_atomic(args.summary, markdown)
    write_json_atomic(json_path, summary)
    if os.environ.get("GITHUB_STEP_SUMMARY"):  # outside Actions nobody reads the job summary's copy
        github.append_step_summary(render(comparison, chart_path.name if chart else None, link_chart=False))
    decision = comparison.decision
    if os.environ.get("GITHUB_ACTIONS") == "true":
        github.emit_annotations(decision.errors, decision.warnings, sys.stdout)
    else:
        for level, messages in (("error", decision.errors), ("warning", decision.warnings)):
            for message in messages:
                say(f"{level}: {message}", file=sys.stderr)
    say(decision.headline)
    say(f"summary: {args.summary}  json: {json_path}", file=sys.stderr)
    return decision.exit_code
