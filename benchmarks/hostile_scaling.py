#!/usr/bin/env python3
"""Mutation generation and secret redaction on hostile instruction sizes: are they linear?

`mutate` makes a mutant per rule, and every record the run store writes passes through the
credential patterns, so both see whatever a pull request puts in an AGENTS.md. Mutation: the
example's AGENTS.md repeated to each size (many short rules) and one line of directives with no
newline (every sentence in one block); prints mutants, seconds, s/100KB and peak traced memory.
Redaction: texts built to make a naive pattern rescan from every position (`a-a-a-…` for a URL
scheme, `token_a…` for a credential name, a wall of `BEGIN PRIVATE KEY` headers); prints
seconds and s/100KB. A linear step keeps its s/100KB column flat as the size quadruples.
Usage: python benchmarks/hostile_scaling.py [--max-kb 1024]
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from instruction_gate import secret_shapes  # noqa: E402
from instruction_gate.mutations.model import decode  # noqa: E402
from instruction_gate.mutations.operators import OPERATORS, generate  # noqa: E402

EXAMPLE = (ROOT / "examples" / "repo" / "AGENTS.md").read_text()
LINE = "Always run `make test` and never edit `vendor/`. "
REDACTION_TEXTS = {"a-a-a-": "a-", "token_a": "token_a", "key headers": "-----BEGIN PRIVATE KEY-----A\n",
                   "prose with tokens": "Set GITHUB_TOKEN=ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5 and go. "}


def mutation_texts(size: int) -> dict[str, str]:
    return {"many rules": (EXAMPLE * (size // len(EXAMPLE) + 1))[:size],
            "one line": "# T\n\n" + (LINE * (size // len(LINE) + 1))[:size] + "\n"}


def measure_mutation(text: str) -> tuple[int, float, float]:
    decode.cache_clear()
    tracemalloc.start()
    start = time.perf_counter()
    mutants = generate({"AGENTS.md": text.encode()}, OPERATORS)
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return len(mutants), seconds, peak / 1e6


def measure_redaction(unit: str, size: int) -> float:
    text = (unit * (size // len(unit) + 1))[:size]
    start = time.perf_counter()
    secret_shapes.redact(text)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-kb", type=int, default=1000, help="largest size; the 1 MiB read cap is the limit")
    args = parser.parse_args()
    sizes = [kb * 1024 for kb in (64, 256, 1000) if kb <= args.max_kb] or [args.max_kb * 1024]
    print("mutation generation (all operators)")
    print(f"{'text':<12} {'KB':>6} {'mutants':>8} {'seconds':>8} {'s/100KB':>8} {'peak MB':>8}")
    for name in ("many rules", "one line"):
        for size in sizes:
            count, seconds, peak = measure_mutation(mutation_texts(size)[name])
            print(f"{name:<12} {size // 1024:>6} {count:>8} {seconds:>8.2f} {seconds / size * 102400:>8.3f} {peak:>8.1f}")
    print("\nsecret redaction (every pattern)")
    print(f"{'text':<18} {'KB':>6} {'seconds':>8} {'s/100KB':>8}")
    for name, unit in REDACTION_TEXTS.items():
        for size in sizes:
            seconds = measure_redaction(unit, size)
            print(f"{name:<18} {size // 1024:>6} {seconds:>8.3f} {seconds / size * 102400:>8.4f}")


if __name__ == "__main__":
    main()
