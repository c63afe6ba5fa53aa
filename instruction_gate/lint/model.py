"""Rules and findings shared by every lint rule family and reporter."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    """One lint rule. Its id is stable forever (SARIF consumers key on it)."""

    id: str  #: IG001, IG002, ...
    name: str  #: kebab-case name shown next to the id
    summary: str  #: one sentence: what the rule reports
    blocking_by_default: bool  #: blocks when new, unless the policy says otherwise


@dataclass(frozen=True)
class Finding:
    """One problem at one place of one revision."""

    rule_id: str
    path: str  #: repository-relative POSIX path of the file the finding is on
    line: int  #: 1-based
    message: str  #: never contains a secret's value
    key: str  #: identity across revisions: no line numbers, so moved text stays "the same" finding
    column: int = 1  #: 1-based, in characters

    @property
    def fingerprint(self) -> str:
        """Stable hash for SARIF `partialFingerprints` and base/candidate matching."""
        raw = "\0".join((self.rule_id, self.path, self.key)).encode()
        return hashlib.sha256(raw).hexdigest()[:32]


@dataclass(frozen=True)
class Judged:
    """A candidate finding with its differential status and the policy's verdict."""

    finding: Finding
    new: bool  #: the base revision has no finding with the same fingerprint (counted)
    blocking: bool  #: the policy makes this rule block (only new findings fail the gate)

    @property
    def fails_gate(self) -> bool:
        return self.new and self.blocking


RULES: dict[str, Rule] = {rule.id: rule for rule in (
    Rule("IG001", "unknown-command",
         "A referenced make target, package.json script, tox environment or nox session does not exist.", True),
    Rule("IG002", "missing-path",
         "A script or file referenced in code does not exist in the repository.", True),
    Rule("IG003", "broken-link",
         "A relative Markdown link or import points to a missing file.", True),
    Rule("IG004", "over-byte-cap",
         "An instruction chain exceeds an agent's byte cap, so the agent never sees its tail.", True),
    Rule("IG005", "shadowing-override",
         "An override file hides another instruction file in the same directory from the agent.", False),
    Rule("IG006", "contradictory-directives",
         "Two directives an agent loads together say always and never about the same thing.", True),
    Rule("IG007", "secret",
         "A token-shaped string or credential appears in an instruction file.", True),
    Rule("IG008", "hidden-content",
         "Text hidden from rendered views (HTML comments, hidden elements, comment links) reaches the agent.", False),
    Rule("IG009", "invisible-unicode",
         "Invisible, bidirectional or terminal control characters (ESC, backspace, a lone carriage return) "
         "can hide, reorder or overwrite text.", True),
    Rule("IG010", "untrusted-host",
         "A URL points to a host that is not on the allow-list.", False),
    Rule("IG011", "over-read-cap",
         "An instruction or imported file is larger than the harness reads (1 MiB): agents see text it never judged.",
         True),
    Rule("IG012", "mention-taken-for-import",
         "An `@name` without a path shape where Gemini CLI replaces it with an import-failure text.", False),
    Rule("IG013", "scoped-rule-front-matter",
         "A path-scoped rule file (Copilot `applyTo`, Cursor `globs`/`alwaysApply`, Claude Code `paths`) whose "
         "front matter is not read as written, or whose patterns match no file: it loads less than it seems to.",
         False),
)}
