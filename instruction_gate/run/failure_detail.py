"""A run record's `failure_detail`: the one line that says why an infrastructure failure happened.

`failure_reason` names the category (`failed: cli_not_found`); the detail is the CLI's own
error line (`Error: Cannot find module ...`), so a summary of N identical failures can say
what to fix once. It is short, on one line, and scrubbed: credential-shaped words are
replaced here, and the run store redacts the values of secret variables from every record.
"""

from __future__ import annotations

import re
from typing import Any

from instruction_gate import secret_shapes
from instruction_gate.secrets import REDACTED

LIMIT = 240
_ERROR_LINE = re.compile(r"\b(?:\w*error|cannot|can't|not found|no such|failed|denied|refused|exception)\b",
                         re.IGNORECASE)
#: Stricter than `secret_shapes` on the shapes an error line prints: a CLI echoing a request may
#: print a truncated key (`sk-abc12345`) or a short bearer value, which is still a credential.
_SHORT_TOKEN = re.compile(r"\b(?:sk-[A-Za-z0-9_-]{8,}|AIza[0-9A-Za-z_-]{20,}|gh[pousr]_[A-Za-z0-9]{20,}"
                          r"|xox[abpr]-[A-Za-z0-9-]{10,})|(?i:bearer|api[_-]?key[=:])\s*[^\s\"',;]{6,}")


def scrubbed(text: str) -> str | None:
    """`text` on one line, credential-shaped words redacted, capped at LIMIT characters; None when empty."""
    line = secret_shapes.redact(_SHORT_TOKEN.sub(REDACTED, " ".join(text.split())))
    if not line:
        return None
    return line if len(line) <= LIMIT else line[: LIMIT - 1] + "…"


def from_adapter(result: dict[str, Any] | None, stderr_tail: str) -> str | None:
    """The adapter's `failure_detail`, else the last error-like line it printed on stderr (node
    ends a crash with its version, after the `Error: ...` line), else its last line."""
    reported = (result or {}).get("failure_detail")
    if isinstance(reported, str) and reported.strip():
        return scrubbed(reported)
    lines = [line for line in (stderr_tail or "").splitlines() if line.strip()]
    errors = [line for line in lines if _ERROR_LINE.search(line)]
    return scrubbed((errors or lines)[-1]) if lines else None
