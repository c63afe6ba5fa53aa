"""One module per command, and the options several commands share (defined once here, so a flag
means and reads the same wherever it is accepted)."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_check_env_dir(parser: argparse.ArgumentParser, agent: bool = True) -> None:
    """`--check-env-dir`, for every command that runs checks (run/check_env.py `checked_env_dir`
    reads it); `agent=False` for commands that run checks without an agent (validate-tasks)."""
    users = "checks and the agent's commands" if agent else "checks"
    parser.add_argument("--check-env-dir", type=Path, metavar="DIR",
                        help=f"the project's environment (a virtualenv or prefix with bin/) for {users}; "
                             "default: the harness interpreter's")
