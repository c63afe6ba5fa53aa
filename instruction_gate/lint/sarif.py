"""SARIF 2.1.0 output for GitHub code scanning, with stable rule ids and fingerprints."""

from __future__ import annotations

from typing import Any

from instruction_gate import __version__
from instruction_gate.lint.engine import LintResult
from instruction_gate.lint.model import RULES, Judged
from instruction_gate.lint.policy import LintPolicy

SARIF_SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
#: Key of our fingerprint in `partialFingerprints`; bump the suffix if the key recipe changes.
FINGERPRINT_KEY = "instructionGate/v1"


def _level(judged: Judged) -> str:
    if not judged.new:
        return "note"
    return "error" if judged.blocking else "warning"


def _rule(rule_id: str, policy: LintPolicy) -> dict[str, Any]:
    rule = RULES[rule_id]
    return {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.summary + (" Blocks the gate when a candidate introduces it."
                                                    if rule.id in policy.blocking_rules else "")},
        "defaultConfiguration": {"level": "error" if rule.id in policy.blocking_rules else "warning"},
        "properties": {"tags": ["instructions"]},
    }


def sarif(result: LintResult, policy: LintPolicy) -> dict[str, Any]:
    rule_ids = sorted(RULES)
    results = []
    for judged in result.judged:
        finding = judged.finding
        results.append({
            "ruleId": finding.rule_id,
            "ruleIndex": rule_ids.index(finding.rule_id),
            "level": _level(judged),
            "message": {"text": finding.message},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": finding.path, "uriBaseId": "%SRCROOT%"},
                "region": {"startLine": finding.line, "startColumn": finding.column},
            }}],
            "partialFingerprints": {FINGERPRINT_KEY: finding.fingerprint},
            "baselineState": "new" if judged.new else "unchanged",
            "properties": {"blocking": judged.blocking},
        })
    return {
        "$schema": SARIF_SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "instruction-gate", "semanticVersion": __version__,
                                "rules": [_rule(r, policy) for r in rule_ids]}},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }
