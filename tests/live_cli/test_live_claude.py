"""The Claude Code adapter against the pinned `claude` binary and a scripted Messages API provider."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from instruction_gate.agents.scripted_provider import Step
from tests.conftest import GitRepo
from instruction_gate.agents.conformance import claude_memory, run_live

FAST_FAIL = {"max_retries": "0", "request_timeout_seconds": "4"}
#: A command still running at the deadline (Claude Code refuses a bare long `sleep`).
SLOW = "python3 -c 'import time; time.sleep(60)'"


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    repo = GitRepo(tmp_path / "repo")
    repo.commit({"CLAUDE.md": "Run the tests. Conventions live in @AGENTS.md.\nStyle: @docs/style.md\n",
                 "AGENTS.md": "Agents.\n", "docs/style.md": "Style.\n", "calc.py": "x = 1\n"})
    return repo


def test_tool_call_edit_usage_and_memory(claude_bin, repo, tmp_path):
    run = run_live("claude", claude_bin, repo.path, [
        Step("tool", name="Bash", args={"command": "echo hi", "description": "greet"}, input_tokens=120,
             output_tokens=7),
        Step("tool", name="Edit", args={"file_path": str(repo.path / "calc.py"), "old_string": "x = 1",
                                        "new_string": "x = 2"}, input_tokens=150, cached_tokens=100,
             output_tokens=9),
        Step("text", text="Fixed.", input_tokens=170, output_tokens=25)], tmp_path,
        options={"allowed_tools": "Bash,Read,Edit"})
    result = run.result
    assert result["status"] == "completed", run.stderr
    assert ("echo hi", 0) in run.commands()
    # Claude Code reads a file before editing it; the edit lands either way.
    assert (repo.path / "calc.py").read_text() == "x = 2\n"
    assert [(e["path"], e.get("change")) for e in run.of_type("file_change")] == [("calc.py", "modify")]
    assert result["tool_calls"] == len(run.of_type("tool")) >= 2
    # Tokens are what the provider sent in full (message_delta), not message_start's stub.
    # Side calls (titles and the like) are model calls too and count; input includes cache reads.
    assert (result["input_tokens"], result["cached_input_tokens"], result["output_tokens"]) == (
        sum(r.step.input_tokens + r.step.cached_tokens for r in run.answered), sum(r.step.cached_tokens for r in run.answered),
        sum(r.step.output_tokens for r in run.answered))
    # `@AGENTS.md.` (trailing period) is not an import the CLI resolves; `@docs/style.md` is.
    sent = [(Path(path).relative_to(repo.path).as_posix(), text) for path, text in claude_memory(run.requests[0])]
    assert result["instruction_sources"] == [p for p, _ in sent] == ["CLAUDE.md", "docs/style.md"]
    for path, text in sent:
        assert text.strip() == (repo.path / path).read_text().strip()


def test_resume_counts_the_session_once(claude_bin, repo, tmp_path):
    one = run_live("claude", claude_bin, repo.path, [Step("text", text="a"), Step("text", text="b")], tmp_path / "1",
                   turns=("one",))
    two = run_live("claude", claude_bin, repo.path, [Step("text", text="a"), Step("text", text="b")], tmp_path / "2",
                   turns=("one", "two"))
    assert two.result["status"] == "completed", two.stderr
    assert len(two.requests) == 2
    assert (two.result["input_tokens"], two.result["output_tokens"]) == (200, 20)
    assert two.result["provider_cost_usd"] == pytest.approx(2 * one.result["provider_cost_usd"])


@pytest.mark.parametrize("status, reason", [(429, "rate_limited"), (500, "provider_error"),
                                            (529, "provider_error"), (401, "auth_failed")])
def test_provider_errors_are_infrastructure(claude_bin, repo, tmp_path, status, reason):
    run = run_live("claude", claude_bin, repo.path, [Step("status", status=status, times=0)], tmp_path,
                   options=FAST_FAIL)
    assert (run.result["failure_class"], run.result["failure_reason"]) == ("infrastructure", reason), run.stderr


def test_retries_past_the_deadline_are_still_infrastructure(claude_bin, repo, tmp_path):
    # The CLI's own retry budget outlasts the deadline: the adapter kills it, and its api_retry
    # events say why it never finished.
    run = run_live("claude", claude_bin, repo.path, [Step("status", status=529, times=0)], tmp_path, timeout=8,
                   options={"max_retries": "10"})
    assert (run.result["failure_class"], run.result["failure_reason"]) == ("infrastructure", "provider_error"), \
        run.stderr


@pytest.mark.parametrize("kind", ["garbage", "truncate", "hang_headers", "hang_body"])
def test_broken_or_hung_streams_are_infrastructure(claude_bin, repo, tmp_path, kind):
    run = run_live("claude", claude_bin, repo.path, [Step(kind, times=0)], tmp_path, options=FAST_FAIL,
                   timeout=12, hang_seconds=30)
    assert run.result["failure_class"] == "infrastructure", (run.result, run.stderr)


def test_context_overflow_is_the_agents(claude_bin, repo, tmp_path):
    run = run_live("claude", claude_bin, repo.path, [
        Step("status", status=400, message="prompt is too long: 250000 tokens > 200000 maximum", times=0)],
        tmp_path, options=FAST_FAIL)
    assert (run.result["failure_class"], run.result["failure_reason"]) == ("agent", "agent_error"), run.stderr


def test_max_turns_stop_leaves_the_last_tool_unrun(claude_bin, repo, tmp_path):
    run = run_live("claude", claude_bin, repo.path, [
        Step("tool", name="Bash", args={"command": "echo one"}), Step("tool", name="Bash", args={"command": "echo two"}),
        Step("text", text="never")], tmp_path, options={"max_turns": "1"})
    assert (run.result["status"], run.result["failure_reason"]) == ("max_turns", "max_turns"), run.stderr
    ran = [c for c, _ in run.commands()]
    assert "echo two" not in ran and run.result["tool_calls"] == len(ran)


def test_lost_session_on_resume(claude_bin, repo, tmp_path):
    run = run_live("claude", claude_bin, repo.path, [
        Step("tool", name="Bash", args={"command": "python3 -c 'import os, shutil; "
                                                   "p = os.path.expanduser(\"~/.claude/projects\"); "
                                                   "shutil.rmtree(p); open(p, \"w\").close()'"}),
        Step("text", text="first")], tmp_path, turns=("one", "two"))
    assert (run.result["failure_class"], run.result["failure_reason"]) == ("infrastructure", "session_lost"), \
        (run.result, run.stderr)


def test_rules_hops_and_scope_match_what_claude_sends(claude_bin, tmp_path):
    repo = GitRepo(tmp_path / "repo")
    repo.commit({"CLAUDE.md": "Root @docs/x.md and @h1.md\n", "docs/x.md": "x\n",
                 "h1.md": "@h2.md\n", "h2.md": "@h3.md\n", "h3.md": "@h4.md\n", "h4.md": "@h5.md\n", "h5.md": "5\n",
                 ".claude/rules/a.md": "rule a\n", ".claude/rules/deep/b.md": "rule b\n",
                 ".claude/rules/scoped.md": "---\npaths: src/**\n---\nscoped\n",
                 "sub/CLAUDE.md": "Sub @local.md @../docs/x.md\n", "sub/local.md": "local\n",
                 "sub/.claude/rules/s.md": "rule s\n", "sub/CLAUDE.local.md": "mine\n"})
    for cwd in ("", "sub"):
        run = run_live("claude", claude_bin, repo.path, [Step("text", text="ok")], tmp_path / (cwd or "root"),
                       cwd=cwd)
        sent = [Path(p).relative_to(repo.path).as_posix() for p, _ in claude_memory(run.requests[0])]
        assert run.result["instruction_sources"] == sent
        assert "h5.md" not in sent and ".claude/rules/scoped.md" not in sent
        assert ("docs/x.md" in sent) == (cwd == "")  # imports outside the cwd stay text


def test_a_tool_running_past_the_deadline_is_the_agents_timeout(claude_bin, repo, tmp_path):
    run = run_live("claude", claude_bin, repo.path, [Step("tool", name="Bash", args={"command": SLOW})],
                   tmp_path, options=FAST_FAIL, timeout=10)
    assert (run.result["failure_class"], run.result["failure_reason"]) == ("agent", "timeout"), run.stderr
    assert SLOW in [command for command, _ in run.commands()]


def test_a_memory_file_linked_out_of_the_repository_is_reported(claude_bin, tmp_path):
    # The provider's request is the truth: the CLI follows the link, sends what is there, and
    # resolves its imports from the target's directory (`@inside.md` finds nothing there).
    outside = tmp_path / "elsewhere" / "notes.md"
    outside.parent.mkdir()
    outside.write_text("Outside text QWERTY. See @inside.md and @../repo/sub/two.md\n")
    repo = GitRepo(tmp_path / "repo")
    repo.commit({"CLAUDE.md": "Root rules.\n", "sub/inside.md": "Inside.\n", "sub/two.md": "Two.\n",
                 "docs/main.md": "Main @x.md\n", "docs/x.md": "docs x\n", "sub/x.md": "sub x\n"})
    (repo.path / "sub" / "CLAUDE.md").symlink_to(outside)
    (repo.path / "sub" / "CLAUDE.local.md").symlink_to("../docs/main.md")  # inside: imports beside docs/main.md
    run = run_live("claude", claude_bin, repo.path, [Step("text", text="ok")], tmp_path / "run", cwd="sub")
    assert run.result["status"] == "completed", run.stderr
    sent = [(Path(p).relative_to(repo.path).as_posix(), text) for p, text in claude_memory(run.requests[0])]
    assert any("QWERTY" in text for _, text in sent)
    assert run.result["instruction_sources"] == [p for p, _ in sent]
    assert "sub/CLAUDE.md" in run.result["instruction_sources"]
    assert run.result["instruction_bytes"]["sub/CLAUDE.md"] == len(outside.read_bytes())


def test_memory_files_above_the_repository_are_reported(claude_bin, tmp_path):
    # The CLI walks up to `/`: each directory above the root gives the same files as one inside.
    for path, text in {"CLAUDE.md": "Parent.\n", ".claude/CLAUDE.md": "Parent dot.\n",
                       ".claude/rules/r.md": "Parent rule.\n", "CLAUDE.local.md": "Parent local.\n"}.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    repo = GitRepo(tmp_path / "repo")
    repo.commit({"CLAUDE.md": "Root.\n", "sub/k.txt": "k\n"})
    run = run_live("claude", claude_bin, repo.path, [Step("text", text="ok")], tmp_path / "run", cwd="sub")
    assert run.result["status"] == "completed", run.stderr
    sent = [Path(os.path.relpath(p, repo.path)).as_posix() for p, _ in claude_memory(run.requests[0])]
    assert run.result["instruction_sources"] == sent
    assert sent[:4] == ["../CLAUDE.md", "../.claude/CLAUDE.md", "../.claude/rules/r.md", "../CLAUDE.local.md"]
