"""The OpenCode adapter against the pinned `opencode` binary and a scripted OpenAI-compatible
(Chat Completions) provider."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from instruction_gate.agents.conformance import opencode_instructions, run_live
from instruction_gate.agents.discovery_opencode import GLOBAL_AGENTS, GLOBAL_CLAUDE
from instruction_gate.agents.scripted_provider import Step
from tests.conftest import GitRepo

FAST_FAIL = {"stall_seconds": "0.5"}
SLOW = "sleep 60"


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    repo = GitRepo(tmp_path / "repo")
    repo.commit({"AGENTS.md": "Run the tests.\n", "CLAUDE.md": "Claude rules.\n", "calc.py": "x = 1\n"})
    return repo


def _sent(run, repo: GitRepo, home: Path) -> list[str]:
    """Every instruction file whose text reached the model, named as the adapter names them,
    each checked to arrive whole."""
    names: list[str] = []
    for request in run.requests:
        for path, text in opencode_instructions(request):
            real = Path(path)
            if real.is_relative_to(repo.path):
                name = real.relative_to(repo.path).as_posix()
            else:
                name = GLOBAL_CLAUDE if path.endswith("/.claude/CLAUDE.md") else GLOBAL_AGENTS
            if name not in names:
                source = repo.path / name if real.is_relative_to(repo.path) else (
                    home / ".claude" / "CLAUDE.md" if name == GLOBAL_CLAUDE else home / ".config/opencode/AGENTS.md")
                assert text.startswith(source.read_text()), (name, text[:200])
                names.append(name)
    return names


def test_tool_calls_edits_usage_and_instructions(opencode_bin, repo, tmp_path):
    run = run_live("opencode", opencode_bin, repo.path, [
        Step("tool", name="bash", args={"command": "echo hi; exit 3", "description": "x"},
             input_tokens=120, output_tokens=7),
        Step("tool", name="edit", args={"filePath": str(repo.path / "calc.py"), "oldString": "x = 1",
                                        "newString": "x = 2"}, input_tokens=150, cached_tokens=100, output_tokens=9),
        Step("tool", name="write", args={"filePath": str(repo.path / "new.py"), "content": "y = 1\n"}),
        Step("tool", name="edit", args={"filePath": str(repo.path / "calc.py"), "oldString": "absent",
                                        "newString": "z"}),
        Step("text", text="Fixed.", input_tokens=170, output_tokens=25)], tmp_path,
        options={"price_per_mtok": "1,0.5,10"})
    result = run.result
    assert result["status"] == "completed", run.stderr
    assert run.commands() == [("echo hi; exit 3", 3), ("edit calc.py", 0), ("write new.py", 0), ("edit calc.py", 1)]
    assert (repo.path / "calc.py").read_text() == "x = 2\n"
    assert [(e["path"], e.get("change")) for e in run.of_type("file_change")] == [("calc.py", "modify"),
                                                                                   ("new.py", "add")]
    assert result["tool_calls"] == 4 and result["final_message"] == "Fixed."
    # Usage: the agent loop's calls (OpenCode does not count its title call).
    steps = [r.step for r in run.requests]
    assert (result["input_tokens"], result["cached_input_tokens"], result["output_tokens"]) == (
        sum(s.input_tokens for s in steps), sum(s.cached_tokens for s in steps), sum(s.output_tokens for s in steps))
    uncached = result["input_tokens"] - result["cached_input_tokens"]
    assert result["provider_cost_usd"] == pytest.approx(
        (uncached * 1 + result["cached_input_tokens"] * 0.5 + result["output_tokens"] * 10) / 1e6)
    # AGENTS.md, not the CLAUDE.md fallback.
    assert result["instruction_sources"] == _sent(run, repo, tmp_path / "agent-home") == ["AGENTS.md"]
    assert result["instruction_bytes"] == {"AGENTS.md": len("Run the tests.\n")}
    assert result["provenance"]["harness_version"] == "1.18.33"
    assert "scripted-key" not in str([r.body for r in run.requests])
