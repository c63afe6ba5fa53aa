"""GitHub Actions output: the job summary and workflow-command annotations.

GitHub shows at most 10 error and 10 warning annotations per step and accepts at most 1 MiB of
job summary per step; beyond that it drops output or fails the step, so both are capped here.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TextIO
from instruction_gate.console import escape_controls, say

STEP_SUMMARY_LIMIT_BYTES = 1024 * 1024
ANNOTATIONS_PER_LEVEL = 10
_TRUNCATION_NOTE = "\n\n… summary truncated to fit GitHub's 1 MiB job-summary limit; see summary.md.\n"


def escape_data(text: str) -> str:
    """Escape a workflow-command message: GitHub's own rules (%, CR, LF), and every other
    control character written out (an ANSI escape in a file name stays text)."""
    return escape_controls(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotations(level: str, messages: list[str], title: str) -> list[str]:
    """`::error`/`::warning` lines, at most ANNOTATIONS_PER_LEVEL; the last one counts the rest."""
    shown = list(messages[:ANNOTATIONS_PER_LEVEL])
    hidden = len(messages) - len(shown)
    if hidden > 0:
        shown[-1] = f"{shown[-1]} (and {hidden} more; see the job summary)"
    return [f"::{level} title={escape_property(title)}::{escape_data(message)}" for message in shown]


def emit_annotations(errors: list[str], warnings: list[str], stream: TextIO) -> None:
    for line in annotations("error", errors, "instruction-gate") + annotations("warning", warnings, "instruction-gate"):
        print(line, file=stream)


def fit_to_limit(markdown: str, already_used: int, limit: int = STEP_SUMMARY_LIMIT_BYTES) -> str:
    """Cut `markdown` (at a line boundary) so the step summary file stays within `limit` bytes."""
    room = limit - already_used
    data = markdown.encode("utf-8")
    if len(data) <= room:
        return markdown
    note = _TRUNCATION_NOTE.encode("utf-8")
    if room <= len(note):
        return ""
    cut = data[: room - len(note)].decode("utf-8", errors="ignore")
    cut = cut[: cut.rfind("\n") + 1] if "\n" in cut else cut
    return cut + _TRUNCATION_NOTE


def append_step_summary(markdown: str, environ: dict[str, str] | None = None) -> Path | None:
    """Append to $GITHUB_STEP_SUMMARY when running in Actions; returns the file written, if any.

    The job summary is a copy of summary.md, which is already written: when it cannot be
    appended (a directory, a missing directory, no permission) that is a warning, and the
    verdict's exit code stands (a PASS must not turn into a failure over a display copy).
    """
    target = (environ if environ is not None else os.environ).get("GITHUB_STEP_SUMMARY")
    if not target:
        return None
    path = Path(target)
    try:
        used = path.stat().st_size if path.is_file() else 0
        text = fit_to_limit(escape_controls(markdown), used)  # whichever helper built the lines
        if text:
            with path.open("a", encoding="utf-8") as handle:
                handle.write(text)
    except (OSError, ValueError) as exc:
        say(f"instruction-gate: warning: GITHUB_STEP_SUMMARY {target!r}: cannot append the job summary "
              f"({getattr(exc, 'strerror', None) or exc}); summary.md has it", file=sys.stderr)
        return None
    return path
