"""Rule files whose YAML front matter says when an agent loads them, for any agent.

Formats (one reader, told which key holds the patterns):

* GitHub Copilot: `.github/instructions/**/*.instructions.md`, `applyTo: "glob, glob"` (a string
  or a list). The pinned Copilot CLI sends a file without `applyTo`, or with `*`, `**` or `**/*`,
  at start (checked live, `agents/copilot/discovery.py`), though GitHub's documentation says a
  file without `applyTo` is never applied on its own (the lint's IG013 names such files).
* Cursor: `.cursor/rules/**/*.mdc`, `globs` (string or list), `alwaysApply`, `description`:
  always applied, applied when a matching file is in context, offered to the model by its
  description, or only when a user names it.
* Claude Code: `.claude/rules/**/*.md` with `paths:`; loaded when the agent reads a matching file.

API:

* `read_rule(path, data, fmt, base="")` → `ScopedRule` (never raises: front matter that is not
  YAML is read line by line as `key: value` and the rule carries a `problem`, which the lint reports).
* `matches(rule, repo_path)` → whether touching `repo_path` pulls the rule in.
* `body(text)` → the text after the front matter.
* `rules_in(root, folder, parts, suffix, fmt)` → every rule file of one folder's rules directory.

Patterns are matched with `instruction_gate.globs`, `{a,b}` expanded first. A pattern not
anchored with `/` also matches at any depth: the agents' own readings differ (GitHub documents
`*.py` as the root's files, VS Code prefixes `**/`), and impact analysis must not miss a task
that one of them lets see the rule.
"""

from __future__ import annotations

import os
import posixpath
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from instruction_gate import globs
from instruction_gate.untrusted import read_instruction_bytes

#: Format name -> the front-matter key holding the rule's path patterns.
PATTERN_KEYS = {"copilot": "applyTo", "cursor": "globs", "claude": "paths"}
#: Activations, for people: how a rule reaches the model.
ACTIVATIONS = {
    "always": "loaded at start",
    "files": "loaded when the agent touches files matching {patterns}",
    "model": "may be loaded when the model judges it relevant ({description})",
    "manual": "never loaded on its own (only when a user names it)",
}

_FRONT_MATTER = re.compile(r"\A\ufeff?---[ \t]*\r?\n(.*?)(?:\r?\n)?^---[ \t]*(?:\r?\n|\Z)", re.DOTALL | re.MULTILINE)
_MATCH_ALL = frozenset({"*", "**", "**/*", "/**", "/**/*"})
_MAX_EXPANSIONS = 64  # `{a,b}{c,d}...`: a hostile pattern must not explode


@dataclass(frozen=True)
class ScopedRule:
    """One rule file and when it reaches the model."""

    path: str  #: repository-relative POSIX path of the rule file
    fmt: str  #: a key of `PATTERN_KEYS`
    activation: str  #: a key of `ACTIVATIONS`
    patterns: tuple[str, ...] = ()  #: as written, split at top-level commas
    description: str = ""
    #: the directory the patterns are relative to ("" the root; a nested `.cursor/rules`: its folder)
    base: str = ""
    problem: str | None = None  #: why the front matter was not read as YAML (or what in it is not understood)

    @property
    def how(self) -> str:
        """When the agent loads it, in words (`explain`, impact reasons)."""
        shown = ", ".join(f"`{p}`" for p in self.patterns)
        if self.base and self.patterns:
            shown += f" (below `{self.base}/`)"
        return ACTIVATIONS[self.activation].format(patterns=shown, description=self.description[:80] or "no description")


def split_front_matter(text: str) -> tuple[str | None, str]:
    """(front matter text or None, the body after it)."""
    match = _FRONT_MATTER.match(text)
    return (match.group(1), text[match.end():]) if match else (None, text)


def body(text: str) -> str:
    return split_front_matter(text)[1]


def _loose(front: str) -> dict[str, Any]:
    """`key: value` lines, for front matter YAML refuses (Cursor writes `globs: *.ts` unquoted)."""
    fields: dict[str, Any] = {}
    for line in front.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip() and not key.startswith((" ", "\t", "-")):
            value = value.strip().strip("'\"")
            fields[key.strip()] = {"true": True, "false": False}.get(value, value)
    return fields


def _fields(front: str) -> tuple[dict[str, Any], str | None]:
    try:
        loaded = yaml.safe_load(front)
    except yaml.YAMLError as exc:
        where = getattr(exc, "problem_mark", None)
        line = f" (line {where.line + 2})" if where is not None else ""
        return _loose(front), f"front matter is not valid YAML{line}; read line by line as `key: value`"
    if loaded is None:
        return {}, None
    if not isinstance(loaded, dict):
        return {}, "front matter is not a mapping of keys to values"
    return {str(k): v for k, v in loaded.items()}, None


def _split_top(text: str) -> list[str]:
    """Split at commas outside `{}` (`**/*.{ts,tsx}, docs/**` is two patterns)."""
    out, depth, start = [], 0, 0
    for index, char in enumerate(text):
        depth += {"{": 1, "}": -1}.get(char, 0)
        if char == "," and depth <= 0:
            out.append(text[start:index])
            start = index + 1
    out.append(text[start:])
    return [p.strip() for p in out if p.strip()]


def _patterns(value: Any) -> tuple[tuple[str, ...], str | None]:
    if value is None:
        return (), None
    items = value if isinstance(value, list) else [value]
    if not all(isinstance(v, str) for v in items):
        return (), "patterns must be strings"
    return tuple(p for item in items for p in _split_top(item)), None


def _truthy(value: Any) -> tuple[bool, str | None]:
    if isinstance(value, bool) or value is None:
        return bool(value), None
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        # Cursor treats the string "true" as not always-applied (documented by rule validators).
        return False, f"alwaysApply is the string {value!r}, not a boolean: not always applied"
    return False, f"alwaysApply is {value!r}, not a boolean"


def read_rule(path: str, data: bytes | str, fmt: str, base: str = "") -> ScopedRule:
    """The rule in one file of format `fmt` (a key of `PATTERN_KEYS`)."""
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
    front, _ = split_front_matter(text)
    fields, problem = _fields(front) if front is not None else ({}, None)
    patterns, bad = _patterns(fields.get(PATTERN_KEYS[fmt]))
    problem = problem or bad
    description = fields.get("description")
    description = description.strip() if isinstance(description, str) else ""
    always, not_bool = _truthy(fields.get("alwaysApply")) if fmt == "cursor" else (False, None)
    problem = problem or not_bool
    if always or (fmt == "copilot" and all(p in _MATCH_ALL for p in patterns)):
        activation = "always"  # Copilot CLI: no `applyTo`, or one matching every path, loads at start
    elif patterns:
        activation = "files"
    elif fmt == "cursor" and description:
        activation = "model"
    else:
        activation = "manual"
    return ScopedRule(path, fmt, activation, patterns, description, base, problem)


def _expand(pattern: str) -> list[str]:
    """`{a,b}` alternatives spelled out (innermost group first), bounded."""
    found, todo = [], [pattern]
    while todo and len(found) + len(todo) <= _MAX_EXPANSIONS:
        item = todo.pop()
        match = re.search(r"\{([^{}]*)\}", item)
        if match is None:
            found.append(item)
            continue
        todo.extend(item[:match.start()] + alt + item[match.end():] for alt in match.group(1).split(","))
    return found + todo


@lru_cache(maxsize=1024)
def _globs(pattern: str) -> tuple[str, ...]:
    if pattern in _MATCH_ALL:
        return ("**",)
    out: list[str] = []
    for item in _expand(pattern.replace("\\", "/").removeprefix("./")):
        out += [item] if item.startswith(("/", "**/")) else [item, "**/" + item]
    return tuple(out)


def matches(rule: ScopedRule, repo_path: str) -> bool:
    """Whether an agent touching `repo_path` (repository-relative) loads the rule: only rules
    applied by file (`files`); patterns relative to the rule's `base`."""
    if rule.activation != "files":
        return False
    path = repo_path
    if rule.base:
        if not repo_path.startswith(rule.base + "/"):
            return False
        path = repo_path[len(rule.base) + 1:]
    spec = _spec(rule.patterns)
    return spec is not None and spec.match_file(path)


@lru_cache(maxsize=1024)
def _spec(patterns: tuple[str, ...]):
    """The compiled patterns (each a glob of `instruction_gate.globs`), or None when one is refused:
    it matches nothing (the lint names it)."""
    try:
        return globs.compile_globs(tuple(g for p in patterns for g in _globs(p)))
    except ValueError:
        return None


def bad_patterns(rule: ScopedRule) -> list[str]:
    """Patterns the matcher refuses (they match nothing)."""
    bad = []
    for pattern in rule.patterns:
        try:
            globs.compile_globs(_globs(pattern))
        except ValueError:
            bad.append(pattern)
    return bad


def base_of(path: str, marker: str) -> str:
    """The folder a nested rules directory belongs to: `pkg/.cursor/rules/x.mdc` → `pkg`."""
    parts = path.split("/")
    index = parts.index(marker) if marker in parts else 0
    return posixpath.join(*parts[:index]) if index else ""


def blank_front_matter(text: str) -> str:
    """`text` with its front matter blanked (every character but line breaks a space): read as
    Markdown, `key: value` over `---` is a heading, not a rule; lines and offsets stay the file's."""
    front, rest = split_front_matter(text)
    head = text[:len(text) - len(rest)]
    return text if front is None else re.sub(r"[^\r\n]", " ", head) + rest


def rules_in(root: Path, folder: Path, parts: tuple[str, ...], suffix: str, fmt: str) -> list[ScopedRule]:
    """Rule files `folder/<parts>/**/*<suffix>` of a checked-out tree, sorted, read as `fmt`; paths
    relative to `root`, patterns relative to `folder` (symlinked directories are not followed)."""
    found = []
    for current, dirs, files in os.walk(folder.joinpath(*parts)):
        dirs.sort()
        for name in sorted(f for f in files if f.endswith(suffix)):
            path = Path(current) / name
            data = read_instruction_bytes(path)
            if data is not None:
                found.append(read_rule(path.relative_to(root).as_posix(), data, fmt,
                                       folder.relative_to(root).as_posix() if folder != root else ""))
    return found
