"""The manifest's reference-format checks as rule instances, and the hard-gate fields they yield.

`required_command_patterns`, `forbidden_command_patterns`, `forbidden_globs`, `required_events`
and `required_instruction_sources` keep their meaning exactly: a hard failure is a *violated*
rule (inapplicable and undetermined never fail a gate), and the evidence fields list the same
values in the same order as before (`tests/rules/test_legacy_equality.py` proves it).
"""

from __future__ import annotations

from typing import Any

from instruction_gate.rules.bundle import Command, PolicyEvent, RunBundle
from instruction_gate.rules.model import EvidenceType, Outcome, Rule, RuleInfo, RuleResult, evaluate
from instruction_gate.rules.output import PathsForbidden
from instruction_gate.rules.trajectory import CommandForbidden, CommandRequired, EventRequired, InstructionSourceRequired

T, D = EvidenceType.TRAJECTORY, EvidenceType.DIFFERENTIAL


def _info(rule_id: str, kind: str, category: str, evidence: EvidenceType) -> RuleInfo:
    return RuleInfo(rule_id, kind, category, evidence, exact=True, description="reference-format manifest check")


def legacy_rules(task: Any) -> list[Rule]:
    """Rules for a manifest Task's reference-format fields, in the order their gates are reported."""
    rules: list[Rule] = []
    rules += [CommandRequired(_info(f"required_command:{p}", "command_required", "workflow.tool_usage", T), p)
              for p in task.required_command_patterns]
    rules += [CommandForbidden(_info(f"forbidden_command:{p}", "command_forbidden", "workflow.tool_usage", T), p)
              for p in task.forbidden_command_patterns]
    if task.forbidden_globs:
        rules.append(PathsForbidden(_info("forbidden_paths", "paths_forbidden", "environment.file_path", D),
                                    tuple(task.forbidden_globs)))
    rules += [EventRequired(_info(f"required_event:{name}", "event_required", "workflow.orchestration", T), name)
              for name in dict.fromkeys(task.required_events)]
    rules += [InstructionSourceRequired(_info(f"instruction_source:{path}", "instruction_source_required",
                                              "environment.file_path", T), path)
              for path in dict.fromkeys(task.required_instruction_sources)]
    return rules


def bundle_from_evidence(evidence: Any) -> RunBundle:
    """A bundle carrying only what the reference checks read (gates.Evidence)."""
    codes = tuple(evidence.exit_codes)
    return RunBundle(
        commands=tuple(Command(text, i, 0, codes[i] if i < len(codes) else None, refused=i in evidence.not_run)
                       for i, text in enumerate(evidence.commands)),
        policy_events=tuple(PolicyEvent(name, 0, 0) for name in sorted(evidence.event_names)),
        edited_files=tuple(evidence.edited_files), created=None, additions=None, deletions=None,
        instruction_sources=frozenset(evidence.instruction_sources),
    )


def gate_fields(results: list[RuleResult]) -> dict[str, list[str]]:
    """The run record's per-gate evidence fields from evaluated legacy rules."""
    violated = [r for r in results if r.outcome is Outcome.VIOLATED]

    def names(prefix: str) -> list[str]:
        return [r.id.split(":", 1)[1] for r in violated if r.id.startswith(prefix + ":")]

    forbidden_files = [str(path) for r in violated if r.id == "forbidden_paths" for path in r.violating]
    return {
        "missing_commands": names("required_command"),
        "forbidden_commands": names("forbidden_command"),
        "forbidden_files": forbidden_files,
        "missing_events": sorted(names("required_event")),
        "missing_instruction_sources": sorted(names("instruction_source")),
    }


def evaluate_legacy(task: Any, evidence: Any) -> tuple[list[RuleResult], dict[str, list[str]]]:
    bundle = bundle_from_evidence(evidence)
    results = [evaluate(rule, bundle) for rule in legacy_rules(task)]
    return results, gate_fields(results)
