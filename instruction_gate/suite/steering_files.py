"""Files that steer what a task's checks execute, as data: which of an agent's changes the suite,
not the agent, decides.

A check runs `pytest`, `make` or a script in the agent's tree, and the tree can redirect it: a
`conftest.py` or an `addopts` line turns failures into passes, a `pytest.py` or `ast.py` beside
the check replaces the module it imports, a `.pyc` without source is imported instead of the fix,
a Makefile target or the repository test the check runs is rewritten. Such paths are matched
here (pure, no git); `run/check_integrity.py` restores them from the run's starting tree.
"""

from __future__ import annotations

import posixpath
import sys
from dataclasses import dataclass
from typing import Iterable

from instruction_gate import globs
from instruction_gate.suite.manifest import Task
from instruction_gate.suite.suite_files import program_file


@dataclass(frozen=True)
class SteeringRule:
    kind: str  #: the record's `kind` (run.json `check_files_changed`)
    globs: tuple[str, ...]  #: root-anchored (globs.py); `**/` makes a name match at any depth


#: The defaults, one row per kind of file. Names match at any depth because test runners look for
#: configuration upward from the files they collect (pytest's rootdir), and any directory can be
#: the one a check runs in.
RULES: tuple[SteeringRule, ...] = (
    # pytest's configuration files (_pytest/config/findpaths.py), its hooks, coverage's plugins.
    SteeringRule("test_config", ("**/conftest.py", "**/pytest.ini", "**/.pytest.ini", "**/pytest.toml",
                                 "**/.pytest.toml", "**/tox.ini", "**/setup.cfg", "**/pyproject.toml",
                                 "**/.coveragerc")),
    # Node: scripts, runner and transpiler configuration, setup files they name by convention,
    # the package manager's settings and runtime, installed packages.
    SteeringRule("test_config", ("**/package.json", "**/jest.config.*", "**/jest.setup.*", "**/vitest.config.*",
                                 "**/vitest.workspace.*", "**/vitest.setup.*", "**/vite.config.*", "**/.mocharc*",
                                 "**/ava.config.*", "**/playwright.config.*", "**/babel.config.*", "**/.babelrc*",
                                 "**/setupTests.*", "**/tsconfig.json", "**/tsconfig.*.json", "**/.swcrc",
                                 "**/.npmrc", "**/.yarnrc", "**/.yarnrc.yml", "**/.pnp.cjs", "**/.pnp.loader.mjs",
                                 "**/.yarn/**", "**/node_modules/**")),
    # Code the interpreter runs at start-up, before any check.
    SteeringRule("interpreter_hook", ("**/sitecustomize.py", "**/usercustomize.py", "**/*.pth")),
    # Compiled code: imported instead of (or without) the source a reviewer can read.
    SteeringRule("compiled", ("**/*.pyc", "**/*.pyo", "**/__pycache__/**", "**/*.so", "**/*.pyd")),
    SteeringRule("build_file", ("**/Makefile", "**/makefile", "**/GNUmakefile", "**/*.mk")),
)

#: Top-level modules a check imports without naming them: the standard library and the test
#: runner with its dependencies. A file of that name on sys.path before them replaces them.
SHADOWED_MODULES: frozenset[str] = frozenset(sys.stdlib_module_names) | {
    "pytest", "_pytest", "pluggy", "py", "iniconfig", "packaging", "exceptiongroup", "tomli",
    "coverage", "pytest_cov", "xdist", "hypothesis", "nose", "nose2", "setuptools", "pkg_resources", "pip",
}

#: Kinds computed from the task rather than the table.
SHADOW_MODULE, CHECK_TARGET = "shadow_module", "check_target"


def table_kind(path: str) -> str | None:
    """The kind of the first table rule `path` matches, if any."""
    return next((rule.kind for rule in RULES if globs.matches_any(path, rule.globs)), None)


def shadow_directory(path: str) -> str | None:
    """The directory `path` would shadow a module from (`X.py` or `X/__init__.py` with X a
    shadowed name), "" for the root; None when it is no such module."""
    directory, name = posixpath.split(path)
    if name.endswith(".py") and name[:-3] in SHADOWED_MODULES:
        return directory
    if name == "__init__.py" and directory:
        parent, package = posixpath.split(directory)
        if package in SHADOWED_MODULES:
            return parent
    return None


@dataclass(frozen=True)
class CheckTargets:
    """What a task's checks name in the repository."""

    paths: frozenset[str]  #: repository paths the argv names (files, or directories covering what is under them)
    exposed: frozenset[str]  #: directories first on sys.path whatever their packages: the cwd, script directories


#: Options whose value is a directory to change into (`make -C dir`, `git -C dir`), not a target:
#: covering it would cover the code the agent is asked to change.
_DIRECTORY_OPTIONS = frozenset({"-C", "--directory"})


def _operands(argv: tuple[str, ...]) -> list[str]:
    """The path part of each operand after the program: `a.py::test_b[1]` → a.py, `-m pkg.mod` →
    the files that module may be. Options are skipped (`--cov=src` measures src, it does not run it)."""
    found, skip = [], False
    for flag, argument in zip(("",) + argv[1:], argv[1:]):
        if skip or argument in _DIRECTORY_OPTIONS:
            skip = not skip and argument in _DIRECTORY_OPTIONS
            continue
        if flag == "-m":
            base = argument.replace(".", "/")
            found += [base + ".py", base + "/__main__.py", base + "/__init__.py"]
        if not argument.startswith("-"):
            found.append(argument.split("::", 1)[0])
    return found


def check_targets(task: Task) -> CheckTargets:
    """Repository paths each check's argv names, resolved against the task's cwd. The cwd and its
    parents never count: they would cover the code the agent is asked to change."""
    cwd = posixpath.normpath(task.cwd)
    parts = cwd.split("/") if cwd != "." else []
    too_wide = {"."} | {"/".join(parts[:i]) for i in range(1, len(parts) + 1)}
    paths: set[str] = set()
    exposed = {"/".join(parts)}
    for argv in task.checks:
        operands = _operands(argv)
        found = program_file(argv)
        if found is not None:
            operands.append(found[1])
            script_dir = posixpath.dirname(posixpath.normpath(posixpath.join(cwd, found[1])))
            exposed.add("" if script_dir == "." else script_dir)
        for operand in operands:
            if not operand or posixpath.isabs(operand):
                continue
            path = posixpath.normpath(posixpath.join(cwd, operand))
            if path not in too_wide and path != ".." and not path.startswith("../"):
                paths.add(path)
    return CheckTargets(frozenset(paths), frozenset(exposed))


def covering(path: str, targets: Iterable[str]) -> list[str]:
    """The targets naming `path`: the path itself or directories above it."""
    return [t for t in targets if path == t or path.startswith(t + "/")]


def classify(changed: Iterable[str], targets: CheckTargets, *, packages: set[str], present_at_start: set[str],
             suite: Iterable[str] = (), allowed: tuple[str, ...] = ()) -> dict[str, str]:
    """Changed path -> kind, for those that steer the checks.

    `packages`: directories with an `__init__.py` in both the starting and the agent's tree (a
    module there is imported as `pkg.types`, never as `types`); `present_at_start`: check targets
    that exist in the starting tree (only those are restored: a new test the task asks for is the
    agent's); `suite`: the hidden suite's paths, laid in over the agent's tree anyway; `allowed`:
    the task's `check_files_allowed` globs, files its solution legitimately changes.
    """
    suite = frozenset(suite)
    spec = globs.compile_globs(allowed) if allowed else None
    found: dict[str, str] = {}
    for path in changed:
        if spec is not None and spec.match_file(path):
            continue
        kind = table_kind(path)
        directory = shadow_directory(path)
        if kind is None and directory is not None and (directory in targets.exposed or directory not in packages):
            kind = SHADOW_MODULE
        if kind is None and path not in suite and set(covering(path, targets.paths)) & present_at_start:
            kind = CHECK_TARGET
        if kind is not None:
            found[path] = kind
    return found
