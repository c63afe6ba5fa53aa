"""IG007: token-shaped strings and credentials (shapes in `secret_shapes`). Messages name the
kind, never the value."""

from __future__ import annotations

import hashlib
from typing import Iterator

from instruction_gate import secret_shapes
from instruction_gate.lint import markdown
from instruction_gate.lint.context import LintContext
from instruction_gate.lint.model import Finding


def check(ctx: LintContext) -> Iterator[Finding]:
    for source, text in sorted(ctx.texts.items()):
        for line in markdown.lines(text):
            secret = secret_shapes.first(line.text)
            if secret is not None:
                digest = hashlib.sha256(secret.value.encode()).hexdigest()[:16]
                yield Finding("IG007", source, line.number,
                              f"Possible {secret.kind} in an instruction file; remove it and rotate it. "
                              "Instruction files reach every agent and every log.",
                              f"secret:{digest}", secret.start + 1)
