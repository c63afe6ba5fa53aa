"""IG013: path-scoped rule files whose front matter does not say what the writer meant.

A Copilot `*.instructions.md` without `applyTo` is sent everywhere by the CLI yet documented as
never applied on its own; a Cursor `.mdc`
whose `alwaysApply` is the string "true" is not always applied; front matter that is not YAML
is read by each agent its own way (or skipped); a pattern the matcher refuses, or one that
matches no file of the revision, pulls the rule in nowhere.
"""

from __future__ import annotations

from typing import Iterator

from instruction_gate import globs
from instruction_gate.agents.loading import FORMAT_GLOBS
from instruction_gate.agents.scoped_rules import ScopedRule, bad_patterns, base_of, matches, read_rule
from instruction_gate.lint.context import LintContext
from instruction_gate.lint.model import Finding

#: Root-anchored globs of each scoped format and the reader it takes.
_FORMATS = (("**/.github/instructions/**/*.instructions.md", "copilot", ".github"),
            ("**/.cursor/rules/**/*.mdc", "cursor", ".cursor"),
            ("**/.claude/rules/**/*.md", "claude", ".claude"))


def rule_of(path: str, text: str) -> ScopedRule | None:
    """The scoped rule a file of the revision is, or None when its path is no scoped format."""
    for pattern, fmt, marker in _FORMATS:
        if globs.matches_any(path, (pattern,)):
            base = base_of(path, marker)
            # Copilot's and Claude Code's patterns start at the repository root, Cursor's nested rules at their folder.
            return read_rule(path, text, fmt, base if fmt == "cursor" else "")
    return None


def check(ctx: LintContext) -> Iterator[Finding]:
    files = sorted(ctx.tree.files())
    for path in (p for p in files if p == ".cursor/rules" or p.endswith("/.cursor/rules")):
        # Seen in the wild: a rules text written to a file named `rules`, where Cursor reads a folder.
        yield Finding("IG013", path, 1, "A file, where Cursor reads a folder of `.mdc` rules: no agent loads it "
                      "(move it to `.cursor/rules/<name>.mdc` with front matter, or to `.cursorrules`).",
                      "scoped:rules-file")
    for path, text in sorted(ctx.texts.items()):
        rule = rule_of(path, text) if globs.matches_any(path, FORMAT_GLOBS) else None
        if rule is None:
            continue
        if rule.problem:
            yield Finding("IG013", path, 1, f"Front matter: {rule.problem}.", f"scoped:{rule.problem[:40]}")
        if rule.fmt == "copilot" and not rule.patterns and not rule.problem:
            yield Finding("IG013", path, 1, "No `applyTo` in the front matter: the Copilot CLI sends this file to every "
                          "task, while GitHub documents such a file as never applied on its own (other Copilot "
                          "surfaces); say which with `applyTo: \"**\"` or a narrower glob.", "scoped:no-applyTo")
        for pattern in bad_patterns(rule):
            yield Finding("IG013", path, 1, f"Pattern `{pattern}` is not a glob the agents can match: it pulls "
                          "the rule in nowhere.", f"scoped:bad:{pattern}")
        if rule.activation == "files" and not bad_patterns(rule) and not any(matches(rule, p) for p in files):
            yield Finding("IG013", path, 1, f"No file of this revision matches {', '.join(rule.patterns)}: the rule "
                          "loads only once an agent creates such a file.", f"scoped:nomatch:{','.join(rule.patterns)}")
