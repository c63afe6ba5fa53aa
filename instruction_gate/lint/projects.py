"""What a repository's task runners define: make targets, npm scripts, tox envs, nox sessions.

Everything is parsed as text or syntax tree; nothing from the repository is executed.
Each reader returns the defined names, or None when they cannot be known statically
(generated targets, included makefiles, ...), in which case no finding is made.
"""

from __future__ import annotations

import ast
import configparser
import json
import re
import tomllib
from itertools import product

_MAKE_RULE = re.compile(r"^((?:[^\s:=#\\]|\\.)(?:[^:=#\\]|\\.)*?)\s*::?(?!=)")  # `\:` escapes a colon
_MAKE_DYNAMIC = re.compile(r"^\s*-?(include|sinclude)\s|^%:|^[^\t#]*\$[({]\w*[^:]*:", re.MULTILINE)
_BRACES = re.compile(r"\{([^{}]*)\}")
#: tox creates these environments on demand from a plain [testenv].
_TOX_IMPLICIT = re.compile(r"^(py|pypy)\d*(\.\d+)?$")

MAKEFILE_NAMES = ("GNUmakefile", "makefile", "Makefile")


def make_targets(text: str) -> frozenset[str] | None:
    if _MAKE_DYNAMIC.search(text):
        return None
    targets = set()
    for line in text.splitlines():
        if line.startswith("\t"):
            continue
        match = _MAKE_RULE.match(line)
        if match and not match.group(1).startswith("."):
            targets.update(name.replace("\\:", ":") for name in match.group(1).split())
    return frozenset(targets)


def npm_scripts(text: str) -> frozenset[str] | None:
    try:
        scripts = json.loads(text).get("scripts", {})
    except (json.JSONDecodeError, AttributeError):
        return None
    return frozenset(scripts) if isinstance(scripts, dict) else None


def expand_braces(name: str) -> list[str]:
    """tox generative names: `py{311,312}-lint` -> py311-lint, py312-lint."""
    parts = _BRACES.split(name)
    choices = [[p] if i % 2 == 0 else [c.strip() for c in p.split(",")] for i, p in enumerate(parts)]
    return ["".join(combo) for combo in product(*choices)]


def tox_envs(text: str, toml: bool = False) -> frozenset[str] | None:
    """Environments of tox.ini (or, with `toml`, tox.toml / pyproject's [tool.tox])."""
    names: set[str] = set()
    if toml:
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError:
            return None
        config = data.get("tool", {}).get("tox", data)
        if "legacy_tox_ini" in config:
            return tox_envs(config["legacy_tox_ini"])
        names.update(config.get("env", {}))
        names.update(config.get("env_list", []))
        return frozenset(names | {"py"})
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return None
    for section in parser.sections():
        if section.startswith("testenv:"):
            names.update(expand_braces(section.split(":", 1)[1]))
    if parser.has_option("tox", "envlist"):
        for item in re.split(r"[\s,]+(?![^{]*\})", parser.get("tox", "envlist")):
            names.update(expand_braces(item.strip()) if item.strip() else [])
    if parser.has_section("testenv"):
        names.add("py")
    return frozenset(names)


def tox_env_exists(env: str, known: frozenset[str]) -> bool:
    return env in known or ("py" in known and bool(_TOX_IMPLICIT.match(env)))


def nox_sessions(text: str) -> frozenset[str] | None:
    try:
        module = ast.parse(text)
    except SyntaxError:
        return None
    names = set()
    for node in ast.walk(module):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for decorator in node.decorator_list:
            call = decorator if isinstance(decorator, ast.Call) else None
            target = call.func if call else decorator
            label = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
            if label != "session":
                continue
            custom = [k.value.value for k in (call.keywords if call else [])
                      if k.arg == "name" and isinstance(k.value, ast.Constant)]
            names.add(custom[0] if custom else node.name)
    return frozenset(names)


def nox_session_exists(session: str, known: frozenset[str]) -> bool:
    """`tests-3.12` and `tests(django='4')` are parametrized runs of session `tests`."""
    base = re.split(r"[-(]", session, maxsplit=1)[0]
    return session in known or base in known
