"""Which test functions a commit touched, as pytest node ids, and what their source leans on.

Only the touched functions become the task's hidden checks: running whole test files makes
unrelated tests (slow, flaky, environment-bound) fail the task under load.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

#: A hunk header of `git diff -U0`: the new side's first line and length.
HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")
#: What makes a test depend on the clock, not the code (dropped: it fails or passes under load).
TIMING = re.compile(r"\btime\.sleep\(|\basyncio\.sleep\([^0)]|\bperf_counter\(|\bmonotonic\("
                    r"|\btime\.time\(\)")
#: What makes a test read installed package metadata (the workspace's code is not installed).
METADATA = re.compile(r"\bimportlib\.metadata\b|\bimportlib_metadata\b|\bpkg_resources\b|\bentry_points\(|"
                      r"\bmetadata\.version\(|\bdistribution\(")


@dataclass(frozen=True)
class TestFunction:
    node_id: str  #: `path::Class::name` (pytest's id, parameters left out: all run)
    source: str  #: the function's source, decorators included


def changed_lines(diff_u0: str) -> set[int]:
    """New-side line numbers a `-U0` diff touches (a pure deletion touches the line after it)."""
    lines: set[int] = set()
    for line in diff_u0.splitlines():
        if match := HUNK.match(line):
            start, count = int(match.group(1)), int(match.group(2) or 1)
            lines.update(range(start, start + count) if count else (start, start + 1))
    return lines


def test_functions(path: str, source: str) -> list[tuple[TestFunction, range]]:
    """Every test function pytest collects by default in one module, with its line range."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    found = []
    text_lines = source.splitlines()

    def add(node: ast.AST, prefix: str) -> None:
        first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        body = "\n".join(text_lines[first - 1:node.end_lineno])
        found.append((TestFunction(f"{path}::{prefix}{node.name}", body), range(first, node.end_lineno + 1)))

    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            add(node, "")
        elif isinstance(node, ast.ClassDef) and _test_class(node):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name.startswith("test"):
                    add(item, f"{node.name}::")
    return found


def _test_class(node: ast.ClassDef) -> bool:
    """A class pytest collects: named Test*, or a unittest TestCase whatever its name."""
    bases = [ast.unparse(b) for b in node.bases]
    return node.name.startswith("Test") or any(b.rsplit(".", 1)[-1].endswith("TestCase") for b in bases)


def touched(path: str, source_after: str, diff_u0: str) -> list[str]:
    """Node ids of the test functions in `source_after` that the diff's changed lines fall in."""
    lines = changed_lines(diff_u0)
    return [f.node_id for f, span in test_functions(path, source_after) if lines.intersection(span)]


def hazards(functions: list[TestFunction]) -> list[str]:
    """Why these tests cannot judge a fix reliably here, if they cannot."""
    reasons = []
    if timed := [f.node_id for f in functions if TIMING.search(f.source)]:
        reasons.append(f"timing-dependent test ({timed[0]} reads or waits on the clock)")
    if metadata := [f.node_id for f in functions if METADATA.search(f.source)]:
        reasons.append(f"reads installed package metadata ({metadata[0]}); the workspace's code is not installed")
    return reasons


def imported_names(source: str) -> set[str]:
    """Names a test module imports with `from x import a, b` (at any depth)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    return {alias.asname or alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
            for alias in node.names if alias.name != "*"}
