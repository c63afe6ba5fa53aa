"""Policy rules over the whole trajectory, per-turn constraint checklists, and their metrics.

Public API for custom rule modules and the runner; see README.md, "Policy rules and constraint
checklists".
"""

from instruction_gate.rules.bundle import Command, Commit, FileChange, PolicyEvent, RunBundle
from instruction_gate.rules.model import (CONSTRAINT_CATEGORIES, POLICY_CATEGORIES, EvidenceType, MissingEvidence,
                                          Outcome, Rule, RuleInfo, RuleResult, Target, Verdict, evaluate)

__all__ = [
    "CONSTRAINT_CATEGORIES", "POLICY_CATEGORIES", "Command", "Commit", "EvidenceType", "FileChange", "MissingEvidence",
    "Outcome", "PolicyEvent", "Rule", "RuleInfo", "RuleResult", "RunBundle", "Target", "Verdict", "evaluate",
]
