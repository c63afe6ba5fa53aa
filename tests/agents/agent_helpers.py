"""Helpers for the agent adapter tests: transcripts and fake process results."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from instruction_gate import proc
from instruction_gate.proc import ProcResult

TRANSCRIPTS = Path(__file__).resolve().parent.parent / "transcripts"
REPO_ROOT = Path(__file__).resolve().parents[2]


def transcript_lines(name: str, repo: Path) -> list[bytes]:
    text = (TRANSCRIPTS / name).read_text(encoding="utf-8").replace("/REPO", str(repo))
    return [line.encode() for line in text.splitlines()]


def write(root: Path, rel: str, text: str) -> Path:
    """A file below `root`, its directories made."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def exited(code: int = 0, stderr: str = "", timed_out: bool = False) -> ProcResult:
    return ProcResult(("agent",), code, "", stderr, 0.1, timed_out=timed_out)


def parse(parser, name: str, repo: Path, code: int = 0, stderr: str = ""):
    """Feed a whole transcript; return (events, failure)."""
    events = [e for line in transcript_lines(name, repo) for e in parser.feed(line)]
    tail, failure = parser.end_process(exited(code, stderr))
    return events + tail, failure


STANDIN_SOURCE = Path(__file__).resolve().parent / "standin_cli.py"


def install_standins(bin_dir: Path, names=("codex", "claude")) -> None:
    """Copy the stand-in CLI into `bin_dir` under each name, runnable by this interpreter."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    body = STANDIN_SOURCE.read_text(encoding="utf-8")
    for name in names:
        target = bin_dir / name
        target.write_text(f"#!{sys.executable}\n{body}", encoding="utf-8")
        target.chmod(0o755)


def make_request(workspace: Path, repo: Path, agent_env: dict, turns=("Fix the rounding bug.",),
                 options=None, timeout_seconds: float = 120) -> dict:
    return {"schema_version": 1, "workspace": str(workspace), "repo_root": str(repo),
            "cwd": workspace.relative_to(repo).as_posix(), "prompt": turns[0], "turns": list(turns),
            "task_id": "fix-rounding", "variant": "candidate", "repeat": 0,
            "limits": {"timeout_seconds": timeout_seconds, "max_tool_calls": None,
                       "max_provider_cost_usd": None, "network": False},
            "agent_env": agent_env, "reference_solution": None, "adapter_options": options or {}}


def run_adapter(name: str, request: dict, env: dict, *args: str, timeout: float | None = 60):
    """Start adapters/<name> as the runner would; return (events, process result)."""
    result = proc.run([sys.executable, str(REPO_ROOT / "adapters" / name), *args], request["workspace"],
                      env=env, stdin=json.dumps(request), timeout=timeout)
    events = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    return events, result


def calls(log: Path) -> list[dict]:
    path = log / "calls.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def pid_gone(pid: int, patience: float = 10.0) -> bool:
    """True once `pid` has exited (zombies count as exited); polls, never asserts on time."""
    deadline = time.monotonic() + patience
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.05)
    return False
