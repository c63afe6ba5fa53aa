"""The OpenCode adapter against the pinned `opencode` binary and a scripted OpenAI-compatible
(Chat Completions) provider."""

from __future__ import annotations

from pathlib import Path

import pytest

from instruction_gate.agents.conformance import opencode_instructions, run_live
from instruction_gate.agents.opencode.discovery import GLOBAL_AGENTS, GLOBAL_CLAUDE
from instruction_gate.agents.scripted_provider import Step
from tests.conftest import GitRepo
from tests.live_cli.conftest import assert_usage_matches_the_provider

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
    assert_usage_matches_the_provider(result, run.requests, prices_per_mtok=(1, 0.5, 10))
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
    # OpenCode's backoff (2 s doubling, 5 retries) outlasts the deadline: its log names the failed call.
    # The deadline leaves a loaded machine time to log the first refusal (before it, the open call
    # is all the log shows).
    run = run_live("opencode", opencode_bin, repo.path, [Step("status", status=429, times=0)], tmp_path, timeout=16,
                   options=FAST_FAIL)
    assert (run.result["failure_class"], run.result["failure_reason"]) == ("infrastructure", "rate_limited"), \
        run.stderr


@pytest.mark.parametrize("kind", ["garbage", "truncate", "hang_headers", "hang_body"])
def test_broken_or_hung_streams_are_infrastructure(opencode_bin, repo, tmp_path, kind):
    # The deadline leaves the CLI (2 s to start, far more on a loaded machine) time to wait past stall_seconds.
    run = run_live("opencode", opencode_bin, repo.path, [Step(kind, times=0)], tmp_path, options=FAST_FAIL,
                   timeout=14, hang_seconds=30)
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
    # The deadline leaves OpenCode's start-up room on a loaded machine: killed before the tool
    # starts, an answered model call still open past stall_seconds is rightly the provider's.
    run = run_live("opencode", opencode_bin, repo.path, [Step("tool", name="bash", args={
        "command": marker, "description": "wait"})], tmp_path, options=FAST_FAIL, timeout=15)
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


def _home(tmp: Path, config_agents: str | None = None, claude: str | None = None) -> Path:
    """A run's agent home with the user's global instruction files."""
    home = tmp / "agent-home"
    if config_agents is not None:
        (home / ".config" / "opencode").mkdir(parents=True)
        (home / ".config" / "opencode" / "AGENTS.md").write_text(config_agents)
    if claude is not None:
        (home / ".claude").mkdir(parents=True)
        (home / ".claude" / "CLAUDE.md").write_text(claude)
    return home


def test_discovery_matches_what_opencode_sends(opencode_bin, tmp_path):
    repo = GitRepo(tmp_path / "repo")
    repo.commit({"AGENTS.md": "Root agents.\n", "CLAUDE.md": "Root claude.\n", "AGENTS.local.md": "Local.\n",
                 "sub/CLAUDE.md": "Sub claude.\n", "sub/deep/AGENTS.md": "Deep agents.\n", "sub/deep/y.py": "y = 1\n",
                 "sub/z.py": "z = 1\n", "other/CONTEXT.md": "Context.\n", "other/w.py": "w = 1\n"})
    read = [Step("tool", name="read", args={"filePath": str(repo.path / p)}) for p in ("sub/deep/y.py", "sub/z.py")]
    runs = {}
    for cwd, homes in (("", ("Global agents.\n", "Global claude.\n")), ("sub/deep", (None, "Global claude.\n")),
                       ("sub", (None, None))):
        tmp = tmp_path / (cwd.replace("/", "-") or "root")
        home = _home(tmp, *homes)
        run = run_live("opencode", opencode_bin, repo.path, [*read, Step("text", text="ok")], tmp, cwd=cwd)
        assert run.result["status"] == "completed", run.stderr
        runs[cwd] = run.result["instruction_sources"]
        assert runs[cwd] == _sent(run, repo, home)
        assert all(run.result["instruction_bytes"][p] == (repo.path / p).stat().st_size for p in runs[cwd]
                   if not p.startswith("~"))
    # The global AGENTS.md shadows ~/.claude/CLAUDE.md; AGENTS.md shadows CLAUDE.md; reading in
    # sub/deep/ attaches that directory's first name and sub/'s CLAUDE.md; AGENTS.local.md never loads.
    assert runs[""] == [GLOBAL_AGENTS, "AGENTS.md", "sub/deep/AGENTS.md", "sub/CLAUDE.md"]
    # Every AGENTS.md from the cwd up, nearest first; ~/.claude/CLAUDE.md without a global AGENTS.md.
    assert runs["sub/deep"] == [GLOBAL_CLAUDE, "sub/deep/AGENTS.md", "AGENTS.md"]
    # Reading below the cwd attaches sub/deep/AGENTS.md; sub/CLAUDE.md is the cwd's, and not sent:
    # the project's name is AGENTS.md (found at the root).
    assert runs["sub"] == ["AGENTS.md", "sub/deep/AGENTS.md"]


def test_fallback_names_and_the_switch_that_drops_claude(opencode_bin, tmp_path):
    repo = GitRepo(tmp_path / "repo")
    repo.commit({"CLAUDE.md": "Root claude.\n", "sub/CONTEXT.md": "Sub context.\n", "empty/AGENTS.md": "",
                 "empty/CLAUDE.md": "Shadowed.\n"})
    results = {}
    for key, cwd, options in (("claude", "sub", {}), ("no-claude", "sub", {"claude_fallback": "false"}),
                              ("empty", "empty", {})):
        home = _home(tmp_path / key, claude="Global claude.\n")
        run = run_live("opencode", opencode_bin, repo.path, [Step("text", text="ok")], tmp_path / key, cwd=cwd,
                       options=options)
        assert run.result["status"] == "completed", run.stderr
        results[key] = run.result["instruction_sources"]
        assert results[key] == _sent(run, repo, home)
    assert results["claude"] == [GLOBAL_CLAUDE, "CLAUDE.md"]  # CLAUDE.md claims the name: sub/CONTEXT.md waits
    assert results["no-claude"] == ["sub/CONTEXT.md"]
    assert results["empty"] == [GLOBAL_CLAUDE]  # an empty AGENTS.md claims the name and sends nothing


def test_workspace_config_cannot_reconfigure_the_cli(opencode_bin, tmp_path):
    evil = '{"instructions": ["EVIL.md"], "plugin": ["file://./p.js"]}'
    repo = GitRepo(tmp_path / "repo")
    repo.commit({"AGENTS.md": "Rules.\n", "EVIL.md": "Evil.\n", "opencode.json": evil})
    run = run_live("opencode", opencode_bin, repo.path, [Step("text", text="ok")], tmp_path / "present")
    assert (run.result["failure_class"], run.result["failure_reason"]) == ("agent", "agent_error")
    assert not run.requests and run.result["instruction_sources"] == []
    # Written by the agent during the run: the next turn is refused.
    (repo.path / "opencode.json").unlink()
    write = f"mkdir -p .opencode && printf '%s' '{evil}' > .opencode/opencode.json"
    run = run_live("opencode", opencode_bin, repo.path, [
        Step("tool", name="bash", args={"command": write, "description": "x"}), Step("text", text="one")],
        tmp_path / "written", turns=("one", "two"))
    assert (run.result["failure_class"], run.result["failure_reason"]) == ("agent", "agent_error"), run.stderr
    assert len(run.requests) == 2 and "Evil." not in str([r.body for r in run.requests])
    # Trusted: OpenCode loads the project's instructions.
    run = run_live("opencode", opencode_bin, repo.path, [Step("text", text="ok")], tmp_path / "trusted",
                   options={"workspace_settings": "trust"})
    assert "Evil." in str(run.requests[0].body["messages"][0])


def test_secrets_stay_out_of_the_request(opencode_bin, repo, tmp_path):
    run = run_live("opencode", opencode_bin, repo.path, [
        Step("tool", name="bash", args={"command": "env | grep -c SECRET_TOKEN; exit 0", "description": "x"}),
        Step("text", text="ok")], tmp_path, runner_env={"SECRET_TOKEN": "runner-secret-123"})
    assert run.result["status"] == "completed", run.stderr
    assert "runner-secret-123" not in str([r.body for r in run.requests] + [r.headers for r in run.requests])
    assert "scripted-key" not in str([r.body for r in run.requests])
