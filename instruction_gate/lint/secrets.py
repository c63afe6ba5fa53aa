"""IG007: token-shaped strings and credentials. Messages name the kind, never the value."""

from __future__ import annotations

import hashlib
import math
import re
from typing import Iterator

from instruction_gate.lint import markdown
from instruction_gate.lint.context import LintContext
from instruction_gate.lint.model import Finding

#: (kind, pattern) — well-known token formats first, generic assignments last.
PATTERNS = (
    ("private key", re.compile(r"-----BEGIN (?:[A-Z]+ )*PRIVATE KEY-----")),
    ("AWS access key id", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("GitHub token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})\b")),
    ("Slack token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    ("Anthropic API key", re.compile(r"\bsk-ant-[A-Za-z0-9_\-]{20,}")),
    ("OpenAI API key", re.compile(r"\bsk-(?!ant-)(?:proj-)?[A-Za-z0-9_\-]{20,}")),
    ("Google API key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}\b")),
    ("JSON web token", re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}")),
    ("credential in URL", re.compile(r"\b[a-z][a-z0-9+.\-]*://[^\s:/@]+:[^\s:/@]{3,}@", re.IGNORECASE)),
    ("credential assignment", re.compile(
        r"(?i)\b[\w.\-]*(?:api[_-]?key|secret|token|passw(?:or)?d|credential)s?\b\s*[:=]\s*(?P<quote>[\"']?)"
        r"(?P<value>[A-Za-z0-9/+_\-.=]{16,})")),
)
#: Generic assignments only count when the value looks random (bits per character).
MIN_ENTROPY = 3.0
#: An unquoted value that is a dotted name (`usage.total_tokens`) or a call is code reading a
#: value, not the value itself: `tokens=usage.total_tokens` in a logging example.
_CODE_VALUE = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
_PLACEHOLDER = re.compile(r"(?i)x{4,}|\.{3}|<|\$\{|example|changeme|dummy|placeholder|your[_-]")


def _entropy(value: str) -> float:
    counts = [value.count(c) for c in set(value)]
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts)


def _not_a_secret(match: re.Match, text: str) -> bool:
    """An assignment whose value is code (a name read, a call) or not random enough to be a secret."""
    value = match.group("value")
    if not match.group("quote") and (_CODE_VALUE.fullmatch(value) or text[match.end():match.end() + 1] in ("(", "[")):
        return True
    return _entropy(value) < MIN_ENTROPY


def check(ctx: LintContext) -> Iterator[Finding]:
    for source, text in sorted(ctx.texts.items()):
        for line in markdown.lines(text):
            hit = _first_secret(line.text)
            if hit is not None:
                kind, value, column = hit
                digest = hashlib.sha256(value.encode()).hexdigest()[:16]
                yield Finding("IG007", source, line.number,
                              f"Possible {kind} in an instruction file; remove it and rotate it. "
                              "Instruction files reach every agent and every log.",
                              f"secret:{digest}", column + 1)


def _first_secret(text: str) -> tuple[str, str, int] | None:
    """(kind, value, column) of the most specific secret on a line; one per line is enough to act."""
    for kind, pattern in PATTERNS:
        for match in pattern.finditer(text):
            value = match.groupdict().get("value") or match.group(0)
            if _PLACEHOLDER.search(value) or (kind == "credential assignment" and _not_a_secret(match, text)):
                continue
            return kind, value, match.start()
    return None
