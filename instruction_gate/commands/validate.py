"""`validate`: manifest and static contract only; exit 0 or 2. Also run before every evaluation."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from instruction_gate.run import check_env
from instruction_gate.suite.prepare import check_all
from instruction_gate.suite.prepare import compile_checked


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--repo", type=Path, default=Path.cwd(), help="repository (default: current directory)")
    parser.add_argument("--manifest", type=Path, required=True, help="suite manifest (JSON or YAML)")
    parser.add_argument("--base", required=True, help="trusted base commit")
    parser.add_argument("--candidate", required=True, help="candidate commit (its instruction files are evaluated)")


def warn(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    checked = check_all(args.repo, args.manifest, args.base, args.candidate, warn=warn)
    compile_checked(checked)  # custom rules load and pass their authored cases
    check_env.refuse_bad_settings(checked.manifest, None, checked.contract.changed_instruction_paths, env_dir_known=False)
    c = checked.contract
    print(f"static contract ok: {len(checked.manifest.tasks)} tasks; candidate {c.candidate_sha[:12]} changes "
          f"{', '.join(c.changed_instruction_paths)} (merge base {c.merge_base_sha[:12]})", file=sys.stderr)
    return 0
