#!/usr/bin/env python3
"""Lint and explain time per KB of adversarial instruction text, up to 1 MB: are they linear?

Three texts a pull request could use to stall the static-contract job: one contradicting pair
repeated (every directive contradicts half of the others), many distinct contradicting rules
naming missing make targets, and a wall of identical imperatives. Each size is linted as the
AGENTS.md and CLAUDE.md of a working tree (so chains load both). Prints seconds and seconds per
100 KB for the lint, and the same for `explain --agent all` (every agent's chain and the reference
agent's directives, past Codex's budget); a linear lint or explain keeps its s/100KB column flat.
Target: under 1 s per 100 KB.
Usage: python benchmarks/lint_scaling.py [--max-kb 1024]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from instruction_gate.lint.engine import context, lint  # noqa: E402
from instruction_gate.lint.policy import LintPolicy  # noqa: E402
from instruction_gate.lint.tree import DirTree  # noqa: E402
from instruction_gate.reference_agent.explain import explain  # noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parent))
from figures import record  # noqa: E402


def _repeated(i: int) -> str:
    return "Always run `make test` before committing. Never run `make test` before committing.\n"


def _distinct(i: int) -> str:
    word = ("build", "lint", "test", "deploy", "check")[i % 5]
    return f"- Always run `make {word}{i}` in module {i}. Never run `make {word}{i}` in module {i}.\n"


def _imperatives(i: int) -> str:
    return "Run tests. " * 20 + "\n"


TEXTS = {"repeated pair": _repeated, "distinct pairs": _distinct, "imperative wall": _imperatives}


def text_of(kind: str, size: int) -> str:
    parts, used, i = [], 0, 0
    while used < size:
        parts.append(TEXTS[kind](i))
        used += len(parts[-1])
        i += 1
    return "".join(parts)[:size]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-kb", type=int, default=1024)
    args = parser.parse_args()
    sizes = [kb for kb in (16, 64, 256, 1024) if kb <= args.max_kb]
    print(f"{'text':<16} {'KB':>6} {'seconds':>8} {'s/100KB':>8} {'findings':>9} {'explain s':>10} {'s/100KB':>8} "
          f"{'directives':>10}")
    for kind in TEXTS:
        for kb in sizes:
            root = Path(tempfile.mkdtemp(prefix="ig-lint-scale-"))
            try:
                body = text_of(kind, kb * 1000 // 2)  # two files of half the size each
                (root / "AGENTS.md").write_text(body)
                (root / "CLAUDE.md").write_text(body)
                started = time.perf_counter()
                found = lint(context(DirTree(root), LintPolicy()))
                seconds = time.perf_counter() - started
                started = time.perf_counter()
                _, _, understood = explain(DirTree(root), ".", "all", root)
                explained = time.perf_counter() - started
            finally:
                shutil.rmtree(root)
            print(f"{kind:<16} {kb:>6} {seconds:>8.2f} {seconds / kb * 100:>8.2f} {len(found):>9} {explained:>10.2f} "
                  f"{explained / kb * 100:>8.2f} {len(understood):>10}", flush=True)
            if kb == 256:  # one size per text in the report; the table shows whether time stays linear
                record(f"lint, {kind}, 256 KB: seconds per 100 KB", seconds / kb * 100, "s")
                record(f"explain, {kind}, 256 KB: seconds per 100 KB", explained / kb * 100, "s")


if __name__ == "__main__":
    main()
