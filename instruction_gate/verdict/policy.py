"""policy.json: validated against `schemas/policy.schema.json`, defaults filled from the schema."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from instruction_gate.errors import ConfigError
from instruction_gate.records import read_json_record
from instruction_gate.schemas import load_schema, schema_problems

#: Hard-failure category -> the group flag of policy.hard that governs it.
CATEGORY_FLAGS: dict[str, str] = {
    "agent_not_completed": "fail_on_agent_not_completed",
    "tool_call_count_unavailable": "fail_on_missing_telemetry",
    "provider_cost_unavailable": "fail_on_missing_telemetry",
    "tool_call_cap_exceeded": "fail_on_cap_exceeded",
    "provider_cost_cap_exceeded": "fail_on_cap_exceeded",
    "patch_did_not_apply": "fail_on_patch_not_applied",
    "required_check_failed": "fail_on_required_check",
    "forbidden_file_edited": "fail_on_forbidden_edit",
    "check_files_changed": "fail_on_check_files_changed",
    "required_command_missing": "fail_on_policy_violation",
    "forbidden_command_observed": "fail_on_policy_violation",
    "required_policy_event_missing": "fail_on_policy_violation",
    "instruction_source_missing": "fail_on_policy_violation",
}


def _defaults(section: str) -> dict[str, Any]:
    properties = load_schema("policy")["properties"][section]["properties"]
    ratio_default = load_schema("policy")["$defs"]["ratio_bound"]["default"]
    return {key: spec.get("default", ratio_default) for key, spec in properties.items()}


@dataclass(frozen=True)
class Policy:
    """A validated policy with every default filled in (sections as plain dicts)."""

    hard: dict[str, Any]
    soft: dict[str, Any]
    statistics: dict[str, Any]
    source: str  #: file name, for messages
    sequential: dict[str, Any] | None = None  #: opt-in sequential repeats (evaluate), None: fixed design
    budget: dict[str, Any] = field(default_factory=dict)  #: max_agent_runs, max_provider_usd (evaluate)
    contract: dict[str, Any] = field(default_factory=lambda: _defaults("contract"))  #: mixed_changes (validate, evaluate)
    limits: dict[str, Any] = field(default_factory=dict)  #: output limits per agent run (evaluate)
    #: min_resolved_tasks, min_resolved_share, warn_resolved_share, environment signatures (check_health)
    evidence: dict[str, Any] = field(default_factory=lambda: _defaults("evidence"))
    #: impact analysis: mode (skip | run), discovery, when_no_task_affected (see `impact_settings`)
    impact: dict[str, Any] = field(default_factory=lambda: impact_settings(None))
    blame: dict[str, Any] = field(default_factory=dict)  #: enabled, max_agent_runs, repeats (blame)
    #: changed files that steer the checks: "restore" them before the checks, or "fail" the run (evaluate)
    check_files: str = "restore"

    def blocks_category(self, category: str) -> bool:
        """Whether a candidate regression in `category` blocks the pull request."""
        override = self.hard["categories"].get(category)
        if override is not None:
            return bool(override)
        flag = CATEGORY_FLAGS.get(category, "fail_on_unknown_category")
        return bool(self.hard[flag])

    def reproductions_needed(self, category: str) -> int:
        """Repeats of one task in which a candidate regression must show before it blocks."""
        return int(self.hard["min_reproductions_by_category"].get(category, self.hard["min_reproductions"]))

    @property
    def confidence(self) -> float:
        return float(self.statistics["confidence_level"])


def impact_settings(value: Any) -> dict[str, Any]:
    """The `impact` setting with defaults filled; the string form is shorthand for its mode."""
    object_form = load_schema("policy")["properties"]["impact"]["anyOf"][1]["properties"]
    settings = {key: spec["default"] for key, spec in object_form.items()}
    if isinstance(value, str):
        settings["mode"] = value
    elif isinstance(value, dict):
        settings.update(value)
    return settings


def policy_from_dict(data: Any, label: str = "policy.json") -> Policy:
    problems = schema_problems("policy", data, label)
    impact = data.get("impact") if isinstance(data, dict) else None
    if impact is not None and not isinstance(impact, dict) and impact not in ("skip", "run"):
        # anyOf's own message ("not valid under any of the given schemas") does not say what is.
        problems = [p for p in problems if not p.startswith(f"{label}::$.impact:")]
        problems.append(f"{label}::$.impact: {impact!r} is not 'skip', 'run' or an object "
                        "{mode, discovery, when_no_task_affected}")
    if problems:
        raise ConfigError(f"{label}: invalid policy", problems)
    sections = {}
    for name in ("hard", "soft", "statistics", "contract", "evidence"):
        defaults, given = _defaults(name), data.get(name, {})
        sections[name] = {**defaults, **given}
        for key, default in defaults.items():  # objects of keyed settings: keys not given keep their defaults
            if isinstance(default, dict) and isinstance(given.get(key), dict):
                sections[name][key] = {**default, **given[key]}
    sections["hard"]["categories"] = dict(sections["hard"].get("categories") or {})
    bad = [f"{label}::$.evidence.environment_signatures[{i}].pattern: not a valid regular expression ({exc})"
           for i, exc in _regex_errors(sections["evidence"]["environment_signatures"])]
    if bad:
        raise ConfigError(f"{label}: invalid policy", bad)
    return Policy(sections["hard"], sections["soft"], sections["statistics"], label,
                  data.get("sequential"), data.get("budget") or {}, sections["contract"], data.get("limits") or {},
                  sections["evidence"], impact_settings(data.get("impact")),
                  {**_defaults("blame"), **data.get("blame", {})},
                  data.get("check_files", load_schema("policy")["properties"]["check_files"]["default"]))


def _regex_errors(items: list[dict[str, str]]) -> list[tuple[int, re.error]]:
    found = []
    for position, item in enumerate(items):
        try:
            re.compile(item["pattern"])
        except re.error as exc:
            found.append((position, exc))
    return found


def load_policy(path: Path) -> Policy:
    if not path.exists():
        raise ConfigError(f"{path}: no such policy file")
    if path.is_dir():
        raise ConfigError(f"{path}: is a directory, expected policy.json")
    return policy_from_dict(read_json_record(path), str(path))
