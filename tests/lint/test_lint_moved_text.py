"""Differential judging: text that moves to another file keeps its findings old; a second copy is new."""

import os

from instruction_gate.lint.engine import lint_revisions
from instruction_gate.lint.policy import LintPolicy
from instruction_gate.lint.tree import DirTree

STALE = "# Guide\n\n- HTTP helpers live in `internal/http/client.go`.\n"


def _tree(root, files, links=()):
    for rel, body in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(body, encoding="utf-8")
    for rel, target in links:
        os.symlink(target, root / rel)
    return DirTree(root)


def test_a_renamed_instruction_file_brings_no_new_finding(tmp_path):
    base = _tree(tmp_path / "base", {"CLAUDE.md": STALE, "internal/x.go": ""})
    candidate = _tree(tmp_path / "candidate", {"AGENTS.md": STALE, "internal/x.go": ""}, [("CLAUDE.md", "AGENTS.md")])
    result = lint_revisions(candidate, base, LintPolicy())
    assert [(j.finding.path, j.new) for j in result.judged] == [("AGENTS.md", False)]
    assert result.resolved == [] and not result.failed


def test_a_second_copy_in_another_file_is_new(tmp_path):
    base = _tree(tmp_path / "base", {"AGENTS.md": STALE, "internal/x.go": ""})
    candidate = _tree(tmp_path / "candidate", {"AGENTS.md": STALE, "svc/AGENTS.md": STALE, "internal/x.go": ""})
    judged = lint_revisions(candidate, base, LintPolicy()).judged
    assert sorted((j.finding.path, j.new) for j in judged) == [("AGENTS.md", False), ("svc/AGENTS.md", True)]
