"""policy.json: validated against `schemas/policy.schema.json`, defaults filled from the schema."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from instruction_gate.errors import ConfigError
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
    blame: dict[str, Any] = field(default_factory=dict)  #: enabled, max_agent_runs, repeats (blame)

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


def policy_from_dict(data: Any, label: str = "policy.json") -> Policy:
    problems = schema_problems("policy", data, label)
    if problems:
        raise ConfigError(f"{label}: invalid policy", problems)
    sections = {}
    for name in ("hard", "soft", "statistics"):
        sections[name] = {**_defaults(name), **data.get(name, {})}
    sections["hard"]["categories"] = dict(sections["hard"].get("categories") or {})
    return Policy(sections["hard"], sections["soft"], sections["statistics"], label,
                  data.get("sequential"), data.get("budget") or {}, {**_defaults("blame"), **data.get("blame", {})})


def load_policy(path: Path) -> Policy:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such policy file") from None
    except IsADirectoryError:
        raise ConfigError(f"{path}: is a directory, expected policy.json") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}::$: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    return policy_from_dict(data, str(path))
