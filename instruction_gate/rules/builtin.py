"""The built-in rule kinds a manifest can declare (`rules`, globally or per task), and their checking.

A declaration is a JSON object: `id`, `kind`, optional `category` (defaults per kind),
`description`, `turn` (a 0-based turn index, or `"each"` for one result per turn) and the kind's
parameters, flat. `schemas/manifest.schema.json` checks types; `declaration_problems` checks
what a schema cannot (required parameters per kind, regexes, globs, categories, encodings).
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from typing import Any, Callable

from instruction_gate import globs
from instruction_gate.rules import output, trajectory
from instruction_gate.rules.model import EvidenceType, Rule, RuleInfo, known_categories

T, D, O = EvidenceType.TRAJECTORY, EvidenceType.DIFFERENTIAL, EvidenceType.OUTPUT
REGEX_PARAMS = ("pattern", "command", "after_command")
GLOB_PARAMS = ("globs", "when_edited", "paths")
COMMON_KEYS = ("id", "kind", "category", "description", "turn")


@dataclass(frozen=True)
class Kind:
    factory: Callable[..., Rule]
    evidence_type: EvidenceType
    category: str
    exact: bool
    required: tuple[str, ...]
    optional: tuple[str, ...] = ()


KINDS: dict[str, Kind] = {
    "command_required": Kind(trajectory.CommandRequired, T, "workflow.tool_usage", True, ("pattern",), ("when_edited",)),
    "command_forbidden": Kind(trajectory.CommandForbidden, T, "workflow.tool_usage", True, ("pattern",)),
    "command_order": Kind(trajectory.CommandOrder, T, "workflow.orchestration", True, ("command",),
                          ("after_command", "require_success", "when_edited")),
    # Reads are recognised from read tools and common shell readers: an approximation.
    "read_before_edit": Kind(trajectory.ReadBeforeEdit, T, "environment.file_operation", False, (), ("globs",)),
    "approval_before": Kind(trajectory.ApprovalBefore, T, "workflow.orchestration", True, (), ("event", "command", "paths")),
    "event_required": Kind(trajectory.EventRequired, T, "workflow.orchestration", True, ("event",), ("when_edited",)),
    "instruction_source_required": Kind(trajectory.InstructionSourceRequired, T, "environment.file_path", True, ("path",),
                                        ("when_edited",)),
    "paths_forbidden": Kind(output.PathsForbidden, D, "environment.file_path", True, ("globs",)),
    "paths_required": Kind(output.PathsRequired, D, "environment.file_operation", True, ("globs",), ("when_edited",)),
    "diff_size": Kind(output.DiffSize, D, "quantity.range", True, (),
                      ("max_files", "max_additions", "max_deletions", "max_changed_lines")),
    "commit_message": Kind(output.CommitMessage, O, "git_commits", True, (), ("pattern", "max_subject_length")),
    "file_encoding": Kind(output.FileEncoding, O, "language.file_encoding", True, (), ("encoding", "allow_bom", "globs")),
    "line_endings": Kind(output.LineEndings, O, "style.layout", True, (), ("style", "globs")),
    "keyword_present": Kind(output.Keyword, O, "content.keyword", True, (),
                            ("keywords", "pattern", "ignore_case", "scope", "globs")),
    "keyword_absent": Kind(output.Keyword, O, "content.keyword", True, (),
                           ("keywords", "pattern", "ignore_case", "scope", "globs")),
}
#: At least one of these must be given for the kind to mean anything.
ONE_OF = {"approval_before": ("command", "paths"), "commit_message": ("pattern", "max_subject_length"),
          "diff_size": ("max_files", "max_additions", "max_deletions", "max_changed_lines"),
          "keyword_present": ("keywords", "pattern"), "keyword_absent": ("keywords", "pattern")}


def declaration_problems(decl: dict[str, Any], where: str, turn_count: int | None) -> list[str]:
    """Problems of one built-in declaration as `where.key: message` (the caller adds the file)."""
    kind = KINDS.get(decl["kind"]) if isinstance(decl.get("kind"), str) else None
    if kind is None:
        return []  # the schema's enum reports it
    name, problems = decl["kind"], []
    for key in kind.required:
        if key not in decl:
            problems.append(f"{where}: kind {name!r} needs {key!r}")
    allowed = set(COMMON_KEYS) | set(kind.required) | set(kind.optional)
    problems += [f"{where}.{key}: not a parameter of kind {name!r}" for key in decl if key not in allowed]
    if name in ONE_OF and not any(k in decl for k in ONE_OF[name]):
        problems.append(f"{where}: kind {name!r} needs one of {', '.join(ONE_OF[name])}")
    for key in REGEX_PARAMS:
        if isinstance(decl.get(key), str) and key in allowed:
            try:
                re.compile(decl[key])
            except re.error as exc:
                problems.append(f"{where}.{key}: invalid regex {decl[key]!r}: {exc}")
    for key in GLOB_PARAMS:
        if isinstance(decl.get(key), list):
            try:
                globs.compile_globs(tuple(decl[key]))
            except ValueError as exc:
                problems.append(f"{where}.{key}: {exc}")
    if isinstance(decl.get("encoding"), str):
        try:
            codecs.lookup(decl["encoding"])
        except LookupError:
            problems.append(f"{where}.encoding: unknown encoding {decl['encoding']!r}")
    problems += common_problems(decl, where, turn_count)
    return problems


def common_problems(decl: dict[str, Any], where: str, turn_count: int | None) -> list[str]:
    problems = []
    if isinstance(decl.get("category"), str) and decl["category"] not in known_categories():
        problems.append(f"{where}.category: unknown category {decl['category']!r}; see the rules section of README.md")
    turn = decl.get("turn")
    if isinstance(turn, int) and turn_count is not None and turn >= turn_count:
        problems.append(f"{where}.turn: turn {turn} does not exist (the task has {turn_count} turn(s), numbered from 0)")
    return problems


def info_for(decl: dict[str, Any], turn: int | None, kind: Kind | None = None, exact: bool | None = None) -> RuleInfo:
    kind = kind or KINDS[decl["kind"]]
    return RuleInfo(id=decl["id"], kind=decl["kind"], category=decl.get("category", kind.category),
                    evidence_type=kind.evidence_type, exact=kind.exact if exact is None else exact,
                    description=decl.get("description", ""), turn=turn)


def turns_of(decl: dict[str, Any], turn_count: int) -> list[int | None]:
    turn = decl.get("turn")
    return list(range(turn_count)) if turn == "each" else [turn]


def build(decl: dict[str, Any], turn_count: int) -> list[Rule]:
    """The rule instances of one checked built-in declaration (several with `turn: "each"`)."""
    kind = KINDS[decl["kind"]]
    params = {k: tuple(v) if isinstance(v, list) else v for k, v in decl.items() if k not in COMMON_KEYS}
    if decl["kind"].startswith("keyword_"):
        params["present"] = decl["kind"] == "keyword_present"
    return [kind.factory(info_for(decl, turn), **params) for turn in turns_of(decl, turn_count)]
