"""The rules of a suite: declarations checked with the manifest, compiled per task before any run.

Top-level `rules` apply to every task; a task's own `rules` are added to them. Rule ids are
unique within a task. Custom modules are read through `read_source`, which the runner backs
with the base commit's objects.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any, Callable

from instruction_gate import globs
from instruction_gate.errors import ConfigError
from instruction_gate.rules import builtin, custom
from instruction_gate.rules.legacy import legacy_rules
from instruction_gate.rules.model import Rule

SourceReader = Callable[[str], str]


def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _declarations(data: dict[str, Any], index: int) -> list[tuple[str, dict[str, Any]]]:
    """(JSON path, declaration) of every rule that applies to task `index`, global rules first."""
    task = data["tasks"][index]
    found = [(f"$.rules[{i}]", d) for i, d in enumerate(_listed(data.get("rules")))]
    return found + [(f"$.tasks[{index}].rules[{j}]", d) for j, d in enumerate(_listed(task.get("rules")))]


def turn_count(task: dict[str, Any]) -> int:
    return 1 + len(_listed(task.get("turns")))


def manifest_problems(data: dict[str, Any], label: str) -> list[str]:
    """Problems of rule declarations the schema cannot see; called with the manifest's own checks."""
    problems: list[str] = []
    instruction_paths = tuple(p for p in _listed(data.get("instruction_paths")) if isinstance(p, str))
    for i, decl in enumerate(_listed(data.get("rules"))):
        if isinstance(decl, dict) and isinstance(decl.get("turn"), int):
            problems.append(f"{label}::$.rules[{i}].turn: a rule for every task cannot name one turn; "
                            "use \"each\" or declare it on the task")
    for index, task in enumerate(_listed(data.get("tasks"))):
        if not isinstance(task, dict):
            continue
        seen: dict[str, str] = {}
        for where, decl in _declarations(data, index):
            if not isinstance(decl, dict) or not isinstance(decl.get("id"), str):
                continue
            if decl["id"] in seen:
                problems.append(f"{label}::{where}.id: duplicate rule id {decl['id']!r} for task "
                                f"{task.get('id')!r} (also {seen[decl['id']]})")
            seen.setdefault(decl["id"], where)
            if decl.get("kind") == "custom":
                found = _module_problems(decl, where, instruction_paths) + builtin.common_problems(decl, where, turn_count(task))
            else:
                found = builtin.declaration_problems(decl, where, turn_count(task))
            problems += [f"{label}::{p}" for p in found if f"{label}::{p}" not in problems]
    return problems


def _module_problems(decl: dict[str, Any], where: str, instruction_paths: tuple[str, ...]) -> list[str]:
    extra = [f"{where}.{key}: not a parameter of kind 'custom' (put it in 'params')"
             for key in decl if key not in (*builtin.COMMON_KEYS, "module", "params")]
    path = decl.get("module")
    if not isinstance(path, str):
        return extra + [f"{where}: kind 'custom' needs 'module'"]
    pure = PurePosixPath(path)
    if pure.is_absolute() or ".." in pure.parts or path.startswith("~"):
        return extra + [f"{where}.module: {path!r} must be a path inside the repository"]
    try:
        candidate_controlled = bool(instruction_paths) and globs.matches_any(path, instruction_paths)
    except ValueError:  # a bad instruction glob is reported by the manifest's own checks
        candidate_controlled = False
    if candidate_controlled:
        return extra + [f"{where}.module: {path!r} matches instruction_paths, which the candidate controls"]
    return extra


def module_paths(data: dict[str, Any]) -> set[str]:
    """Custom rule modules the suite references (hidden from the agent like other suite files)."""
    decls = list(_listed(data.get("rules")))
    for task in _listed(data.get("tasks")):
        decls += _listed(task.get("rules")) if isinstance(task, dict) else []
    return {d["module"] for d in decls if isinstance(d, dict) and d.get("kind") == "custom" and isinstance(d.get("module"), str)}


def compile_rules(data: dict[str, Any], read_source: SourceReader, label: str) -> dict[str, list[Rule]]:
    """Task id -> declared rules (not the reference-format ones); loads and tests custom modules."""
    modules: dict[str, custom.CustomModule] = {}
    problems: list[str] = []
    for path in sorted(module_paths(data)):
        try:
            loaded = custom.load(path, read_source(path))
        except Exception as exc:  # user code: any failure to import is a configuration problem
            problems.append(f"{label}::{path}: cannot load custom rule: {type(exc).__name__}: {exc}")
            continue
        found = custom.module_problems(loaded, label)
        problems += found
        if not found:
            modules[path] = loaded
    if problems:
        raise ConfigError(f"{label}: invalid custom rules ({len(problems)} problem{'s' * (len(problems) > 1)})", problems)
    compiled: dict[str, list[Rule]] = {}
    for index, task in enumerate(data["tasks"]):
        rules: list[Rule] = []
        for _, decl in _declarations(data, index):
            turns = builtin.turns_of(decl, turn_count(task))
            rules += custom.build(decl, modules[decl["module"]], turns) if decl["kind"] == "custom" else \
                builtin.build(decl, turn_count(task))
        compiled[task["id"]] = rules
    return compiled


def all_rules(task: Any, declared: dict[str, list[Rule]]) -> list[Rule]:
    """Every rule a run of `task` is judged by: the reference-format checks, then the declared rules."""
    return legacy_rules(task) + list(declared.get(task.id, []))
