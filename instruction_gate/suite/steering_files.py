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
    # How git writes the captured tree out for the checks: `ident`, `eol` or an encoding make the
    # files the checks run differ from the patch a reviewer reads.
    SteeringRule("git_attributes", ("**/.gitattributes",)),
    # Installed-package metadata on sys.path: a `[pytest11]` entry point in a planted
    # `.dist-info` loads a plugin into every pytest run; `.egg-link` points an import elsewhere.
    SteeringRule("package_metadata", ("**/*.dist-info/**", "**/*.egg-info/**", "**/*.egg-link")),
)

#: Top-level modules a check imports without naming them: the standard library and the test
#: runner with its dependencies. A file of that name on sys.path before them replaces them.
SHADOWED_MODULES: frozenset[str] = frozenset(sys.stdlib_module_names) | {
    "pytest", "_pytest", "pluggy", "py", "iniconfig", "packaging", "exceptiongroup", "tomli",
    "coverage", "pytest_cov", "xdist", "hypothesis", "nose", "nose2", "setuptools", "pkg_resources", "pip",
}

#: Kinds computed from the task rather than the table.
SHADOW_MODULE, CHECK_TARGET, CHECK_PACKAGE = "shadow_module", "check_target", "check_package"


def package_markers(targets: Iterable[str]) -> tuple[frozenset[str], frozenset[str]]:
    """The `__init__.py` files pytest imports above the tests a check names: (those in test
    directories — a directory named like tests, from the target up to the highest one — and
    those in any directory above a target). pytest imports a test file's package chain, so an
    `__init__.py` there runs before any test; a package under test (`src/pkg/__init__.py` above
    `src/pkg/tests/`) is the agent's to change, so only test directories' markers are restored
    when changed, while a marker *added* anywhere above a target is (a new package root)."""
    tests, above = set(), set()
    for target in targets:
        parts = target.split("/")[:-1] if "." in target.rsplit("/", 1)[-1] else target.split("/")
        for depth in range(len(parts) + 1):
            directory = "/".join(parts[:depth])
            above.add(posixpath.join(directory, "__init__.py"))
        highest = next((i for i, part in enumerate(parts) if "test" in part.lower()), None)
        if highest is not None:
            tests.update(posixpath.join("/".join(parts[:i + 1]), "__init__.py") for i in range(highest, len(parts)))
    return frozenset(tests), frozenset(above)


def table_kind(path: str) -> str | None:
    """The kind of the first table rule `path` matches, if any."""
    return next((rule.kind for rule in RULES if globs.matches_any(path, rule.globs)), None)


def module_name(path: str) -> tuple[str, str] | None:
    """(directory, top-level name) of `X.py` or `X/__init__.py`; None for other files."""
    directory, name = posixpath.split(path)
    if name.endswith(".py") and name != "__init__.py":
        return directory, name[:-3]
    if name == "__init__.py" and directory:
        parent, package = posixpath.split(directory)
        return parent, package
    return None


def shadow_directory(path: str, installed: frozenset[str] = frozenset()) -> str | None:
    """The directory `path` would shadow a module from (`X.py` or `X/__init__.py` with X a
    shadowed name, or one of `installed`), "" for the root; None when it is no such module."""
    found = module_name(path)
    if found is not None and (found[1] in SHADOWED_MODULES or found[1] in installed):
        return found[0]
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
             suite: Iterable[str] = (), allowed: tuple[str, ...] = (), added: Iterable[str] = (),
             installed: frozenset[str] = frozenset()) -> dict[str, str]:
    """Changed path -> kind, for those that steer the checks.

    `packages`: directories with an `__init__.py` in both the starting and the agent's tree (a
    module there is imported as `pkg.types`, never as `types`); `present_at_start`: check targets
    that exist in the starting tree (only those are restored: a new test the task asks for is the
    agent's); `suite`: the hidden suite's paths, laid in over the agent's tree anyway; `allowed`:
    the task's `check_files_allowed` globs, files its solution legitimately changes; `added`: the
    changed paths absent from the starting tree; `installed`: top-level modules installed where
    the checks import from (a new module of such a name shadows the package; an existing one is
    the project's own).
    """
    suite, added = frozenset(suite), frozenset(added)
    test_markers, markers_above = package_markers(targets.paths)
    spec = globs.compile_globs(allowed) if allowed else None
    found: dict[str, str] = {}
    for path in changed:
        if spec is not None and spec.match_file(path):
            continue
        kind = table_kind(path)
        directory = shadow_directory(path, installed if path in added else frozenset())
        if kind is None and directory is not None and (directory in targets.exposed or directory not in packages):
            kind = SHADOW_MODULE
        if kind is None and path not in suite and set(covering(path, targets.paths)) & present_at_start:
            kind = CHECK_TARGET
        if kind is None and path not in suite and (path in test_markers or (path in added and path in markers_above)):
            kind = CHECK_PACKAGE
        if kind is not None:
            found[path] = kind
    return found
