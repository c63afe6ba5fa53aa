"""Parse -> validate -> build the suite manifest (JSON or YAML).

Schema problems and semantic problems are collected together and reported at once as
`manifest.json::$.tasks[3].checks: message`; any problem means nothing is evaluated.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from instruction_gate import globs, records
from instruction_gate.errors import ConfigError
from instruction_gate.rules.suite import manifest_problems as rule_problems
from instruction_gate.suite import check_settings
from instruction_gate.schemas import schema_problems

#: Used when neither the task nor `defaults` sets a limit.
BUILTIN_DEFAULTS: dict[str, Any] = {
    "timeout_seconds": 900,
    "max_tool_calls": None,
    "max_provider_cost_usd": None,
    "check_timeout_seconds": 300,
    "forbidden_globs": [],
}
#: A manifest larger than this is refused (suites are kilobytes).
MAX_MANIFEST_BYTES = 16 * 1024 * 1024
LIMIT_KEYS = ("timeout_seconds", "max_tool_calls", "max_provider_cost_usd", "check_timeout_seconds")


@dataclass(frozen=True)
class Task:
    """One task with its limits resolved (task value, else `defaults`, else built-in)."""

    id: str
    kind: str
    cwd: str
    prompt_files: tuple[str, ...]  #: first turn, then `turns`
    checks: tuple[tuple[str, ...], ...]
    fixture_patch: str | None
    reference_solution: str | None
    required_command_patterns: tuple[str, ...]
    forbidden_command_patterns: tuple[str, ...]
    forbidden_globs: tuple[str, ...]  #: defaults' globs plus the task's own
    required_events: tuple[str, ...]
    required_instruction_sources: tuple[str, ...]
    timeout_seconds: float
    max_tool_calls: int | None
    max_provider_cost_usd: float | None
    check_timeout_seconds: float
    raw: dict[str, Any] = field(repr=False, compare=False, default_factory=dict)
    #: the checks' variables: defaults' `check_env`, overridden by the task's (suite/check_settings.py)
    check_env: tuple[tuple[str, str], ...] = ()
    check_path: tuple[str, ...] = ()  #: the task's `check_path`, then the defaults'
    checks_pass_at_start: bool = False  #: negative controls: checks pass before any change
    check_network: bool = False  #: the checks' sandbox shares the host's network (else loopback only)
    reference_artifacts: str | None = None  #: files commands leave behind; task validation only
    #: files the solution may change although they steer the checks (defaults' globs plus the
    #: task's); run/check_integrity.py leaves them as the agent left them
    check_files_allowed: tuple[str, ...] = ()
    #: (repository path, suite file) pairs laid over the agent's tree before every check
    hidden_tests: tuple[tuple[str, str], ...] = ()

    def suite_files(self) -> list[str]:
        """Repository files the task itself references (hidden from the agent)."""
        return [p for p in (*self.prompt_files, self.fixture_patch, self.reference_solution,
                            self.reference_artifacts, *(source for _, source in self.hidden_tests)) if p]


@dataclass(frozen=True)
class Manifest:
    path: Path
    sha256: str
    repeats: int
    instruction_paths: tuple[str, ...]
    hidden_paths: tuple[str, ...]
    tasks: tuple[Task, ...]
    raw: dict[str, Any] = field(repr=False, compare=False, default_factory=dict)

    def task(self, task_id: str) -> Task:
        return next(t for t in self.tasks if t.id == task_id)


def parse(path: Path) -> tuple[Any, bytes]:
    label = str(path)
    if not path.exists():
        where = f"looked for {path.resolve()}"
        if not path.is_absolute():
            where += f"; a relative --manifest is resolved against the current directory {Path.cwd()}, not against --repo"
        raise ConfigError(f"{label}: cannot read manifest (No such file or directory; {where})")
    data = records.read_capped(path, MAX_MANIFEST_BYTES)  # a regular file only, capped
    try:
        if path.suffix in (".yaml", ".yml"):
            loaded = yaml.safe_load(data)
            _json_shaped(loaded)
            return loaded, data
        return records.loads(data.decode("utf-8")), data
    except (ValueError, yaml.YAMLError, RecursionError) as exc:  # JSON, UTF-8 and cycle errors are ValueErrors
        raise ConfigError(f"{label}::$: not valid {'YAML' if path.suffix in ('.yaml', '.yml') else 'JSON'}: {exc}") from None


#: Nodes a YAML manifest may expand to through anchors and aliases (a suite has hundreds).
MAX_YAML_NODES = 200_000


def _json_shaped(data: Any) -> None:
    """Refuse what YAML anchors can build and JSON cannot: a cycle (`&a [*a]`), or an alias
    bomb that expands a few kilobytes into billions of nodes for every later walk."""
    budget, stack = MAX_YAML_NODES, [data]
    while stack:  # a cycle expands without end, so the budget catches it too
        node = stack.pop()
        budget -= 1
        if budget < 0:
            raise ValueError(f"more than {MAX_YAML_NODES} values once aliases are expanded (or an alias cycle)")
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


def _unsafe_path(value: str) -> str | None:
    p = PurePosixPath(value)
    if p.is_absolute() or value.startswith("~"):
        return "must be relative to the repository root"
    if ".." in p.parts:
        return "must stay inside the repository (no '..')"
    return None


def _strings(values: Any) -> list[tuple[int, str]]:
    """(index, item) for the string items of a list; anything else is the schema's to report."""
    return [(i, v) for i, v in enumerate(values) if isinstance(v, str)] if isinstance(values, list) else []


def semantic_problems(data: dict[str, Any], label: str) -> list[str]:
    """Problems the schema cannot express: duplicates, unsafe paths, bad regexes and globs."""
    problems: list[str] = []

    def check_path(value: Any, where: str) -> None:
        if isinstance(value, str) and (why := _unsafe_path(value)):
            problems.append(f"{label}::{where}: {value!r} {why}")

    def check_globs(values: Any, where: str) -> None:
        for i, pattern in _strings(values):
            check_path(pattern, f"{where}[{i}]")
            try:
                globs.compile_globs((pattern,))
            except ValueError as exc:
                problems.append(f"{label}::{where}[{i}]: {exc}")

    check_globs(data.get("instruction_paths"), "$.instruction_paths")
    check_globs(data.get("hidden_paths"), "$.hidden_paths")
    defaults = data.get("defaults")
    check_globs(defaults.get("forbidden_globs") if isinstance(defaults, dict) else None, "$.defaults.forbidden_globs")
    check_globs(defaults.get("check_files_allowed") if isinstance(defaults, dict) else None,
                "$.defaults.check_files_allowed")
    problems += check_settings.problems(defaults, "$.defaults", label)
    seen: dict[str, int] = {}
    tasks = data.get("tasks")
    for i, task in enumerate(tasks if isinstance(tasks, list) else []):
        where = f"$.tasks[{i}]"
        if not isinstance(task, dict):
            continue  # a schema problem, reported as such
        task_id = task.get("id")
        if isinstance(task_id, str) and task_id in seen:
            problems.append(f"{label}::{where}.id: duplicate task id {task_id!r} (also $.tasks[{seen[task_id]}])")
        if isinstance(task_id, str):
            seen.setdefault(task_id, i)
        for key in ("cwd", "prompt_file", "fixture_patch", "reference_solution", "reference_artifacts"):
            check_path(task.get(key), f"{where}.{key}")
        for j, turn in _strings(task.get("turns")):
            check_path(turn, f"{where}.turns[{j}]")
        hidden_tests = task.get("hidden_tests")
        for target, source in hidden_tests.items() if isinstance(hidden_tests, dict) else ():
            check_path(target, f"{where}.hidden_tests")
            check_path(source, f"{where}.hidden_tests[{target!r}]")
        check_globs(task.get("forbidden_globs"), f"{where}.forbidden_globs")
        check_globs(task.get("check_files_allowed"), f"{where}.check_files_allowed")
        problems += check_settings.problems(task, where, label)
        for key in ("required_command_patterns", "forbidden_command_patterns"):
            for j, pattern in _strings(task.get(key)):
                try:
                    re.compile(pattern)
                except re.error as exc:
                    problems.append(f"{label}::{where}.{key}[{j}]: invalid regex {pattern!r}: {exc}")
    return problems + rule_problems(data, label)


def _build_task(raw: dict[str, Any], defaults: dict[str, Any]) -> Task:
    limits = {k: raw.get(k, defaults.get(k, BUILTIN_DEFAULTS[k])) for k in LIMIT_KEYS}
    return Task(
        id=raw["id"], kind=raw["kind"], cwd=str(PurePosixPath(raw.get("cwd") or ".")),
        prompt_files=(raw["prompt_file"], *raw.get("turns", [])),
        checks=tuple(tuple(argv) for argv in raw["checks"]),
        fixture_patch=raw.get("fixture_patch"), reference_solution=raw.get("reference_solution"),
        required_command_patterns=tuple(raw.get("required_command_patterns", [])),
        forbidden_command_patterns=tuple(raw.get("forbidden_command_patterns", [])),
        forbidden_globs=tuple(defaults.get("forbidden_globs", [])) + tuple(raw.get("forbidden_globs", [])),
        required_events=tuple(raw.get("required_events", [])),
        required_instruction_sources=tuple(raw.get("required_instruction_sources", [])),
        raw=raw, **limits,
        check_env=tuple({**defaults.get("check_env", {}), **raw.get("check_env", {})}.items()),
        check_path=tuple(raw.get("check_path", [])) + tuple(defaults.get("check_path", [])),
        checks_pass_at_start=bool(raw.get("checks_pass_at_start", False)),
        check_network=bool(raw.get("check_network", defaults.get("check_network", False))),
        reference_artifacts=raw.get("reference_artifacts"),
        check_files_allowed=tuple(defaults.get("check_files_allowed", [])) + tuple(raw.get("check_files_allowed", [])),
        hidden_tests=tuple(sorted(raw.get("hidden_tests", {}).items())),
    )


def load(path: Path, label: str | None = None) -> Manifest:
    """Load and validate a manifest file; raise ConfigError listing every problem."""
    label = label or str(path)
    data, content = parse(path)
    problems = schema_problems("manifest", data, label)
    if isinstance(data, dict):
        problems += semantic_problems(data, label)
    if problems:
        raise ConfigError(f"{label}: invalid manifest ({len(problems)} problem{'s' * (len(problems) > 1)})", problems)
    defaults = data.get("defaults") or {}
    return Manifest(
        path=path, sha256=hashlib.sha256(content).hexdigest(), repeats=data["repeats"],
        instruction_paths=tuple(data["instruction_paths"]), hidden_paths=tuple(data.get("hidden_paths", [])),
        tasks=tuple(_build_task(t, defaults) for t in data["tasks"]), raw=data,
    )
