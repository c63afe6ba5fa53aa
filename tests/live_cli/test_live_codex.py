"""The Codex adapter against the pinned `codex` binary and a scripted Responses API provider."""

from __future__ import annotations

from pathlib import Path

import pytest

from instruction_gate.agents.scripted_provider import Step
from tests.conftest import GitRepo
from instruction_gate.agents.conformance import codex_instructions, run_live

PATCH = "*** Begin Patch\n*** Update File: calc.py\n@@\n-x = 1\n+x = 2\n*** End Patch"
#: A command still running at the deadline (Claude Code refuses a bare long `sleep`).
SLOW = "python3 -c 'import time; time.sleep(60)'"


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    repo = GitRepo(tmp_path / "repo")
    repo.commit({"AGENTS.md": "Root: run `pytest`.\n", "pkg/calc.py": "x = 1\n",
                 "pkg/AGENTS.md": "Package rules.\n", "pkg/AGENTS.override.md": "Override wins.\n"})
    return repo


def test_tool_call_file_edit_and_instructions(codex_bin, repo, tmp_path):
    run = run_live("codex", codex_bin, repo.path, [
        Step("tool", name="shell", args={"command": "echo hi"}, input_tokens=120, output_tokens=7),
        Step("tool", name="apply_patch", args={"patch": PATCH}, input_tokens=150, cached_tokens=100,
             output_tokens=9),
        Step("text", text="Fixed.", input_tokens=170, output_tokens=5)], tmp_path, cwd="pkg")
    result = run.result
    assert result["status"] == "completed", run.stderr
    assert ("echo hi", 0) in run.commands()
    assert [(e["path"], e.get("change")) for e in run.of_type("file_change")] == [("pkg/calc.py", "modify")]
    assert (repo.path / "pkg/calc.py").read_text() == "x = 2\n"
    assert result["tool_calls"] == 2
    assert (result["input_tokens"], result["cached_input_tokens"], result["output_tokens"]) == (440, 100, 21)
    assert result["final_message"] == "Fixed."
    # What the adapter says reached the model is what did, in order and in bytes.
    sources = result["instruction_sources"]
    assert sources == ["AGENTS.md", "pkg/AGENTS.override.md"]
    sent = codex_instructions(run.requests[0])
    assert sent == "\n\n".join((repo.path / p).read_text() for p in sources)
    assert result["instruction_bytes"] == {p: (repo.path / p).stat().st_size for p in sources}


@pytest.mark.parametrize("status, reason", [(429, "rate_limited"), (500, "provider_error"),
                                            (529, "provider_error"), (401, "auth_failed")])
def test_provider_errors_are_infrastructure(codex_bin, repo, tmp_path, status, reason):
    run = run_live("codex", codex_bin, repo.path, [Step("status", status=status, times=0)], tmp_path)
    assert (run.result["failure_class"], run.result["failure_reason"]) == ("infrastructure", reason), run.stderr


@pytest.mark.parametrize("kind", ["garbage", "truncate"])
def test_broken_streams_are_infrastructure(codex_bin, repo, tmp_path, kind):
    run = run_live("codex", codex_bin, repo.path, [Step(kind, times=0)], tmp_path)
    assert (run.result["failure_class"], run.result["failure_reason"]) == ("infrastructure", "provider_error"), \
        run.stderr


def test_context_overflow_is_the_agents(codex_bin, repo, tmp_path):
    run = run_live("codex", codex_bin, repo.path, [
        Step("status", status=400, message="Your input exceeds the context window of this model.", times=0)],
        tmp_path)
    assert (run.result["failure_class"], run.result["failure_reason"]) == ("agent", "agent_error"), run.stderr


@pytest.mark.parametrize("kind", ["hang_headers", "hang_body"])
def test_a_hung_provider_is_infrastructure(codex_bin, repo, tmp_path, kind):
    run = run_live("codex", codex_bin, repo.path, [Step(kind, times=0)], tmp_path, timeout=12,
                   options={"stream_idle_seconds": "3"}, hang_seconds=30)
    assert run.result["failure_class"] == "infrastructure", (run.result, run.stderr)
    assert run.result["failure_reason"] == "provider_error"


def _sources_match_request(run, repo: Path, home: Path) -> None:
    """instruction_sources/bytes name exactly the bytes the provider received, in order."""
    sources, sizes = run.result["instruction_sources"], run.result["instruction_bytes"]
    project = [p for p in sources if not p.startswith("$CODEX_HOME/")]
    texts = [(repo / p).read_bytes()[:sizes[p]].decode() for p in project]
    sent = codex_instructions(run.requests[0])
    assert sent is not None
    global_docs = [p for p in sources if p.startswith("$CODEX_HOME/")]
    if global_docs:  # Codex sends the global file first, then a separator, then the project's
        assert global_docs == sources[:1]
        head, sent = sent.split("\n\n--- project-doc ---\n\n", 1)
        assert head == (home / ".codex" / global_docs[0].split("/", 1)[1]).read_text().strip()
        assert sizes[global_docs[0]] == len(head.encode())
    assert sent.replace("\ufffd", "") == "\n\n".join(texts)


def test_discovery_matches_what_codex_sends(codex_bin, tmp_path):
    repo = GitRepo(tmp_path / "repo")
    repo.commit({"AGENTS.md": "Root.\n", "a/AGENTS.md": "A rules.\n", "a/b/AGENTS.md": "B rules.\n",
                 "a/b/c/AGENTS.md": "é" * 40 + "\n"})
    (repo.path / "a" / "AGENTS.override.md").symlink_to("missing.md")  # dangling: passed over
    (repo.path / "a" / "b" / "AGENTS.override.md").mkdir()  # a directory: passed over
    home = tmp_path / "agent-home"
    (home / ".codex").mkdir(parents=True)
    (home / ".codex" / "AGENTS.md").write_text("Global preferences of this machine.\n")
    # 6 + 9 + 9 bytes of the first three files, then the budget cuts inside an "é" (2 bytes).
    run = run_live("codex", codex_bin, repo.path, [Step("text", text="ok")], tmp_path, cwd="a/b/c",
                   options={"doc_budget_bytes": str(6 + 9 + 9 + 21)})
    assert run.result["instruction_sources"] == ["$CODEX_HOME/AGENTS.md", "AGENTS.md", "a/AGENTS.md",
                                                 "a/b/AGENTS.md", "a/b/c/AGENTS.md"]
    assert run.result["instruction_bytes"]["a/b/c/AGENTS.md"] == 20
    _sources_match_request(run, repo.path, home)


def test_chain_starts_at_the_nearest_git_directory(codex_bin, tmp_path):
    repo = GitRepo(tmp_path / "repo")
    repo.commit({"AGENTS.md": "Outer.\n"})
    inner = GitRepo(repo.path / "vendor" / "lib")
    inner.commit({"AGENTS.md": "Inner.\n"})
    run = run_live("codex", codex_bin, repo.path, [Step("text", text="ok")], tmp_path, cwd="vendor/lib")
    assert run.result["instruction_sources"] == ["vendor/lib/AGENTS.md"]
    _sources_match_request(run, repo.path, tmp_path / "agent-home")


def test_lost_session_on_resume(codex_bin, repo, tmp_path):
    # The first turn deletes the session files; `codex exec resume` then cannot find the thread.
    run = run_live("codex", codex_bin, repo.path, [
        Step("tool", name="shell", args={"command": "python3 -c 'import os, shutil; "
                                                    "shutil.rmtree(os.environ[\"CODEX_HOME\"] + \"/sessions\")'"}),
        Step("text", text="first")], tmp_path, turns=("one", "two"))
    assert (run.result["failure_class"], run.result["failure_reason"]) == ("infrastructure", "session_lost"), \
        run.stderr


def test_commands_codex_refuses_are_reported(codex_bin, repo, tmp_path):
    run = run_live("codex", codex_bin, repo.path, [
        Step("tool", name="shell", args={"command": "rm -rf build"}), Step("text", text="ok")], tmp_path)
    assert run.commands() == [("rm -rf build", None)]
    denied = [e for e in run.events if e.get("name") == "permission_denied"]
    assert [e["command"] for e in denied] == ["rm -rf build"] and "not permitted" in denied[0]["reason"]
    assert run.result["tool_calls"] == 1


def test_a_command_running_past_the_deadline_is_the_agents_timeout(codex_bin, repo, tmp_path):
    run = run_live("codex", codex_bin, repo.path, [Step("tool", name="shell", args={"command": SLOW})],
                   tmp_path, timeout=10)
    assert (run.result["failure_class"], run.result["failure_reason"]) == ("agent", "timeout"), run.stderr
    assert SLOW in [command for command, _ in run.commands()]
