"""The `lint` section of policy.json: which rules block, which hosts are trusted, byte caps."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from instruction_gate.agents.codex.discovery import CODEX_BUDGET_BYTES
from instruction_gate.errors import ConfigError
from instruction_gate.lint.model import RULES
from instruction_gate.verdict.policy import policy_from_dict
from instruction_gate.records import read_json_record

#: Hosts every repository may link to without a finding.
DEFAULT_ALLOWED_HOSTS = ("github.com", "*.github.com", "*.githubusercontent.com", "localhost", "127.0.0.1")


@dataclass(frozen=True)
class LintPolicy:
    """Settings for one lint run (the policy's `lint` section, or the defaults)."""

    blocking_rules: frozenset[str] = field(
        default_factory=lambda: frozenset(r.id for r in RULES.values() if r.blocking_by_default))
    allowed_hosts: tuple[str, ...] = DEFAULT_ALLOWED_HOSTS  #: exact hosts or `*.domain` patterns
    byte_caps: dict[str, int] = field(default_factory=lambda: {"codex": CODEX_BUDGET_BYTES})
    #: "owner/name" of the repository being linted ("" when unknown): its own hosts are trusted
    project: str = ""

    def host_allowed(self, host: str) -> bool:
        host = host.lower().rstrip(".")
        return any(host == p or fnmatch.fnmatchcase(host, p) and p.startswith("*.")
                   for p in (p.lower() for p in self.allowed_hosts)) or self._projects_own(host)

    def _projects_own(self, host: str) -> bool:
        """A host named after the repository's owner or name (`pydantic.dev` for pydantic/pydantic-ai,
        `docs.astral.sh` for astral-sh/uv): the project's own site, as trusted as the repository."""
        if "/" not in self.project:
            return False
        names = {n for part in self.project.lower().split("/") for n in (part, part.split("-")[0]) if len(n) > 2}
        return bool(names & set(host.split(".")[:-1]))


def from_section(section: Any, label: str) -> LintPolicy:
    """Build from a policy's `lint` object; every problem is reported at once."""
    if section is None:
        return LintPolicy()
    problems = []
    if not isinstance(section, dict):
        raise ConfigError("invalid lint policy", [f"{label}::$.lint: must be an object"])
    unknown = set(section) - {"blocking_rules", "allowed_hosts", "byte_caps"}
    problems += [f"{label}::$.lint.{k}: unknown setting" for k in sorted(unknown)]
    blocking = section.get("blocking_rules")
    if blocking is not None:
        bad = [r for r in blocking if r not in RULES] if isinstance(blocking, list) else [blocking]
        problems += [f"{label}::$.lint.blocking_rules: unknown rule id {r!r}" for r in bad]
    hosts = section.get("allowed_hosts", [])
    if not isinstance(hosts, list) or not all(isinstance(h, str) and h for h in hosts):
        problems.append(f"{label}::$.lint.allowed_hosts: must be a list of host names")
    caps = section.get("byte_caps", {})
    if not isinstance(caps, dict) or not all(isinstance(v, int) and v > 0 for v in caps.values()):
        problems.append(f"{label}::$.lint.byte_caps: must map agent names to positive byte counts")
    if problems:
        raise ConfigError("invalid lint policy", problems)
    defaults = LintPolicy()
    return LintPolicy(
        blocking_rules=frozenset(blocking) if blocking is not None else defaults.blocking_rules,
        allowed_hosts=(*DEFAULT_ALLOWED_HOSTS, *hosts),
        byte_caps={**defaults.byte_caps, **caps})


def load(path: Path | None) -> LintPolicy:
    """The lint settings of a policy file, after the whole file passed the policy schema."""
    if path is None:
        return LintPolicy()
    data = read_json_record(path)
    policy_from_dict(data, str(path))  # one policy file, one validation: the compare engine's
    return from_section(data.get("lint"), str(path))
