"""IG001 on names given as forms to fill in, and on tox environments tox builds from factors."""

from __future__ import annotations

import pytest

from instruction_gate.lint import projects
from tests.lint.test_lint_rules import MAKEFILE, NOX, PACKAGE, findings

TOX = ("[tox]\nenvlist =\n    {py3.12,py3.14}-common\n    {py3.13,py3.14}-django-v{4.2,5.1}\n\n"
       "[testenv]\ndeps =\n    django-v4.2: Django~=4.2\n    cov: coverage\ncommands = pytest {posargs:tests}\n")


def _unknown(tmp_path, files: dict[str, str]) -> list[str]:
    return [f.message.split("`")[1] for f in findings(tmp_path, files, "IG001")]


@pytest.mark.parametrize("command", [
    "uv run tox -e <env>", "uv run tox -e py3.14-{integration}-v{version}", "tox -e py3.14-$INTEGRATION",
    "tox -e ENV_NAME", "tox -e py3.13-...", "tox -e py{3.12,3.14}-common",
])
def test_tox_placeholders_are_forms_not_names(tmp_path, command):
    assert _unknown(tmp_path, {"tox.ini": TOX, "AGENTS.md": f"- Run `{command}`.\n"}) == []


@pytest.mark.parametrize(("command", "unknown"), [
    ("tox -e py3.14-common", None),  # listed
    ("tox -e py3.11-common", None),  # a Python factor with a known one: tox 4 runs it
    ("tox -e py3.14-django-cov", None),  # `cov` is a factor of a conditional setting
    ("tox -e py3.14-foo", "py3.14-foo"),  # `foo` is no factor: tox 4 refuses it
    ("tox -e lint-<check>", "lint-<check>"),  # a form no environment has
    ("tox -e py{3.12,3.14}-flask", "py{3.12,3.14}-flask"),
])
def test_tox_environments_built_from_factors(tmp_path, command, unknown):
    found = _unknown(tmp_path, {"tox.ini": TOX, "AGENTS.md": f"- Run `{command}`.\n"})
    assert found == ([unknown] if unknown else [])


@pytest.mark.parametrize("config", [
    ("tox.ini", "[tox]\nenvlist = {[base]envs}\n[base]\nenvs = py3.12-a\n[testenv]\n"),  # a substitution
    ("tox.toml", 'env_list = [{ product = [["py3.12"], ["a", "b"]] }]\n'),  # a generated list
])
def test_tox_lists_filled_in_at_run_time_are_not_guessed(tmp_path, config):
    assert _unknown(tmp_path, {config[0]: config[1], "AGENTS.md": "- Run `tox -e py3.14-zzz`.\n"}) == []


def test_placeholders_in_make_npm_and_nox_names(tmp_path):
    files = {"Makefile": MAKEFILE + "test-unit:\n\tpytest\n", "package.json": PACKAGE, "noxfile.py": NOX,
             "AGENTS.md": ("- `make test-<suite>`, `make <target>`, `npm run $SCRIPT`, `nox -s tests-{python}`.\n"
                           "- `make docs-<page>`, `npm run deploy:<env>`, `nox -s bench-<n>`.\n")}
    assert _unknown(tmp_path, files) == ["docs-<page>", "deploy:<env>", "bench-<n>"]


def test_conditional_factors_and_env_list_key_are_read():
    known = projects.tox_envs("[tox]\nenv_list = lint\n[testenv]\ndeps =\n    py312-!cov: x\n    {a,b}: y\n")
    assert {"lint", "py312-cov", "a", "b"} <= known
    assert projects.tox_env_exists("lint-a", known) and not projects.tox_env_exists("lint-c", known)


def test_a_shell_assignment_leaves_the_makefiles_targets_checkable():
    from instruction_gate.lint.projects import make_targets
    assert make_targets("X = $(shell echo)\ntest:\n\techo\n") == frozenset({"test"})
    assert make_targets("VERSION := $(shell git describe)\nall:\n") == frozenset({"all"})
    assert make_targets("$(BINS): main.c\n\tcc\n") is None  # targets named by a variable: unknowable
