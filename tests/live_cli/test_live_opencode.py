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


def test_session_continues_and_counts_each_process_once(opencode_bin, repo, tmp_path):
    run = run_live("opencode", opencode_bin, repo.path, [
        Step("tool", name="bash", args={"command": "echo one", "description": "one"}), Step("text", text="a"),
        Step("tool", name="bash", args={"command": "echo two", "description": "two"}), Step("text", text="b")],
        tmp_path, turns=("one", "-two"))
    assert run.result["status"] == "completed", run.stderr
    assert run.commands() == [("echo one", 0), ("echo two", 0)]
    assert [e["turn"] for e in run.of_type("tool")] == [0, 1]
    # The second process continued the first one's conversation; a prompt may start with "-".
    assert len(run.requests) == 4 and "echo one" in str(run.requests[2].body["messages"])
    assert "-two" in str(run.requests[2].body["messages"][-1])
    assert (run.result["input_tokens"], run.result["output_tokens"]) == (400, 40)


@pytest.mark.parametrize("status, reason", [(429, "rate_limited"), (500, "provider_error"), (503, "provider_error"),
                                            (401, "auth_failed")])
def test_provider_errors_are_infrastructure(opencode_bin, repo, tmp_path, status, reason):
    run = run_live("opencode", opencode_bin, repo.path, [Step("status", status=status, times=0, retry_after_ms=10)],
                   tmp_path, options=FAST_FAIL)
    assert (run.result["failure_class"], run.result["failure_reason"]) == ("infrastructure", reason), run.stderr


def test_retries_past_the_deadline_are_still_infrastructure(opencode_bin, repo, tmp_path):
    # OpenCode's backoff (2 s doubling, 5 retries) outlasts the deadline: killed waiting on the model.
    run = run_live("opencode", opencode_bin, repo.path, [Step("status", status=429, times=0)], tmp_path, timeout=7,
                   options=FAST_FAIL)
    assert (run.result["failure_class"], run.result["failure_reason"]) == ("infrastructure", "provider_error"), \
        run.stderr


@pytest.mark.parametrize("kind", ["garbage", "truncate", "hang_headers", "hang_body"])
def test_broken_or_hung_streams_are_infrastructure(opencode_bin, repo, tmp_path, kind):
    run = run_live("opencode", opencode_bin, repo.path, [Step(kind, times=0)], tmp_path, options=FAST_FAIL,
                   timeout=6, hang_seconds=30)
    assert (run.result["failure_class"], run.result["failure_reason"]) == ("infrastructure", "provider_error"), \
        (run.result, run.stderr)


def test_context_overflow_is_the_agents(opencode_bin, repo, tmp_path):
    run = run_live("opencode", opencode_bin, repo.path, [Step(
        "status", status=400, times=0, message="This model's maximum context length is 1000 tokens.")],
        tmp_path, options=FAST_FAIL)
    assert (run.result["failure_class"], run.result["failure_reason"]) == ("agent", "agent_error"), run.stderr
    assert len(run.requests) == 1  # no compaction loop


def test_step_limit_is_advisory(opencode_bin, repo, tmp_path):
    run = run_live("opencode", opencode_bin, repo.path, [
        Step("tool", name="bash", args={"command": "echo one", "description": "one"}),
        Step("tool", name="bash", args={"command": "echo two", "description": "two"}), Step("text", text="last")],
        tmp_path, options={"max_steps": "1"})
    # OpenCode tells the model to stop but keeps its tools: a model that goes on is not stopped.
    assert "MAXIMUM STEPS REACHED" in str(run.requests[0].body["messages"])
    assert run.result["status"] == "completed" and run.commands() == [("echo one", 0), ("echo two", 0)]


def test_lost_session_on_continue(opencode_bin, repo, tmp_path):
    run = run_live("opencode", opencode_bin, repo.path, [
        Step("tool", name="bash", args={"command": 'rm -rf "$XDG_DATA_HOME/opencode"', "description": "x"}),
        Step("text", text="first")], tmp_path, turns=("one", "two"))
    assert (run.result["failure_class"], run.result["failure_reason"]) == ("infrastructure", "session_lost"), \
        (run.result, run.stderr)


def test_a_tool_running_past_the_deadline_is_the_agents_timeout_and_leaves_nothing(opencode_bin, repo, tmp_path):
    marker = "sleep 61.25"
    run = run_live("opencode", opencode_bin, repo.path, [Step("tool", name="bash", args={
        "command": marker, "description": "wait"})], tmp_path, options=FAST_FAIL, timeout=7)
    assert (run.result["failure_class"], run.result["failure_reason"]) == ("agent", "timeout"), run.stderr
    # The CLI, its server and the tool's shell were killed with their process group.
    left = [p for p in Path("/proc").iterdir() if p.name.isdigit() and marker.encode() in _cmdline(p)]
    assert left == [], [(p, (p / "stat").read_text()) for p in left]


def _cmdline(proc: Path) -> bytes:
    try:
        return (proc / "cmdline").read_bytes().replace(b"\0", b" ")
    except OSError:
        return b""


def test_cli_not_found_is_infrastructure(repo, tmp_path):
    run = run_live("opencode", tmp_path / "no-such-opencode", repo.path, [], tmp_path)
    assert (run.result["failure_class"], run.result["failure_reason"]) == ("infrastructure", "cli_not_found")
    assert run.result["instruction_sources"] == []
