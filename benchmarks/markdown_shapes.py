#!/usr/bin/env python3
"""Lint and explain time on one-line texts built from a single Markdown token repeated: are they linear?

Each shape (a backtick, an unclosed link opener `[x](`, a bracket, emphasis, an HTML comment
opener, …) makes a backtracking pattern rescan the rest of the line from every position. The
script lints and explains an AGENTS.md of `Run \\`make test\\`. ` followed by the token at two
sizes, four times apart; a linear step takes about four times as long at the larger size.
Usage: python benchmarks/markdown_shapes.py [--chars 10000]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from instruction_gate.lint.engine import context, lint  # noqa: E402
from instruction_gate.lint.policy import LintPolicy  # noqa: E402
from instruction_gate.lint.tree import DirTree  # noqa: E402
from instruction_gate.reference_agent.explain import explain  # noqa: E402

SHAPES = {"backticks": "`", "code openers": "``a", "link openers": "[x](", "brackets": "[", "emphasis": "**a",
          "stars": "*", "underscores": "_", "angles": "<", "references": "[x][", "definitions": "[x]: ",
          "mentions": "@", "comments": "<!--", "substitutions": "$(", "fences": "~~~", "urls": "http://",
          "pipes": "|", "hashes": "# ", "parentheses": "(", "quotes": '"'}


def timed(text: str) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "AGENTS.md").write_text(text)
        start = time.perf_counter()
        lint(context(DirTree(root), LintPolicy()))
        middle = time.perf_counter()
        explain(DirTree(root), "", "all", root)
        return middle - start, time.perf_counter() - middle


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chars", type=int, default=10_000, help="the smaller size (the larger is 4x)")
    args = parser.parse_args()
    print(f"{'shape':<14} {'lint s':>8} {'lint 4x':>8} {'ratio':>6} {'explain s':>10} {'explain 4x':>10} {'ratio':>6}")
    for name, unit in SHAPES.items():
        small, large = ("Run `make test`. " + unit * (n // len(unit)) + "\n" for n in (args.chars, 4 * args.chars))
        (lint_small, explain_small), (lint_large, explain_large) = timed(small), timed(large)
        print(f"{name:<14} {lint_small:>8.3f} {lint_large:>8.3f} {lint_large / max(lint_small, 1e-6):>6.1f} "
              f"{explain_small:>10.3f} {explain_large:>10.3f} {explain_large / max(explain_small, 1e-6):>6.1f}")


if __name__ == "__main__":
    main()
