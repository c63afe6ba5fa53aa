"""The package layout holds: no import cycles, and the verdict and report layers stay pure.

Every `import` counts, including those inside functions and under TYPE_CHECKING: a deferred
import is still a dependency, and hiding a cycle inside a function only moves where it bites.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

PACKAGE = REPO_ROOT / "instruction_gate"
#: What the pure layers may never reach, directly or through another module.
IMPURE = ("instruction_gate.run", "instruction_gate.suite", "instruction_gate.git", "instruction_gate.proc")


def _module_names() -> dict[str, Path]:
    names = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(REPO_ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        names[name] = path
    return names


MODULES = _module_names()


def _owner(name: str) -> str:
    """The module (or package) of the package that an imported dotted name lives in."""
    while name not in MODULES:
        name = name.rpartition(".")[0]
    return name


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(_owner(a.name) for a in node.names if a.name.startswith("instruction_gate"))
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("instruction_gate"):
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                found.add(full if full in MODULES else _owner(node.module))
    return found


GRAPH = {name: _imports(path) - {name, "instruction_gate"} for name, path in MODULES.items()}


def _reachable(start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for dep in GRAPH.get(todo.pop(), ()):
            if dep not in seen:
                seen.add(dep)
                todo.append(dep)
    return seen


def _cycle_through(start: str) -> list[str] | None:
    """A shortest import path from `start` back to itself, if one exists (breadth first)."""
    paths = {dep: [start, dep] for dep in GRAPH[start]}
    todo = list(paths)
    while todo:
        current = todo.pop(0)
        if current == start:
            return paths[current]
        for dep in GRAPH.get(current, ()):
            if dep not in paths:
                paths[dep] = paths[current] + [dep]
                todo.append(dep)
    return None


def test_the_graph_is_read_from_the_real_package():
    # A walker that found nothing would pass every test below.
    assert "instruction_gate.verdict.comparison" in GRAPH
    assert "instruction_gate.verdict.pairing" in GRAPH["instruction_gate.verdict.hardgates"] or \
        "instruction_gate.verdict.results" in GRAPH["instruction_gate.verdict.hardgates"]
    assert sum(len(deps) for deps in GRAPH.values()) > 200


def test_no_module_imports_itself_back():
    cycles = {" -> ".join(c) for name in GRAPH if (c := _cycle_through(name))}
    assert not cycles, "import cycles:\n" + "\n".join(sorted(cycles))


@pytest.mark.parametrize("layer", ["instruction_gate.verdict", "instruction_gate.report"])
def test_pure_layers_reach_no_git_process_suite_or_run_code(layer):
    offending = {}
    for name in GRAPH:
        if name == layer or name.startswith(layer + "."):
            bad = sorted(dep for dep in _reachable(name)
                         if any(dep == impure or dep.startswith(impure + ".") for impure in IMPURE))
            if bad:
                offending[name] = bad
    assert not offending, offending


def test_every_subpackage_says_what_lives_there_and_what_it_may_import():
    for package in ("suite", "run", "verdict", "report"):
        doc = ast.get_docstring(ast.parse((PACKAGE / package / "__init__.py").read_text(encoding="utf-8")))
        assert doc and "import" in doc, package
