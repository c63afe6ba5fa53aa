#!/usr/bin/env python3
"""Blame entry point: which of the candidate's instruction hunks a FAIL follows. See `instruction_gate.commands.blame`."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from instruction_gate.cli import main  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(main(only="blame"))
