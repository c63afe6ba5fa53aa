"""The matcher of files that steer the checks (suite/steering_files.py), without git."""

from __future__ import annotations

import json

import pytest

from instruction_gate.errors import ConfigError
from instruction_gate.suite import manifest as manifest_module
from instruction_gate.suite.steering_files import CheckTargets, check_targets, classify, shadow_directory, table_kind
from tests.runner.suite import manifest, task


def _task(tmp_path, **fields):
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(manifest([task("t1", **fields)], **fields.pop("top", {}))))
    return manifest_module.load(path).tasks[0]


@pytest.mark.parametrize(("path", "kind"), [
    ("conftest.py", "test_config"), ("a/b/c/conftest.py", "test_config"), ("pytest.ini", "test_config"),
    (".pytest.ini", "test_config"), ("svc/pytest.toml", "test_config"), ("svc/tox.ini", "test_config"),
    ("setup.cfg", "test_config"), ("services/x/pyproject.toml", "test_config"), ("package.json", "test_config"),
    ("web/jest.config.ts", "test_config"), ("vitest.config.mjs", "test_config"), (".mocharc.yml", "test_config"),
    ("babel.config.js", "test_config"), (".npmrc", "test_config"), ("web/node_modules/left-pad/index.js", "test_config"),
    ("sitecustomize.py", "interpreter_hook"), ("lib/evil.pth", "interpreter_hook"),
    ("calc.pyc", "compiled"), ("src/__pycache__/calc.cpython-311.pyc", "compiled"), ("ext/_fast.so", "compiled"),
    ("Makefile", "build_file"), ("svc/makefile", "build_file"), ("GNUmakefile", "build_file"), ("make/rules.mk", "build_file"),
    ("src/app.py", None), ("docs/conftest.md", None), ("Makefile.md", None), ("src/pytest_helpers.py", None),
    ("tests/test_calc.py", None), ("package.json.md", None),
])
def test_the_table_matches_names_at_any_depth(path, kind):
    assert table_kind(path) == kind


@pytest.mark.parametrize(("path", "directory"), [
    ("ast.py", ""), ("tools/types.py", "tools"), ("pkg/types.py", "pkg"), ("json/__init__.py", ""),
    ("lib/pytest/__init__.py", "lib"), ("_pytest.py", ""), ("pluggy.py", ""), ("app.py", None),
    ("pkg/ast_helpers.py", None), ("__init__.py", None),
])
def test_modules_named_like_the_stdlib_or_the_runner_are_found(path, directory):
    assert shadow_directory(path) == directory


def test_a_shadowing_module_counts_only_outside_a_package_or_beside_a_check():
    targets = CheckTargets(frozenset(), frozenset({"", "checks"}))
    changed = ["pkg/types.py", "tools/types.py", "checks/ast.py", "ast.py", "pkg/app.py"]
    found = classify(changed, targets, packages={"pkg", "checks"}, present_at_start=set())
    # checks/ is a package, but `python checks/x.py` puts the directory itself first on sys.path.
    assert found == {"tools/types.py": "shadow_module", "checks/ast.py": "shadow_module", "ast.py": "shadow_module"}


def test_check_targets_from_argv(tmp_path):
    t = _task(tmp_path, checks=[
        ["python", "-m", "pytest", "-q", "tests/unit", "tests/x.py::test_a[1]", "--cov=src", "-p", "no:cacheprovider"],
        ["make", "-C", "services/payments", "test"], ["python", "scripts/check.py"], ["bin/check.sh", "."],
        ["python", "-m", "tools.verify"], ["pytest", "../outside", "/abs/path"]])
    targets = check_targets(t)
    assert {"tests/unit", "tests/x.py", "scripts/check.py", "bin/check.sh", "tools/verify.py",
            "tools/verify/__main__.py", "test"} <= targets.paths
    # The cwd (covering everything) and what a check only measures or changes into are no targets.
    assert not {".", "src", "services/payments", "../outside", "/abs/path"} & targets.paths
    assert targets.exposed == {"", "scripts", "bin"}


def test_check_targets_resolve_against_the_cwd_and_never_cover_it_or_its_parents(tmp_path):
    t = _task(tmp_path, cwd="services/payments", checks=[["python", "-m", "pytest", "tests", ".", ".."]])
    targets = check_targets(t)
    assert "services/payments/tests" in targets.paths
    assert not {"services/payments", "services", "."} & targets.paths
    assert "services/payments" in targets.exposed


def test_check_targets_are_restored_only_when_present_at_the_start_and_not_suite_files(tmp_path):
    # A directory covers what the agent adds under it too (a new test module can exit 0 on import);
    # a file the check names that the task asks the agent to write is the agent's.
    targets = CheckTargets(frozenset({"tests", "spec/test_new.py", "evals/check"}), frozenset({""}))
    changed = ["tests/test_a.py", "tests/sub/test_b.py", "spec/test_new.py", "evals/check/x.py", "src/app.py"]
    found = classify(changed, targets, packages=set(), present_at_start={"tests", "evals/check"},
                     suite={"evals/check/x.py"})
    assert found == {"tests/test_a.py": "check_target", "tests/sub/test_b.py": "check_target"}


def test_allowed_globs_leave_any_kind(tmp_path):
    targets = CheckTargets(frozenset({"tests"}), frozenset({""}))
    changed = ["pyproject.toml", "tests/unit/test_new.py", "tests/conftest.py", "ast.py"]
    found = classify(changed, targets, packages=set(), present_at_start={"tests"},
                     allowed=("pyproject.toml", "tests/**/test_*.py"))
    assert found == {"tests/conftest.py": "test_config", "ast.py": "shadow_module"}


def test_manifest_allowed_globs_are_the_defaults_then_the_tasks_and_checked(tmp_path):
    path = tmp_path / "manifest.json"
    data = manifest([task("t1", check_files_allowed=["tests/unit/test_new.py"])])
    data["defaults"]["check_files_allowed"] = ["pyproject.toml"]
    path.write_text(json.dumps(data))
    assert manifest_module.load(path).tasks[0].check_files_allowed == ("pyproject.toml", "tests/unit/test_new.py")
    data["tasks"][0]["check_files_allowed"] = ["../up", 3]
    path.write_text(json.dumps(data))
    with pytest.raises(ConfigError) as raised:
        manifest_module.load(path)
    problems = "\n".join(raised.value.problems)
    assert "$.tasks[0].check_files_allowed[0]: '../up' must stay inside the repository" in problems
    assert "$.tasks[0].check_files_allowed[1]" in problems


def test_package_markers_above_a_check_target_steer_it_but_not_the_package_under_test():
    from instruction_gate.suite.steering_files import CHECK_PACKAGE, package_markers
    tests, above = package_markers(["src/pkg/tests/test_x.py", "tests/test_y.py"])
    assert tests == {"src/pkg/tests/__init__.py", "tests/__init__.py"}
    assert {"__init__.py", "src/__init__.py", "src/pkg/__init__.py"} <= above
    targets = CheckTargets(frozenset({"src/pkg/tests/test_x.py", "tests/test_y.py"}), frozenset({""}))
    changed = ["tests/__init__.py", "src/pkg/__init__.py", "__init__.py", "src/__init__.py"]
    kinds = classify(changed, targets, packages=set(), present_at_start=set(), added={"__init__.py"})
    # A test directory's marker, and a new one at the root; the package under test's own is the agent's.
    assert kinds == {"tests/__init__.py": CHECK_PACKAGE, "__init__.py": CHECK_PACKAGE}


def test_metadata_and_new_modules_named_like_installed_packages_steer_the_checks():
    targets = CheckTargets(frozenset({"tests"}), frozenset({""}))
    changed = ["x-1.0.dist-info/entry_points.txt", "y.egg-info/PKG-INFO", "pygments/__init__.py", "yaml.py"]
    kinds = classify(changed, targets, packages=set(), present_at_start=set(), added={"pygments/__init__.py"},
                     installed=frozenset({"pygments", "yaml"}))
    # yaml.py existed at the start: the project's own module, not a shadow planted by the agent.
    assert kinds == {"x-1.0.dist-info/entry_points.txt": "package_metadata", "y.egg-info/PKG-INFO": "package_metadata",
                     "pygments/__init__.py": "shadow_module"}
