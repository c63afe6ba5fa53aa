"""Proof that a pytest check ran its tests, not only that it exited 0.

A check imports the agent's code into the test runner's own process, so that code can end the
process with status 0 before a single test ran (`os._exit(0)` in a module, a package's
`__init__.py`, a plugin) or turn a failing status into 0 at exit. No file rule can stop that.
For a check that runs pytest, the gate therefore asks pytest for a JUnit XML report in a
directory outside the workspace and counts the check as passed only when the process exited 0
*and* the report exists and shows at least one test run with no failure or error. Code that
forges the report on purpose is still possible (it runs in the same process); this removes the
blunt ways, and the agent's patch, which a reviewer reads, shows the rest.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

#: Bytes of a report read at most (a report is a few KB per hundred tests).
MAX_REPORT_BYTES = 32 * 1024 * 1024
_PYTEST_PROGRAMS = ("pytest", "py.test")


def runs_pytest(argv: Sequence[str]) -> bool:
    """`pytest ...`, `py.test ...`, `python -m pytest ...` (any python)."""
    if not argv:
        return False
    program = os.path.basename(argv[0])
    if program in _PYTEST_PROGRAMS:
        return True
    return program.startswith("python") and len(argv) > 2 and argv[1] == "-m" and argv[2] == "pytest"


def with_report(argv: Sequence[str], report: Path) -> list[str]:
    """`argv` asking pytest for a JUnit report at `report` (a command-line option: it wins over
    any `--junitxml` in the project's addopts)."""
    return [*argv, f"--junitxml={report}"]


@dataclass(frozen=True)
class ReportCounts:
    """What a pytest check's JUnit report says (run.json `checks[].tests`)."""

    tests: int
    failures: int
    errors: int
    skipped: int

    def as_record(self) -> dict[str, int]:
        return {"tests": self.tests, "failures": self.failures, "errors": self.errors, "skipped": self.skipped}


def read_counts(report: Path) -> ReportCounts | None:
    """The report's totals over its test suites; None when there is no readable report."""
    try:
        if not report.is_file() or report.is_symlink() or report.stat().st_size > MAX_REPORT_BYTES:
            return None
        root = ElementTree.parse(report).getroot()
    except (OSError, ElementTree.ParseError):
        return None
    suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
    if not suites:
        return None
    total = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for suite in suites:
        for name in total:
            try:
                total[name] += int(suite.get(name, "0"))
            except ValueError:
                return None
    return ReportCounts(**total)


def unproven(counts: ReportCounts | None) -> str | None:
    """Why an exit status 0 does not count as passing, or None when the report backs it."""
    if counts is None:
        return "exited 0 without the test report pytest writes at the end: it never finished its run"
    if counts.failures or counts.errors:
        return f"exited 0 though its report shows {counts.failures} failure(s) and {counts.errors} error(s)"
    if counts.tests - counts.skipped <= 0:
        return "exited 0 without running a test"
    return None
