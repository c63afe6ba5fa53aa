"""Tables of required checks: "| Gate | Command | Notes |" rows under "All required before PR is merge-ready:".

A table speaks only when it says so in words: its header names a command column, and the paragraph
right above it (or its heading) says the rows are required before finishing, or are the quality gates
or checks of every change. A row whose notes tie it to one kind of change ("Required for
optimizations") or whose gate names one kind of tests (benchmarks, e2e) is that case's, not a step.
"""

from __future__ import annotations

import re

from instruction_gate.reference_agent.command_text import runnable_as_written, runs_the_suite
from instruction_gate.reference_agent.phrases import BEFORE_FINISHING, CHECKLIST, CODE, KIND_OF_TESTS_WORD, conditional

_COMMAND_COLUMN = re.compile(r"(?i)^\W*(?:command|commands|how(?:\s+to\s+run)?|run)\W*$")
_SEPARATOR = re.compile(r"^\|?\s*:?-{2,}")
#: The words above a table that make its rows every change's: "All required before PR is merge-ready:".
_REQUIRED_LEAD = re.compile(r"(?i)\b(?:all\s+)?(?:required|mandatory|must\s+pass)\b.*\bbefore\b|\bquality\s+gates?\b")
_ONE_CASE = re.compile(r"(?i)\b(?:required|needed|only)\s+(?:for|when|if|on)\b")


def _cells(row: str) -> list[str]:
    return [c.strip() for c in row.strip().strip("|").split("|")]


def from_table(text: str, lead: str, section: str) -> list[tuple[str, str | None, int]]:
    """(kind, argument, row offset in lines) of a Markdown table block's rows that are required steps."""
    rows = text.rstrip("\n").split("\n")
    if len(rows) < 3 or not _SEPARATOR.match(rows[1].strip()):
        return []
    header = _cells(rows[0])
    column = next((i for i, cell in enumerate(header) if _COMMAND_COLUMN.match(cell)), None)
    said = lead.lower()
    # the words above the table require its rows to pass; a heading alone ("Quality Gates") names the steps
    must_pass = bool(_REQUIRED_LEAD.search(said) or BEFORE_FINISHING.search(said))
    if column is None or not (must_pass or CHECKLIST.search(section) or _REQUIRED_LEAD.search(section)):
        return []
    found: list[tuple[str, str | None, int]] = []
    suite_taken = False
    for offset, row in enumerate(rows[2:], start=2):
        cells = _cells(row)
        if column >= len(cells) or not (code := CODE.search(cells[column])):
            continue
        others = " ".join(c for i, c in enumerate(cells) if i != column).lower()
        command = code.group(1).strip()
        if _ONE_CASE.search(others) or KIND_OF_TESTS_WORD.search(others) or conditional(others) \
                or not runnable_as_written(command):
            continue
        if runs_the_suite(command) and not suite_taken:
            suite_taken = True
            found += [("test_command", command, offset)] + ([("verify", None, offset)] if must_pass else [])
        else:
            found.append(("run", command, offset))
    return found

