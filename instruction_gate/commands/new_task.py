"""`new-task --from-commit SHA`: one task from a fix commit a maintainer picks, as `mine` builds it.

The commit need not read like a fix; it must change Python code and Python tests. The task is
validated twice like a mined one and written only when valid. Exit 0 written (or valid with
--dry-run), 1 not valid (the report says why), 2 configuration error.
"""

from __future__ import annotations

import argparse

from instruction_gate.commands import mine
from instruction_gate.errors import ConfigError
from instruction_gate.mining import history, miner


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--from-commit", required=True, metavar="SHA", help="the fix commit to turn into a task")
    mine.add_common(parser)


def run(args: argparse.Namespace) -> int:
    chosen = mine.settings(args)
    candidate = history.one(chosen.repo, args.from_commit)
    if not candidate.test_files or not candidate.code_files:
        what = "no Python test module (test_*.py, *_test.py)" if not candidate.test_files else "no Python code outside tests"
        raise ConfigError(f"--from-commit: {args.from_commit}: changes {what}; a task needs both")
    report = miner.mine(chosen, [candidate], [], 1, lambda line: None)
    return mine.finish(args, chosen, report)
