#!/usr/bin/env python3
"""The instruction lint on instruction files it was not written for: findings per rule, time per file.

Point it at a folder of repositories or of collected AGENTS.md / CLAUDE.md files (each
sub-folder is linted as one working tree); every finding is printed so a person can sort true
from false positives. A second pass inserts, beside each file, a nested AGENTS.md that negates
one of the file's own positive directives, and counts how many of those contradictions IG006
reports. Usage: python benchmarks/lint_corpus.py [FOLDER] (default: examples/)
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from instruction_gate.lint import directives  # noqa: E402
from instruction_gate.lint.engine import context, lint  # noqa: E402
from instruction_gate.lint.policy import LintPolicy  # noqa: E402
from instruction_gate.lint.tree import DirTree  # noqa: E402

INSTRUCTION_NAMES = ("AGENTS.md", "CLAUDE.md", "AGENTS.override.md")


def trees(folder: Path) -> list[Path]:
    found = sorted(p for p in folder.iterdir() if p.is_dir() and any(p.rglob("AGENTS.md")) or
                   p.is_dir() and any(p.rglob("CLAUDE.md")))
    return found or [folder]


def inserted_contradiction_caught(tree: Path) -> bool | None:
    """Negate the middle positive directive of the tree's first instruction file in a nested file."""
    source = next((p for name in INSTRUCTION_NAMES for p in sorted(tree.rglob(name))), None)
    positives = [d for d in directives.directives(source.read_text(encoding="utf-8", errors="replace"))
                 if d.positive] if source else []
    if not positives:
        return None
    rule = positives[len(positives) // 2]
    with tempfile.TemporaryDirectory(prefix="ig-bench-lint-") as tmp:
        work = Path(tmp)
        shutil.copy(source, work / "AGENTS.md")
        (work / "nested").mkdir()
        (work / "nested" / "AGENTS.md").write_text(f"- Never {rule.raw_action}.\n", encoding="utf-8")
        found = lint(context(DirTree(work), LintPolicy()))
    return any(f.rule_id == "IG006" and f.path == "nested/AGENTS.md" for f in found)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path, default=Path(__file__).resolve().parent.parent / "examples")
    args = parser.parse_args()
    per_rule: Counter[str] = Counter()
    seconds, files, caught, tried = [], 0, 0, 0
    for tree in trees(args.folder):
        files += sum(1 for name in INSTRUCTION_NAMES for _ in tree.rglob(name))
        started = time.perf_counter()
        found = lint(context(DirTree(tree), LintPolicy()))
        seconds.append(time.perf_counter() - started)
        for finding in found:
            per_rule[finding.rule_id] += 1
            print(f"{finding.rule_id} {tree.name}/{finding.path}:{finding.line}  {finding.message[:160]}")
        result = inserted_contradiction_caught(tree)
        if result is not None:
            tried += 1
            caught += result
    print(f"\n{len(seconds)} trees, {files} instruction files")
    print("findings per rule:", dict(sorted(per_rule.items())) or "none")
    if seconds:
        print(f"lint time per tree: median {sorted(seconds)[len(seconds) // 2] * 1000:.1f} ms, "
              f"max {max(seconds) * 1000:.1f} ms")
    print(f"inserted contradictions reported by IG006: {caught}/{tried}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
