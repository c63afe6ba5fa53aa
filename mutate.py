#!/usr/bin/env python3
"""Mutation-testing entry point: does the suite notice broken instructions? See `instruction_gate.commands.mutate`."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from instruction_gate.cli import main  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(main(only="mutate"))
