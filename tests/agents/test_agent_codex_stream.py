"""`codex exec --json` transcripts -> protocol events, usage and failures."""

from __future__ import annotations

import json

import pytest
from agent_helpers import exited, make_request, parse, transcript_lines

from instruction_gate.agents.codex.stream import CodexStream, unwrap_shell


def test_full_transcript_maps_every_item_type(repo):
    parser = CodexStream(repo)
    events, failure = parse(parser, "codex_full.jsonl", repo)
    assert failure is None
    assert parser.session_id == "0199a213-81c0-7800-8aa1-bbab2a035a53"
    tools = [e for e in events if e["type"] == "tool"]
    assert [(t["tool"], t["command"], t.get("exit_code")) for t in tools] == [
        ("shell", 'rg -n "parse_amount" src', 0),
        ("shell", "python -m pytest -q tests/test_amount.py", 1),
        ("mcp", "docs/lookup", 0),
        ("web_search", "web_search python decimal ROUND_HALF_EVEN", None),
    ]
    changes = [(e["path"], e["change"]) for e in events if e["type"] == "file_change"]
    assert changes == [("src/payments/amount.py", "modify"), ("tests/test_rounding.py", "add"),
                       ("src/payments/legacy.py", "delete")]  # the failed patch changed nothing
    assert [e["text"] for e in events if e["type"] == "message"] == ["Fixed rounding in parse_amount; tests pass."]
    assert parser.final_message == "Fixed rounding in parse_amount; tests pass."
    # 2 commands (the repeated completion counted once), 2 patches, 1 MCP call, 1 search.
    assert parser.tool_calls == 6
    assert parser.malformed_lines == 2
    assert (parser.usage.input_tokens, parser.usage.output_tokens, parser.usage.cached_input_tokens) == (
        24018, 1312, 19200)


def test_legacy_item_type_spelling_and_assistant_message(repo):
    parser = CodexStream(repo)
    events, failure = parse(parser, "codex_legacy.jsonl", repo)
    assert failure is None
    assert [e["type"] for e in events] == ["tool", "file_change", "message"]
    assert events[0]["command"] == "git status --short" and events[1]["path"] == "README.md"


def test_running_totals_become_deltas_across_resumed_turns(repo):
    parser = CodexStream(repo)
    parse(parser, "codex_full.jsonl", repo)
    parser.begin_turn(1)
    events, failure = parse(parser, "codex_turn2_resume.jsonl", repo)
    assert failure is None
    assert events[0] == {"type": "tool", "tool": "shell", "command": "git diff --stat", "exit_code": 0, "turn": 1}
    # Turn 2 reported 30018/1412/25200 as thread totals: the run used exactly that much.
    assert (parser.usage.input_tokens, parser.usage.output_tokens, parser.usage.cached_input_tokens) == (
        30018, 1412, 25200)


def test_repeated_usage_report_is_not_counted_twice(repo):
    parser = CodexStream(repo)
    line = b'{"type":"turn.completed","usage":{"input_tokens":100,"cached_input_tokens":10,"output_tokens":5}}'
    parser.feed(line)
    parser.feed(line)
    assert (parser.usage.input_tokens, parser.usage.output_tokens) == (100, 5)


def test_per_turn_usage_mode_adds_every_report(repo):
    parser = CodexStream(repo, cumulative_usage=False)
    parser.feed(b'{"type":"turn.completed","usage":{"input_tokens":100,"output_tokens":5}}')
    parser.feed(b'{"type":"turn.completed","usage":{"input_tokens":150,"output_tokens":7}}')
    assert (parser.usage.input_tokens, parser.usage.output_tokens, parser.usage.cached_input_tokens) == (250, 12, 0)


def test_counter_restart_is_a_new_baseline(repo):
    parser = CodexStream(repo)
    parser.feed(b'{"type":"turn.completed","usage":{"input_tokens":500,"output_tokens":50}}')
    parser.feed(b'{"type":"turn.completed","usage":{"input_tokens":200,"output_tokens":20}}')
    assert (parser.usage.input_tokens, parser.usage.output_tokens) == (700, 70)


def test_turn_failed_with_429_is_infrastructure_even_with_exit_zero(repo):
    _, failure = parse(CodexStream(repo), "codex_turn_failed_rate_limit.jsonl", repo, code=0)
    assert (failure.reason, failure.failure_class, failure.status) == ("rate_limited", "infrastructure", "failed")


def test_error_before_any_turn_is_classified_auth(repo):
    _, failure = parse(CodexStream(repo), "codex_zero_turn_auth.jsonl", repo, code=1)
    assert (failure.reason, failure.failure_class) == ("auth_failed", "infrastructure")


def test_unexplained_exit_before_any_turn_is_zero_turns(repo):
    parser = CodexStream(repo)
    parser.feed(b'{"type":"thread.started","thread_id":"t"}')
    _, failure = parser.end_process(exited(1, "thread 'main' panicked"))
    assert (failure.reason, failure.failure_class) == ("zero_turns", "infrastructure")


def test_missing_terminal_event_fails_despite_exit_zero_and_reports_started_command(repo):
    events, failure = parse(CodexStream(repo), "codex_no_terminal.jsonl", repo, code=0)
    assert (failure.reason, failure.failure_class) == ("agent_error", "agent")
    assert events == [{"type": "tool", "tool": "shell", "command": "git push origin HEAD", "turn": 0}]


def test_context_overflow_is_the_agents_failure(repo):
    _, failure = parse(CodexStream(repo), "codex_turn_failed_agent.jsonl", repo)
    assert (failure.reason, failure.failure_class) == ("agent_error", "agent")


def test_completed_turn_with_nonzero_exit_is_a_failure(repo):
    _, failure = parse(CodexStream(repo), "codex_legacy.jsonl", repo, code=1, stderr="sandbox error: landlock")
    assert (failure.reason, failure.failure_class) == ("sandbox_error", "infrastructure")


def test_shell_wrappers_are_unwrapped_only_when_exact():
    assert unwrap_shell("bash -lc 'make test'") == "make test"
    assert unwrap_shell("/bin/sh -c 'a && b'") == "a && b"
    assert unwrap_shell("python -c 'print(1)'") == "python -c 'print(1)'"
    assert unwrap_shell("bash -lc 'unterminated") == "bash -lc 'unterminated"


def test_transcript_lines_substitute_repo(repo):
    assert any(str(repo).encode() in line for line in transcript_lines("codex_full.jsonl", repo))


def test_cost_from_configured_prices(repo):
    parser = CodexStream(repo, prices_per_mtok=(1.25, 0.125, 10.0))
    parser.feed(b'{"type":"turn.completed","usage":{"input_tokens":1000000,"cached_input_tokens":400000,'
                b'"output_tokens":100000}}')
    assert parser.cost_usd == pytest.approx(0.6 * 1.25 + 0.4 * 0.125 + 0.1 * 10.0)
    assert CodexStream(repo).cost_usd is None


def test_newer_item_types_collab_declined_and_page_search(repo):
    events, failure = parse(CodexStream(repo), "codex_newer_items.jsonl", repo)
    assert failure is None
    tools = [(e["tool"], e["command"], e.get("exit_code")) for e in events if e["type"] == "tool"]
    assert tools == [
        ("collab", "spawn_agent", 0),
        ("shell", "git push --force origin main", None),  # declined: attempted, never ran
        ("web_search", "web_search https://docs.example.test/migrations", None),
    ]
    assert {"type": "policy", "name": "permission_denied", "tool": "shell",
            "command": "git push --force origin main", "turn": 0} in events
    # The patch streamed as started/updated before completing: one change, reported once.
    assert [(e["path"], e["change"]) for e in events if e["type"] == "file_change"] == [("db/schema.sql", "modify")]


def test_reasoning_tokens_are_part_of_output_not_added(repo):
    parser = CodexStream(repo)
    parse(parser, "codex_newer_items.jsonl", repo)
    assert (parser.usage.input_tokens, parser.usage.output_tokens, parser.usage.cached_input_tokens) == (
        41200, 880, 30720)


def test_capacity_error_is_the_providers_failure(repo):
    _, failure = parse(CodexStream(repo), "codex_turn_failed_capacity.jsonl", repo, code=1)
    assert (failure.reason, failure.failure_class) == ("provider_error", "infrastructure")


def test_resumed_turn_in_a_new_thread_lost_its_session(repo):
    parser = CodexStream(repo)
    parse(parser, "codex_full.jsonl", repo)
    parser.begin_turn(1)
    _, failure = parse(parser, "codex_resume_new_thread.jsonl", repo)
    assert (failure.reason, failure.failure_class) == ("session_lost", "infrastructure")
    # The new thread's counters start from zero: its report is new usage, not a drop.
    assert (parser.usage.input_tokens, parser.usage.output_tokens) == (24018 + 9100, 1312 + 22)


def test_new_thread_on_first_turn_is_not_a_lost_session(repo):
    parser = CodexStream(repo)
    _, failure = parse(parser, "codex_resume_new_thread.jsonl", repo)
    assert failure is None


def test_all_zero_usage_report_keeps_the_baseline(repo):
    parser = CodexStream(repo)
    parse(parser, "codex_full.jsonl", repo)
    for index, name in ((1, "codex_turn_zero_usage.jsonl"), (2, "codex_turn2_resume.jsonl")):
        parser.begin_turn(index)
        _, failure = parse(parser, name, repo)
        assert failure is None
    # Totals 24018 -> (no update) -> 30018: the run used 30018, not 24018 + 30018.
    assert (parser.usage.input_tokens, parser.usage.output_tokens) == (30018, 1412)


def _codex_process(parser, turn, *objs, stderr="", code=0):
    import json
    parser.begin_turn(turn)
    events = [e for obj in objs for e in parser.feed(json.dumps(obj).encode())]
    tail, failure = parser.end_process(exited(code, stderr))
    return events + tail, failure


def _command(item_id, command):
    return {"type": "item.completed", "item": {"id": item_id, "type": "command_execution", "command": command,
                                               "exit_code": 0, "status": "completed"}}


def test_item_ids_restart_in_every_resumed_process(repo):
    parser = CodexStream(repo)
    done = {"type": "turn.completed", "usage": {"input_tokens": 1, "output_tokens": 1}}
    _codex_process(parser, 0, {"type": "thread.started", "thread_id": "t"}, {"type": "turn.started"},
                   _command("item_0", "true"), done)
    events, _ = _codex_process(parser, 1, {"type": "thread.started", "thread_id": "t"}, {"type": "turn.started"},
                               _command("item_0", "python -m pytest -q"), done)
    assert [e["command"] for e in events if e["type"] == "tool"] == ["python -m pytest -q"]
    assert parser.tool_calls == 2


def test_refused_commands_come_from_stderr(repo):
    parser = CodexStream(repo)
    stderr = ('2026-12-01T05:03:46Z ERROR codex_core::tools::router: error=exec_command failed: CreateProcess '
              '{ message: "Rejected(\\"`/bin/bash -lc \'rm -rf build\'` rejected: rm -f style commands are not '
              'permitted. Use a safer approach\\")" }\n')
    events, failure = _codex_process(parser, 0, {"type": "turn.started"},
                                     {"type": "turn.completed", "usage": {"input_tokens": 1}}, stderr=stderr)
    assert failure is None
    assert [(e["type"], e.get("command"), e.get("exit_code")) for e in events] == [
        ("tool", "rm -rf build", None), ("policy", "rm -rf build", None)]
    assert events[1]["name"] == "permission_denied" and "not permitted" in events[1]["reason"]


def test_silence_after_turn_started_is_a_provider_stall(repo):
    parser = CodexStream(repo)
    _codex_process(parser, 0, {"type": "thread.started", "thread_id": "t"}, {"type": "turn.started"},
                   code=None)
    assert parser.timeout_failure("killed").reason == "provider_error"
    _codex_process(parser, 0, {"type": "turn.started"}, _command("item_0", "sleep 999"), code=None)
    assert parser.timeout_failure("killed").reason == "timeout"


def test_commands_run_in_a_plain_shell_unless_a_login_shell_is_asked_for(tmp_path):
    """A login shell reads /etc/profile, which resets PATH on Debian and Ubuntu: the check
    environment's `python` would exit 127. `doctor` checks the effect on the installed CLI."""
    from instruction_gate.agents.codex.adapter import CodexAgent
    from instruction_gate.agents.options import Options
    from instruction_gate.agents.protocol import AdapterRequest
    request = AdapterRequest.parse(json.dumps(make_request(tmp_path, tmp_path, {"PATH": "/usr/bin"})))
    for options, setting in (({}, "allow_login_shell=false"), ({"login_shell": "true"}, "allow_login_shell=true")):
        agent = CodexAgent.from_options(Options(options), request)
        for turn in (0, 1):
            argv = agent.turn_argv("codex", turn, "Fix it.", "thread-1")
            assert argv[argv.index(setting) - 1] == "-c"


def test_codex_leaves_confinement_to_the_gates_sandbox_when_confined(tmp_path, monkeypatch):
    # Inside the gate's bubblewrap, Codex's own bubblewrap cannot map user ids again: every
    # sandboxed command would fail to start. An explicit option still wins.
    from instruction_gate.agents.codex.adapter import CodexAgent
    from instruction_gate.agents.options import Options
    from instruction_gate.agents.protocol import CONFINED_VAR, AdapterRequest
    request = AdapterRequest.parse(json.dumps(make_request(tmp_path, tmp_path, {"PATH": "/usr/bin"})))
    monkeypatch.delenv(CONFINED_VAR, raising=False)
    assert CodexAgent.from_options(Options({}), request).sandbox == "workspace-write"
    monkeypatch.setenv(CONFINED_VAR, "1")
    assert CodexAgent.from_options(Options({}), request).sandbox == "danger-full-access"
    assert CodexAgent.from_options(Options({"sandbox": "read-only"}), request).sandbox == "read-only"
