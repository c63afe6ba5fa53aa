"""`validate`: manifest and static contract only; exit 0 or 2. Also run before every evaluation."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from instruction_gate.suite.contract import MIXED_CHANGES
from instruction_gate.run import check_env
from instruction_gate.suite.prepare import check_all
from instruction_gate.suite.prepare import compile_checked
from instruction_gate.verdict.policy import load_policy
from instruction_gate.console import say


def add_arguments(parser: argparse.ArgumentParser, with_policy: bool = True) -> None:
    parser.add_argument("--repo", type=Path, default=Path.cwd(), help="repository (default: current directory)")
    parser.add_argument("--manifest", type=Path, required=True, help="suite manifest (JSON or YAML)")
    parser.add_argument("--base", required=True, help="trusted base commit")
    parser.add_argument("--candidate", required=True, help="candidate commit (its instruction files are evaluated)")
    parser.add_argument("--mixed-changes", choices=MIXED_CHANGES,
                        help="a candidate that changes code too: refuse (exit 2) or hold-code (both arms on the "
                             "candidate's code); default: the policy's contract.mixed_changes, else refuse")
    if with_policy:
        parser.add_argument("--policy", type=Path, help="policy.json: its `contract` block applies here")


def mixed_changes(args: argparse.Namespace) -> str:
    """The flag, else the trusted policy's `contract.mixed_changes`, else refuse.

    The runner needs the mode before any workspace exists, so it reads the policy itself
    instead of leaving it to compare.
    """
    if args.mixed_changes:
        return args.mixed_changes
    if getattr(args, "policy", None) is not None:
        return str(load_policy(args.policy).contract["mixed_changes"])
    return "refuse"


def warn(message: str) -> None:
    say(f"warning: {message}", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    checked = check_all(args.repo, args.manifest, args.base, args.candidate, warn=warn,
                        mixed_changes=mixed_changes(args))
    compile_checked(checked)  # custom rules load and pass their authored cases
    check_env.refuse_bad_settings(checked.manifest, None, checked.contract.changed_instruction_paths, env_dir_known=False)
    c = checked.contract
    say(f"static contract ok: {len(checked.manifest.tasks)} tasks; candidate {c.candidate_sha[:12]} changes "
          f"{', '.join(c.changed_instruction_paths)} (merge base {c.merge_base_sha[:12]})", file=sys.stderr)
    if c.holds_code:
        say(held_fixed_line(c.held_fixed), file=sys.stderr)
    return 0


def held_fixed_line(paths: tuple[str, ...], limit: int = 20) -> str:
    shown = ", ".join(paths[:limit]) + (f", ... and {len(paths) - limit} more" if len(paths) > limit else "")
    return (f"mixed change, code held fixed (hold-code): both arms start from the candidate's tree; "
            f"{len(paths)} non-instruction file{'s' if len(paths) != 1 else ''} held fixed: {shown}")
