"""Throughput of the Codex and Claude Code stream parsers on the recorded test transcripts.

Prints lines per second for each parser; a real agent prints a few thousand lines per run,
so parsing must stay negligible next to the agent itself.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from instruction_gate.agents.claude.stream import ClaudeStream  # noqa: E402
from instruction_gate.agents.codex.stream import CodexStream  # noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parent))
from figures import record  # noqa: E402

TRANSCRIPTS = Path(__file__).resolve().parent.parent / "tests" / "transcripts"
REPEATS = 2000


def measure(parser_class, name: str, repo: Path) -> tuple[int, float]:
    lines = [line.encode() for line in (TRANSCRIPTS / name).read_text().replace("/REPO", str(repo)).splitlines()]
    parser = parser_class(repo)
    started = time.perf_counter()
    for _ in range(REPEATS):
        for line in lines:
            parser.feed(line)
    return len(lines) * REPEATS, time.perf_counter() - started


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for parser_class, name in ((CodexStream, "codex_full.jsonl"), (ClaudeStream, "claude_full.jsonl")):
            count, seconds = measure(parser_class, name, Path(tmp))
            print(f"{parser_class.__name__:12} {count:8d} lines  {seconds:6.3f} s  {count / seconds:10.0f} lines/s")
            record(f"{parser_class.__name__}: lines per second", count / seconds, "lines/s", "higher")


if __name__ == "__main__":
    main()
