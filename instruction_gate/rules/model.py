"""The rule model: a precondition selects targets in a run, a post-condition judges each target.

A rule yields one of four outcomes for a run (or for one turn of it):

- `inapplicable` — the precondition selected nothing: the agent's work never brought the rule
  into scope. It is never counted as compliance.
- `violated` — some selected target fails the post-condition.
- `undetermined` — the evidence a check needs is missing (the adapter does not report exit
  codes, a created file is too large to read, commits could not be read, ...). It is never
  counted as a violation.
- `satisfied` — every selected target passes.

Checks are deterministic functions of the recorded run; none calls a model.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Iterable, Protocol

# MissingEvidence lives with the bundle whose accessors raise it; re-exported here for rule modules.
from instruction_gate.rules.bundle import MissingEvidence, RunBundle  # noqa: F401


class Outcome(str, Enum):
    SATISFIED = "satisfied"
    VIOLATED = "violated"
    UNDETERMINED = "undetermined"
    INAPPLICABLE = "inapplicable"


class EvidenceType(str, Enum):
    """What a rule reads (the split of the repository-policy study)."""

    OUTPUT = "output"  #: the final state: created files, final message, commits
    DIFFERENTIAL = "differential"  #: the change against the input commit: the diff, edited paths
    TRAJECTORY = "trajectory"  #: what happened along the way: commands, their order, policy events


#: Repository-policy categories (a closed list, so a category means the same in every suite).
POLICY_CATEGORIES = {
    "documentation": "docstrings, README and other documentation",
    "language_style": "language and framework idioms",
    "tests": "tests to add and how to write them",
    "specialized_changes": "rules for particular kinds of change (data files, migrations, ...)",
    "pr_metadata": "changelog fragments, release notes, pull-request text",
    "git_commits": "commit structure and commit message conventions",
    "ai_disclosure": "disclosure of AI assistance",
    "code_quality": "linters, formatters and type checkers that must pass",
}

#: Constraint categories of the multi-turn instruction-following taxonomy, written `primary.secondary`.
CONSTRAINT_CATEGORIES = {
    "content": ("keyword", "persona", "format"),
    "language": ("response_language", "comment_language", "file_encoding"),
    "quantity": ("range", "exact_value", "complexity"),
    "style": ("layout", "naming", "paradigm"),
    "environment": ("file_path", "file_operation", "logging"),
    "workflow": ("tool_usage", "orchestration", "testing"),
}


def known_categories() -> set[str]:
    """Every valid category: policy names, `primary` and `primary.secondary` constraint names."""
    names = set(POLICY_CATEGORIES) | set(CONSTRAINT_CATEGORIES)
    names |= {f"{primary}.{secondary}" for primary, subs in CONSTRAINT_CATEGORIES.items() for secondary in subs}
    return names


@dataclass(frozen=True)
class RuleInfo:
    """How a rule is reported. `turn` None judges the whole run; an int judges that turn only."""

    id: str
    kind: str
    category: str
    evidence_type: EvidenceType
    exact: bool = True  #: False when the check stands in for a reading the rule leaves open
    description: str = ""
    turn: int | None = None


@dataclass(frozen=True)
class Target:
    """One thing a rule applies to: a command, an edited path, a commit, the run itself."""

    label: str
    value: object = None


@dataclass(frozen=True)
class Verdict:
    outcome: Outcome  #: satisfied, violated or undetermined (never inapplicable)
    detail: str = ""


class Rule(Protocol):
    """A deterministic policy check over one run bundle."""

    info: RuleInfo

    def precondition(self, bundle: RunBundle) -> Iterable[Target]:
        """The targets the rule applies to in this run; may raise MissingEvidence."""

    def postcondition(self, bundle: RunBundle, target: Target) -> Verdict:
        """Judge one selected target; may raise MissingEvidence."""


@dataclass(frozen=True)
class RuleResult:
    """One rule's outcome for one run (or turn), as stored in `run.json` under `rules`."""

    id: str
    kind: str
    category: str
    evidence_type: str
    exact: bool
    outcome: Outcome
    turn: int | None
    evidence: tuple[str, ...] = ()  #: why: the violating targets, or what was missing
    targets: int = 0
    violating: tuple[object, ...] = field(default=(), compare=False)  #: values of violating targets

    def to_record(self) -> dict[str, object]:
        return {"id": self.id, "kind": self.kind, "category": self.category, "evidence_type": self.evidence_type,
                "exact": self.exact, "outcome": self.outcome.value, "turn": self.turn,
                "targets": self.targets, "evidence": list(self.evidence)}


#: Evidence lines kept per result; the count of targets says how many there were.
MAX_EVIDENCE_LINES = 10


def evaluate(rule: Rule, bundle: RunBundle) -> RuleResult:
    """Apply precondition then post-condition; combine target verdicts into one outcome."""
    info = rule.info

    def result(outcome: Outcome, evidence: list[str], targets: int = 0, violating: tuple = ()) -> RuleResult:
        return RuleResult(info.id, info.kind, info.category, info.evidence_type.value, info.exact, outcome,
                          info.turn, tuple(evidence[:MAX_EVIDENCE_LINES]), targets, violating)

    scoped = bundle
    try:
        if info.turn is not None:
            scoped = bundle.for_turn(info.turn)
        targets = list(rule.precondition(scoped))
    except MissingEvidence as missing:
        return result(Outcome.UNDETERMINED, [f"missing evidence: {missing}"])
    if not targets:
        return result(Outcome.INAPPLICABLE, [])
    violated: list[tuple[Target, str]] = []
    undetermined: list[str] = []
    for target in targets:
        try:
            verdict = rule.postcondition(scoped, target)
        except MissingEvidence as missing:
            verdict = Verdict(Outcome.UNDETERMINED, f"missing evidence: {missing}")
        if verdict.outcome is Outcome.VIOLATED:
            violated.append((target, verdict.detail))
        elif verdict.outcome is Outcome.UNDETERMINED:
            undetermined.append(f"{target.label}: {verdict.detail}")
    if violated:
        lines = [f"{t.label}: {detail}" if detail else t.label for t, detail in violated]
        return result(Outcome.VIOLATED, lines, len(targets), tuple(t.value for t, _ in violated))
    if undetermined:
        return result(Outcome.UNDETERMINED, undetermined, len(targets))
    return result(Outcome.SATISFIED, [], len(targets))
