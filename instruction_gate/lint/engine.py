"""Run every rule family over a revision, and judge candidate findings against the base."""

from __future__ import annotations

from dataclasses import dataclass
from posixpath import dirname
from typing import Callable, Iterable

from instruction_gate.lint import (budget, contradictions, encoding, hidden, hosts, import_rules, links, scoped, secrets,
                                  stale)
from instruction_gate.lint.chains import chains, instruction_files
from instruction_gate.lint.context import LintContext
from instruction_gate.lint.imports import imports, loaded
from instruction_gate.lint.model import Finding, Judged
from instruction_gate.lint.policy import LintPolicy
from instruction_gate.lint.tree import Tree, inside_target
from instruction_gate.untrusted import INSTRUCTION_CAP_BYTES, decode_instruction

#: Every rule family, in report order.
CHECKS: tuple[Callable[[LintContext], Iterable[Finding]], ...] = (
    stale.check, links.check, import_rules.check_imports, import_rules.check_mentions, import_rules.check_read_cap,
    budget.check_caps, budget.check_overrides, contradictions.check,
    secrets.check, hidden.check_hidden, hidden.check_unicode, encoding.check, hosts.check, scoped.check)


def context(tree: Tree, policy: LintPolicy, instruction_paths: Iterable[str] = (),
            extra_directories: Iterable[str] = ()) -> LintContext:
    """Read a revision's instruction files and the chains agents would load from them."""
    named = instruction_files(tree, instruction_paths)
    found_imports = imports(tree, named)
    # A file reached only through an import reaches the agent too: it is linted like the others.
    files = sorted({*named, *loaded(found_imports).values()})
    # Any bytes, read as data; the cap bounds the rules' work on a hostile multi-megabyte file.
    contents = {p: data for p in files if (data := tree.read(p)) is not None}
    texts = {p: decode_instruction(data[:INSTRUCTION_CAP_BYTES]) for p, data in contents.items()}
    roots = [p for p in named if p in texts]
    directories = {"", *(dirname(p) for p in roots), *extra_directories}
    found = chains(tree, roots, directories, policy.byte_caps)
    # A CLAUDE.md linked to AGENTS.md is one text: its findings are reported once, at the target.
    linked = {p for p in texts if inside_target(p, tree.link_target, texts.__contains__) not in (None, p)}
    return LintContext(tree, {p: text for p, text in texts.items() if p not in linked}, found, policy,
                       found_imports, {p: len(data) for p, data in contents.items()})


def lint(ctx: LintContext) -> list[Finding]:
    found = [finding for check in CHECKS for finding in check(ctx)]
    return sorted(found, key=lambda f: (f.path, f.line, f.rule_id, f.column))


def _unmatched(candidate: list[Finding], base: list[Finding]) -> tuple[set[int], set[int]]:
    """Indices of the candidate and base findings left without a partner. Fingerprints (rule, file, content)
    pair first; what is left pairs on rule and content alone, so text that moved to another file (a renamed
    CLAUDE.md, a rule moved into a nested AGENTS.md) is not new. Counted: a second copy is."""
    left_candidate, left_base = set(range(len(candidate))), set(range(len(base)))
    for key in (lambda f: f.fingerprint, lambda f: (f.rule_id, f.key)):
        waiting: dict = {}
        for index in sorted(left_base):
            waiting.setdefault(key(base[index]), []).append(index)
        for index in sorted(left_candidate):
            if partners := waiting.get(key(candidate[index])):
                left_base.discard(partners.pop(0))
                left_candidate.discard(index)
    return left_candidate, left_base


def judge(candidate: list[Finding], base: list[Finding] | None, policy: LintPolicy) -> tuple[list[Judged], list[Finding]]:
    """Candidate findings marked new where the base has no partner (`_unmatched`; without a base every one
    is new), and the base findings the candidate no longer has."""
    new, gone = _unmatched(candidate, base) if base is not None else (set(range(len(candidate))), set())
    judged = [Judged(finding, new=index in new, blocking=finding.rule_id in policy.blocking_rules)
              for index, finding in enumerate(candidate)]
    return judged, [finding for index, finding in enumerate(base or []) if index in gone]


@dataclass(frozen=True)
class LintResult:
    """Everything a reporter needs."""

    judged: list[Judged]
    resolved: list[Finding]
    base_label: str | None
    candidate_label: str

    @property
    def failed(self) -> bool:
        return any(j.fails_gate for j in self.judged)


def lint_revisions(candidate: Tree, base: Tree | None, policy: LintPolicy,
                   instruction_paths: Iterable[str] = (), extra_directories: Iterable[str] = ()) -> LintResult:
    paths, extra = tuple(instruction_paths), tuple(extra_directories)
    base_context = context(base, policy, paths, extra) if base is not None else None
    candidate_context = context(candidate, policy, paths, extra)
    if base_context is not None:
        candidate_context.earlier_dirs = base_context.dirs
    candidate_findings = lint(candidate_context)
    base_findings = lint(base_context) if base_context is not None else None
    judged, resolved = judge(candidate_findings, base_findings, policy)
    return LintResult(judged, resolved, base.label if base is not None else None, candidate.label)
