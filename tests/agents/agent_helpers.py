"""Helpers for the agent adapter tests: transcripts and fake process results."""

from __future__ import annotations

from pathlib import Path

from instruction_gate.proc import ProcResult

TRANSCRIPTS = Path(__file__).resolve().parent.parent / "transcripts"
REPO_ROOT = Path(__file__).resolve().parents[2]


def transcript_lines(name: str, repo: Path) -> list[bytes]:
    text = (TRANSCRIPTS / name).read_text(encoding="utf-8").replace("/REPO", str(repo))
    return [line.encode() for line in text.splitlines()]


def exited(code: int = 0, stderr: str = "", timed_out: bool = False) -> ProcResult:
    return ProcResult(("agent",), code, "", stderr, 0.1, timed_out=timed_out)


def parse(parser, name: str, repo: Path, code: int = 0, stderr: str = ""):
    """Feed a whole transcript; return (events, failure)."""
    events = [e for line in transcript_lines(name, repo) for e in parser.feed(line)]
    tail, failure = parser.end_process(exited(code, stderr))
    return events + tail, failure

