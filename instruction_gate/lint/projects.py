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
from functools import lru_cache
from itertools import product

from instruction_gate.lint import placeholders

_MAKE_RULE = re.compile(r"^((?:[^\s:=#\\]|\\.)(?:[^:=#\\]|\\.)*?)\s*::?(?!=)")  # `\:` escapes a colon
#: Makefiles whose targets a reader cannot list: includes, pattern rules, targets named by a variable
#: (`$(BINS): …`, on one line; a `X = $(shell …)` assignment names no target and keeps the file checkable).
_MAKE_DYNAMIC = re.compile(r"^\s*-?(include|sinclude)\s|^%:|^[^\t#\n]*\$[({]\w*[^:\n]*:(?!=)", re.MULTILINE)
_BRACES = re.compile(r"\{([^{}]*)\}")

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


def defined(name: str, known: frozenset[str]) -> bool:
    """A make target or npm script: defined, or a placeholder form some defined name fits;
    `{a,b}` alternatives must each be defined."""
    return all(placeholders.fits(form, known) for form in expand_braces(placeholders.mask(name)))


@lru_cache(maxsize=16)  # one parse per configuration, however many references name it
def tox_envs(text: str, toml: bool = False) -> frozenset[str] | None:
    """Environments of tox.ini (or, with `toml`, tox.toml / pyproject's [tool.tox]), and the factor
    combinations its conditional settings name (`django42: Django~=4.2`), which tox also accepts."""
    names: set[str] = set()
    if toml:
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError:
            return None
        config = data.get("tool", {}).get("tox", data)
        if "legacy_tox_ini" in config:
            return tox_envs(config["legacy_tox_ini"])
        env_list = config.get("env_list", [])
        if not isinstance(env_list, list) or not all(isinstance(n, str) for n in env_list):
            return None  # a generated list (`{ product = ... }`): not enumerated here
        names.update(config.get("env", {}))
        names.update(env_list)
        return frozenset(names | {"py"})
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return None
    for section in parser.sections():
        if section.startswith("testenv:"):
            names.update(expand_braces(section.split(":", 1)[1]))
        if section == "testenv" or section.startswith("testenv:"):
            names.update(_conditions(parser[section].values()))
    for key in ("envlist", "env_list"):
        listed = parser.get("tox", key, fallback="")
        if _SUBSTITUTION.search(listed):
            return None  # `{[base]envs}`, `{env:ENVS}`: filled in only when tox runs
        for item in re.split(r"[\s,]+(?![^{]*\})", listed):
            names.update(expand_braces(item.strip()) if item.strip() else [])
    if parser.has_section("testenv"):
        names.add("py")
    return frozenset(names)


#: A conditional setting line, `py311-django{41,42}, !cov: value`: the factor expression before the colon.
_CONDITION = re.compile(r"^[ \t]*([\w.!{}, \t-]+?):[ \t]", re.MULTILINE)
_SUBSTITUTION = re.compile(r"\{[^{}]*[:\[][^{}]*\}")


def _conditions(values) -> set[str]:
    found: set[str] = set()
    for value in values:
        for match in _CONDITION.finditer(value or ""):
            for alternative in re.split(r",(?![^{]*\})", match.group(1)):
                found.update(expand_braces(alternative.strip().replace("!", "")))  # `!cov`: not cov
    return {name for name in found if name}


def tox_env_exists(env: str, known: frozenset[str]) -> bool:
    """tox 4 runs an environment the configuration names, or one whose every `-` factor is a factor
    of a named one or a Python version (`py3.14`, `pypy310`, `3.12`); placeholders fit any factor."""
    factors = {factor for name in known for factor in name.split("-")}
    return all(placeholders.fits(form, known) or all(
        _PYTHON_FACTOR.fullmatch(f) or placeholders.only_holes(f) or placeholders.fits(f, factors)
        for f in form.split("-")) for form in expand_braces(placeholders.mask(env)))


#: The factors tox 4 accepts with no configuration: a Python (`py312`, `py3.14t`, `pypy3.10`, `3.12`)
#: or a pre-release (`rc.1`).
_PYTHON_FACTOR = re.compile(r"(?:pypy|py|cython)?(?:(?:\d+|\d\.\d+(?:\.\d+)?)t?)?|alpha|beta|rc\.\d+")


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
    masked = placeholders.mask(session)
    return placeholders.fits(masked, known) or placeholders.fits(re.split(r"[-(]", masked, maxsplit=1)[0], known)
