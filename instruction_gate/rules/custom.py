"""Custom rules: Python modules kept in the trusted suite, with the same precondition/post-condition contract.

A custom rule module defines

    CATEGORY = "pr_metadata"          # a known category (see model.py)
    EVIDENCE_TYPE = "differential"    # output, differential or trajectory
    EXACT = True                      # False when the check approximates its rule
    def precondition(bundle, params): -> iterable of Target (may raise MissingEvidence)
    def postcondition(bundle, target, params): -> Verdict (may raise MissingEvidence)
    CASES = [{"name": ..., "expect": "satisfied" | "violated" | "inapplicable" | "undetermined",
              "params": {...}, "bundle": {...}}, ...]   # bundle: see RunBundle.from_case

Trust: the source is always read from the *base* commit's objects (the same place the
manifest's checks come from), never from the candidate's tree or the agent's workspace, and a
module path may not match `instruction_paths`, the only files a candidate may change. The
authored cases run every time the module is loaded (validate, evaluate) and in the test suite;
a module without a satisfied, a violated and an inapplicable case, or with a failing case, is a
configuration error.
"""

from __future__ import annotations

import hashlib
import types
from dataclasses import dataclass, field
from typing import Any, Iterable

from instruction_gate.rules.bundle import RunBundle
from instruction_gate.rules.model import (EvidenceType, MissingEvidence, RuleInfo, Target, Verdict, evaluate,
                                          known_categories)

REQUIRED_CASES = ("satisfied", "violated", "inapplicable")


@dataclass(frozen=True)
class CustomModule:
    path: str
    module: types.ModuleType = field(compare=False)

    @property
    def category(self) -> str:
        return getattr(self.module, "CATEGORY")

    @property
    def evidence_type(self) -> EvidenceType:
        return EvidenceType(getattr(self.module, "EVIDENCE_TYPE"))

    @property
    def exact(self) -> bool:
        return bool(getattr(self.module, "EXACT", True))


@dataclass(frozen=True)
class CustomRule:
    info: RuleInfo
    source: CustomModule
    params: dict[str, Any] = field(default_factory=dict, hash=False)

    def _call(self, name: str, *args: Any) -> Any:
        try:
            return getattr(self.source.module, name)(*args, self.params)
        except MissingEvidence:
            raise
        except Exception as exc:  # a broken check must not end the evaluation; it decides nothing
            raise MissingEvidence(f"custom rule {self.source.path} raised {type(exc).__name__}: {exc}") from None

    def precondition(self, bundle: RunBundle) -> Iterable[Target]:
        return list(self._call("precondition", bundle))

    def postcondition(self, bundle: RunBundle, target: Target) -> Verdict:
        return self._call("postcondition", bundle, target)


def load(path: str, source: str) -> CustomModule:
    """Execute trusted module source (read from the base commit) in a fresh module object."""
    name = "instruction_gate_custom_" + hashlib.sha256(path.encode()).hexdigest()[:12]
    module = types.ModuleType(name)
    module.__file__ = path
    exec(compile(source, path, "exec"), module.__dict__)
    return CustomModule(path, module)


def module_problems(custom: CustomModule, label: str) -> list[str]:
    """Contract problems of a loaded module, then failures of its authored cases."""
    m, where = custom.module, f"{label}::{custom.path}"
    problems = [f"{where}: defines no {name}()" for name in ("precondition", "postcondition")
                if not callable(getattr(m, name, None))]
    if getattr(m, "CATEGORY", None) not in known_categories():
        problems.append(f"{where}: CATEGORY {getattr(m, 'CATEGORY', None)!r} is not a known category")
    if getattr(m, "EVIDENCE_TYPE", None) not in {e.value for e in EvidenceType}:
        problems.append(f"{where}: EVIDENCE_TYPE must be one of output, differential, trajectory")
    cases = getattr(m, "CASES", None)
    if not isinstance(cases, list):
        return problems + [f"{where}: defines no CASES list"]
    missing = [kind for kind in REQUIRED_CASES if kind not in {c.get("expect") for c in cases if isinstance(c, dict)}]
    if missing:
        problems.append(f"{where}: CASES lacks a case expecting {', '.join(missing)}")
    if problems:
        return problems
    for i, case in enumerate(cases):
        outcome, detail = run_case(custom, case)
        if outcome != case.get("expect"):
            problems.append(f"{where}: case {case.get('name', i)!r} expected {case.get('expect')}, got {outcome}{detail}")
    return problems


def run_case(custom: CustomModule, case: dict[str, Any]) -> tuple[str, str]:
    """Evaluate one authored case; returns (outcome, evidence suffix for messages)."""
    rule = CustomRule(RuleInfo("case", "custom", custom.category, custom.evidence_type, custom.exact,
                               turn=case.get("turn")), custom, dict(case.get("params") or {}))
    result = evaluate(rule, RunBundle.from_case(case.get("bundle") or {}))
    return result.outcome.value, (f" ({'; '.join(result.evidence)})" if result.evidence else "")


def build(decl: dict[str, Any], custom: CustomModule, turns: list[int | None]) -> list[CustomRule]:
    info = {"id": decl["id"], "kind": "custom", "category": decl.get("category", custom.category),
            "evidence_type": custom.evidence_type, "exact": custom.exact, "description": decl.get("description", "")}
    return [CustomRule(RuleInfo(**info, turn=turn), custom, dict(decl.get("params") or {})) for turn in turns]

