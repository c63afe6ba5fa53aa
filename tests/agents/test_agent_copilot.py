"""Copilot CLI pieces that need no binary: `--output-format json` transcripts and a session
record recorded from the pinned 1.0.102 against the scripted provider, failure classes,
discovery edge cases and the private home's environment."""

from __future__ import annotations

import shutil

import pytest
from agent_helpers import TRANSCRIPTS, exited, parse, transcript_lines, write

from instruction_gate.agents.copilot.discovery import (GLOBAL_INSTRUCTIONS, applies_everywhere, copilot_sources,
                                                       copilot_start, lazy_files)
from instruction_gate.agents.copilot.home import CopilotHome, usage_records
from instruction_gate.agents.copilot.stream import CopilotStream


def _usage(tmp_path):
    record = tmp_path / "events.jsonl"
    shutil.copy(TRANSCRIPTS / "copilot_session_events.jsonl", record)
    return lambda session: usage_records(record)


def test_full_transcript(tmp_path):
    parser = CopilotStream(tmp_path, usage_source=_usage(tmp_path), prices_per_mtok=(1.0, 0.5, 10.0))
    events, failure = parse(parser, "copilot_full.jsonl", tmp_path)
    assert failure is None
    assert [(e["command"], e.get("exit_code")) for e in events if e["type"] == "tool"] == [
        ("echo hi; exit 3", 3), ("view sub/calc.py", 0), ("view other/o.txt", 0), ("view sub/deep/x.txt", 0),
        ("skill gskill", 0)]
    assert parser.final_message == "Done now." and parser.model == "scripted"
    assert parser.session_id == "f79f0783-4e7a-4294-a9df-ee515b43e871"
    # What the stream says reached the model after the start, in order; the skill it invoked.
    assert parser.discovered == [".github/instructions/py.instructions.md", "other/AGENTS.md", "sub/deep/AGENTS.md"]
    assert parser.skills_invoked == ["gskill"]
    assert parser.touched_paths == ["sub/calc.py", "other/o.txt", "sub/deep/x.txt"]
    # Six model calls of 100 input and 10 output tokens each, from the session record.
    assert (parser.usage.input_tokens, parser.usage.cached_input_tokens, parser.usage.output_tokens) == (600, 0, 60)
    assert parser.cost_usd == pytest.approx((600 * 1 + 60 * 10) / 1e6)


def test_a_resumed_process_counts_only_new_calls(tmp_path):
    parser = CopilotStream(tmp_path, usage_source=_usage(tmp_path))
    parse(parser, "copilot_full.jsonl", tmp_path)
    parser.begin_turn(1)
    parser.end_process(exited(0))  # the same record read again: every call already counted
    assert parser.usage.input_tokens == 600


@pytest.mark.parametrize("name, reason", [
    ("copilot_auth.jsonl", "auth_failed"), ("copilot_garbage.jsonl", "provider_error"),
    ("copilot_context_overflow.jsonl", "agent_error")])
def test_error_events(tmp_path, name, reason):
    _, failure = parse(CopilotStream(tmp_path), name, tmp_path, code=1)
    assert failure.reason == reason


def test_killed_while_retrying_is_classified_by_the_last_status(tmp_path):
    # The transcript ends as a kill leaves it: the call cancelled, `abort`, a result with exit 0.
    parser = CopilotStream(tmp_path, stall_seconds=600)
    for line in transcript_lines("copilot_rate_limited.jsonl", tmp_path):
        parser.feed(line)
    assert parser.end_process(exited(None, timed_out=True))[1] is None
    assert parser.timeout_failure("killed").reason == "rate_limited"


def test_a_hung_call_and_a_running_tool_decide_a_timeout(tmp_path):
    hung = CopilotStream(tmp_path, stall_seconds=0)
    hung.feed(b'{"type":"model.call_start","data":{"turnId":"0"}}')
    hung.feed(b'{"type":"model.call_finished","data":{"turnId":"0","outcome":"cancelled"}}')
    hung.end_process(exited(None, timed_out=True))
    assert hung.timeout_failure("killed").reason == "provider_error"
    busy = CopilotStream(tmp_path, stall_seconds=0)
    busy.feed(b'{"type":"model.call_start","data":{}}')
    busy.feed(b'{"type":"model.call_finished","data":{"outcome":"success"}}')
    busy.feed(b'{"type":"tool.execution_start","data":{"toolCallId":"c1","toolName":"bash",'
              b'"arguments":{"command":"sleep 60"}}}')
    events, _ = busy.end_process(exited(None, timed_out=True))
    assert [(e["command"], e.get("exit_code")) for e in events] == [("sleep 60", None)]
    assert busy.timeout_failure("killed").reason == "timeout"


def test_refused_calls_lost_sessions_and_silent_exits(tmp_path):
    parser = CopilotStream(tmp_path)
    parser.feed(b'{"type":"tool.execution_start","data":{"toolCallId":"c1","toolName":"bash",'
                b'"arguments":{"command":"rm x"}}}')
    events = parser.feed(b'{"type":"tool.execution_complete","data":{"toolCallId":"c1","success":false,'
                         b'"error":{"message":"denied by `shell(rm)`","code":"denied"}}}')
    assert events[0]["refused"] == "denied by `shell(rm)`" and "exit_code" not in events[0]
    assert events[1]["name"] == "permission_denied" and events[1]["command"] == "rm x"
    lost = CopilotStream(tmp_path).end_process(exited(1, "Error: No session, task, or name matched 'abc'."))[1]
    assert lost.reason == "session_lost"
    # Exit 0 without a result event: never a success.
    assert CopilotStream(tmp_path).end_process(exited(0))[1].reason == "zero_turns"


def test_start_up_order_and_text(tmp_path):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    for path in (".github/copilot-instructions.md", "AGENTS.md", "CLAUDE.md", "GEMINI.md", "a/AGENTS.md",
                 "a/.github/copilot-instructions.md", "a/b/CLAUDE.md", "a/b/.github/copilot-instructions.md"):
        write(repo, path, path + "\n")
    write(repo, "GEMINI.md", "\ufeffbom\r\n")
    write(repo, ".github/instructions/all.instructions.md", "---\napplyTo: '**'\n---\nall\n")
    write(repo, ".github/instructions/py.instructions.md", "---\napplyTo: '**/*.py'\n---\npy\n")
    write(repo, ".github/instructions/sub/plain.instructions.md", "plain\n")
    write(repo, "a/.github/instructions/mid.instructions.md", "between: not read\n")
    home = tmp_path / "home"
    write(home, "copilot-instructions.md", "mine\n")
    files = copilot_start(repo, "a/b", global_dir=home)
    assert [f.path for f in files] == [
        GLOBAL_INSTRUCTIONS, ".github/copilot-instructions.md", "a/b/.github/copilot-instructions.md",
        "AGENTS.md", "CLAUDE.md", "GEMINI.md", "a/b/CLAUDE.md", "a/.github/copilot-instructions.md", "a/AGENTS.md",
        ".github/instructions/all.instructions.md", ".github/instructions/sub/plain.instructions.md"]
    assert {f.path: f.received or f.bytes_loaded for f in files}["GEMINI.md"] == len(b"bom\r\n")  # BOM dropped


def test_lazy_files_and_discovered_sources(tmp_path):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    for path in ("AGENTS.md", "p/AGENTS.md", "p/q/GEMINI.md", "p/q/.github/copilot-instructions.md", "cwd/AGENTS.md",
                 "cwd/below/CLAUDE.md", ".github/instructions/py.instructions.md"):
        write(repo, path, path + "\n")
    assert [p.relative_to(repo).as_posix() for p in lazy_files(repo, "cwd", ["p/q/r.txt", "cwd/below/x.py"])] == [
        "p/q/.github/copilot-instructions.md", "p/q/GEMINI.md", "p/AGENTS.md", "cwd/below/CLAUDE.md"]
    sources = copilot_sources(repo, "cwd", discovered=[".github/instructions/py.instructions.md", "p/AGENTS.md",
                                                      "../outside.md", "missing.md"])
    assert [f.path for f in sources] == ["AGENTS.md", "cwd/AGENTS.md", ".github/instructions/py.instructions.md",
                                         "p/AGENTS.md"]


@pytest.mark.parametrize("text, everywhere", [
    ("plain", True), ("---\ndescription: d\n---\nx", True), ("---\napplyTo: \"**\"\n---\nx", True),
    ("---\napplyTo: '*'\n---\nx", True), ("---\napplyTo: \"**/*\"\n---\nx", True),
    ("---\napplyTo: \"**/*.py\"\n---\nx", False), ("---\napplyTo:\n  - '**/*.md'\n---\nx", False),
    ("---\napplyTo: [unclosed\n---\nx", False)])
def test_which_instructions_files_apply_everywhere(text, everywhere):
    # Front matter that is no YAML is read line by line: `[unclosed` is a pattern (seen live).
    assert applies_everywhere(text.encode()) is everywhere


def test_home_environment(tmp_path):
    user_home = tmp_path / "user"
    write(user_home, ".copilot/copilot-instructions.md", "mine\n")
    agent_env = {"HOME": str(user_home), "TMPDIR": str(tmp_path), "PATH": "/bin", "COPILOT_MODEL": "other",
                 "COPILOT_CUSTOM_INSTRUCTIONS_DIRS": "/x", "GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS": "true",
                 "COPILOT_PKG_CACHE_HOME": "/cache", "OPENAI_BASE_URL": "http://x/v1", "OPENAI_API_KEY": "k"}
    home = CopilotHome.create(agent_env, model="m", provider_type="openai", wire_api="completions",
                              base_url="http://x/v1", key_variable="OPENAI_API_KEY")
    env = home.env(agent_env)
    assert (home.path / "copilot-instructions.md").read_text() == "mine\n"
    assert env["COPILOT_HOME"] == str(home.path) and env["COPILOT_OFFLINE"] == "true"
    assert (env["COPILOT_MODEL"], env["COPILOT_PROVIDER_API_KEY"], env["COPILOT_PROVIDER_WIRE_API"]) == ("m", "k",
                                                                                                        "completions")
    assert "COPILOT_CUSTOM_INSTRUCTIONS_DIRS" not in env and "GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS" not in env
    assert env["COPILOT_PKG_CACHE_HOME"] == "/cache"


def test_adapter_commands_imply_copilot_discovery():
    from instruction_gate.suite.adapter_discovery import discovery_for
    assert discovery_for("auto", ["/x/adapters/copilot"], {}).mode == "copilot"
    assert discovery_for("auto", ["/x/adapters/broker"], {"wrap": "copilot"}).mode == "copilot"
    assert not discovery_for("auto", ["/x/adapters/copilot"], {}).unbounded
    # A directory whose skills and agents load, or another working directory: every task runs.
    assert "--add-dir" in discovery_for("auto", ["/x/adapters/copilot"], {"extra_args": "--add-dir /else"}).unbounded
