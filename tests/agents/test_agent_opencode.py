"""OpenCode pieces that need no binary: `run --format json` transcripts recorded from the
pinned 1.18.33 against the scripted provider, its log, discovery edge cases and the
workspace files the adapter refuses."""

from __future__ import annotations

import os

import pytest
from agent_helpers import exited, parse, transcript_lines, write

from instruction_gate.agents.opencode.discovery import (GLOBAL_AGENTS, GLOBAL_CLAUDE, opencode_sources,
                                                        read_attachments)
from instruction_gate.agents.opencode.home import OpenCodeHome, workspace_hazards
from instruction_gate.agents.opencode.stream import OpenCodeStream, logged_state


def test_full_transcript(tmp_path):
    parser = OpenCodeStream(tmp_path)
    events, failure = parse(parser, "opencode_full.jsonl", tmp_path)
    assert failure is None
    tools = [(e["command"], e.get("exit_code")) for e in events if e["type"] == "tool"]
    assert tools == [("echo hi; exit 3", 3), ("read sub/s.py", 0), ("edit calc.py", 0), ("write new.py", 0),
                     ("edit calc.py", 1)]
    assert [(e["path"], e.get("change")) for e in events if e["type"] == "file_change"] == [
        ("calc.py", "modify"), ("new.py", "add")]
    assert parser.final_message == "Fixed." and parser.session_id.startswith("ses_")
    assert parser.loaded == [f"{tmp_path}/sub/AGENTS.md"] and parser.touched_paths == ["sub/s.py"]
    # Six model calls: 120 + 100 + 150 + 100 + 100 + 170 input (cache reads included), 100 of them cached.
    assert (parser.usage.input_tokens, parser.usage.cached_input_tokens, parser.usage.output_tokens) == (
        740, 100, 7 + 9 + 10 + 10 + 10 + 25)
    assert parser.cost_usd == pytest.approx(0.00019 + 0.0002 + 0.00019 + 0.0002 + 0.0002 + 0.00042)


@pytest.mark.parametrize("name, reason", [
    ("opencode_server_error.jsonl", "provider_error"), ("opencode_rate_limited.jsonl", "rate_limited"),
    ("opencode_auth.jsonl", "auth_failed"), ("opencode_context_overflow.jsonl", "agent_error")])
def test_error_events(tmp_path, name, reason):
    _, failure = parse(OpenCodeStream(tmp_path), name, tmp_path, code=1)
    assert failure.reason == reason


def test_lost_session_and_unknown_errors(tmp_path):
    parser = OpenCodeStream(tmp_path)
    _, failure = parser.end_process(exited(1, "timestamp=x level=INFO message=boot\n\x1b[91mError: \x1b[0mSession not found\n"))
    assert failure.reason == "session_lost"
    # Something never seen before, before the model said anything: the agent's own (zero turns).
    assert OpenCodeStream(tmp_path).end_process(exited(1, "Error: kaboom"))[1].reason == "zero_turns"


def test_broken_streams_and_the_log_decide_a_timeout(tmp_path):
    parser = OpenCodeStream(tmp_path, stall_seconds=5)
    for line in transcript_lines("opencode_truncated.jsonl", tmp_path) * 2:  # an answer without a finish, twice
        parser.feed(line)
    parser.end_process(exited(None, "", timed_out=True))
    assert parser.timeout_failure("killed").reason == "provider_error"
    log = ("timestamp=2020-01-01T00:00:00.000Z level=INFO run=1 message=stream providerID=x\n"
           "timestamp=2020-01-01T00:00:01.000Z level=INFO run=1 message=evaluated permission=bash pattern=x\n")
    assert logged_state(log).tool_running is True
    slow_tool = OpenCodeStream(tmp_path, stall_seconds=5)
    slow_tool.end_process(exited(None, log, timed_out=True))
    assert slow_tool.timeout_failure("killed").reason == "timeout"
    hung = OpenCodeStream(tmp_path, stall_seconds=5)
    hung.end_process(exited(None, log.splitlines()[0], timed_out=True))  # a call open since 2020
    assert hung.timeout_failure("killed").reason == "provider_error"
    retrying = OpenCodeStream(tmp_path, stall_seconds=500)
    failed_call = ('timestamp=2020-01-01T00:00:02.000Z level=ERROR run=1 message="stream error" providerID=x '
                   'error.error="AI_APICallError: status 429"')
    retrying.end_process(exited(None, log.splitlines()[0] + "\n" + failed_call, timed_out=True))
    assert retrying.timeout_failure("killed").reason == "rate_limited"


def test_project_chain_first_name_wins_nearest_first(tmp_path):
    (tmp_path / ".git").mkdir()
    write(tmp_path, "CLAUDE.md", "root claude\n")
    write(tmp_path, "a/CONTEXT.md", "context\n")
    write(tmp_path, "a/b/CLAUDE.md", "b claude\n")
    assert [f.path for f in opencode_sources(tmp_path, "a/b")] == ["a/b/CLAUDE.md", "CLAUDE.md"]
    assert [f.path for f in opencode_sources(tmp_path, "a/b", claude_fallback=False)] == ["a/CONTEXT.md"]
    (tmp_path / "a" / "AGENTS.md").mkdir()  # a directory of that name claims it and sends nothing
    assert opencode_sources(tmp_path, "a/b") == []


def test_a_nested_repository_starts_its_own_chain(tmp_path):
    (tmp_path / ".git").mkdir()
    write(tmp_path, "AGENTS.md", "outer\n")
    write(tmp_path, "vendor/lib/.git/HEAD", "ref\n")
    write(tmp_path, "vendor/lib/AGENTS.md", "inner\n")
    assert [f.path for f in opencode_sources(tmp_path, "vendor/lib/src")] == ["vendor/lib/AGENTS.md"]


def test_global_files_and_read_attachments(tmp_path):
    repo, home = tmp_path / "repo", tmp_path / "home"
    (repo / ".git").mkdir(parents=True)
    write(repo, "AGENTS.md", "root\n")
    write(repo, "pkg/CLAUDE.md", "pkg\n")
    write(repo, "pkg/deep/AGENTS.md", "deep\n")
    write(home, ".claude/CLAUDE.md", "claude global\n")
    config = write(home, "config/opencode/AGENTS.md", "")  # exists, empty: claims the slot, sends nothing
    attached = read_attachments(repo, "", ["pkg/deep/x.py", "pkg/y.py", "other/z.py"])
    assert attached == [str(repo / "pkg/deep/AGENTS.md"), str(repo / "pkg/CLAUDE.md")]
    sources = opencode_sources(repo, "", global_dir=config.parent, home=home, attached=attached)
    assert [f.path for f in sources] == ["AGENTS.md", "pkg/deep/AGENTS.md", "pkg/CLAUDE.md"]
    config.unlink()
    assert [f.path for f in opencode_sources(repo, "", global_dir=config.parent, home=home)] == [
        GLOBAL_CLAUDE, "AGENTS.md"]
    config.write_text("global\n")
    assert opencode_sources(repo, "", global_dir=config.parent, home=home)[0].path == GLOBAL_AGENTS


def test_workspace_hazards_from_the_cwd_up_to_the_root(tmp_path):
    write(tmp_path, "opencode.jsonc", "{}")
    write(tmp_path, "pkg/.opencode/plugin/p.js", "")
    write(tmp_path, "other/opencode.json", "{}")
    assert workspace_hazards(tmp_path, tmp_path / "pkg") == ["pkg/.opencode", "opencode.jsonc"]


def test_the_private_configuration(tmp_path):
    user = tmp_path / "user"
    write(user, ".config/opencode/AGENTS.md", "mine\n")
    agent_env = {"HOME": str(user), "TMPDIR": str(tmp_path), "OPENCODE_CONFIG": "/evil.json", "OPENAI_API_KEY": "k"}
    home = OpenCodeHome.create(agent_env, model="instruction-gate/m", base_url="http://127.0.0.1:1/v1",
                               prices_per_mtok=(1.0, 0.5, 10.0))
    env = home.env(agent_env)
    assert "OPENCODE_CONFIG" not in env and env["XDG_CONFIG_HOME"] == str(home.path / "config")
    assert (home.global_dir / "AGENTS.md").read_text() == "mine\n"
    config = home.config()
    provider = config["provider"]["instruction-gate"]
    assert provider["options"] == {"baseURL": "http://127.0.0.1:1/v1", "apiKey": "{env:OPENAI_API_KEY}"}
    assert provider["models"]["m"]["cost"] == {"input": 1.0, "cache_read": 0.5, "output": 10.0}
    assert config["permission"] == {"*": "allow"} and config["share"] == "disabled"
    assert config["compaction"]["auto"] is False and "k" not in env["OPENCODE_CONFIG_CONTENT"].split('"')


def test_files_past_the_harness_read_cap_are_reported_at_their_full_size(tmp_path):
    from instruction_gate.untrusted import INSTRUCTION_CAP_BYTES
    (tmp_path / ".git").mkdir()
    big = write(tmp_path, "AGENTS.md", "x" * (INSTRUCTION_CAP_BYTES + 5))
    write(tmp_path, "pkg/AGENTS.md", "")  # empty: claims nothing more than its slot
    write(tmp_path, "pkg/CLAUDE.md", "never: AGENTS.md is the project's name\n")
    sources = opencode_sources(tmp_path, "pkg")
    assert [(f.path, f.size, f.bytes_loaded) for f in sources] == [
        ("AGENTS.md", INSTRUCTION_CAP_BYTES + 5, INSTRUCTION_CAP_BYTES + 5)]
    assert big.stat().st_size == INSTRUCTION_CAP_BYTES + 5


def test_reported_bytes_are_the_decoded_text_the_cli_sends(tmp_path):
    # Checked against OpenCode 1.18.33: the file's text without a byte-order mark, invalid bytes
    # as U+FFFD, not trimmed; a file of whitespace alone is sent as it is.
    from instruction_gate.agents.discovery import result_fields
    (tmp_path / ".git").mkdir()
    (tmp_path / "AGENTS.md").write_bytes(b"\xef\xbb\xbf\n\n  Rules \xff caf\xc3\xa9.\n\n\n")
    write(tmp_path, "sub/AGENTS.md", " \n\t\n")
    sources, sizes = result_fields(opencode_sources(tmp_path, "sub"))
    assert sources == ["sub/AGENTS.md", "AGENTS.md"]
    assert sizes == {"sub/AGENTS.md": 4, "AGENTS.md": len("\n\n  Rules \ufffd café.\n\n\n".encode())}
