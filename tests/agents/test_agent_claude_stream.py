"""`claude -p --output-format stream-json --verbose` transcripts -> events, usage, failures."""

from __future__ import annotations

import pytest
from agent_helpers import exited, parse, transcript_lines

from instruction_gate.agents.claude.stream import ClaudeStream


def test_full_transcript(repo):
    parser = ClaudeStream(repo)
    events, failure = parse(parser, "claude_full.jsonl", repo)
    assert failure is None
    assert parser.session_id == "6f0c6c1e-2b8e-4d5e-9c1a-3d8f7a1b2c3d"
    assert parser.model == "claude-sonnet-4-5-20250929" and parser.harness_version == "2.0.14"
    tools = [(e["tool"], e["command"], e["exit_code"]) for e in events if e["type"] == "tool"]
    assert tools == [
        ("Read", "Read services/payments/amount.py", 0),
        ("Bash", "python -m pytest -q tests/test_amount.py", 1),
        ("Edit", "Edit services/payments/amount.py", 0),
        ("Write", "Write tests/test_rounding.py", 0),
        ("Bash", "git push origin HEAD", 1),
    ]
    changes = [(e["path"], e.get("change")) for e in events if e["type"] == "file_change"]
    assert changes == [("services/payments/amount.py", "modify"), ("tests/test_rounding.py", None)]
    assert {"type": "policy", "name": "permission_denied", "tool": "Bash", "command": "git push origin HEAD",
            "turn": 0} in events
    assert parser.tool_calls == 5 and parser.malformed_lines == 1
    assert parser.touched_paths == ["services/payments/amount.py", "tests/test_rounding.py"]
    assert parser.final_message == "Parsing now uses Decimal; the rounding test passes."
    assert parser.cost_usd == pytest.approx(0.0734)


def test_usage_is_counted_once_per_message_id(repo):
    parser = ClaudeStream(repo)
    parse(parser, "claude_full.jsonl", repo)
    # msg_01A arrives twice (output 3 then 88): counted once, with its final output count.
    inputs = [4 + 5120 + 11000, 6 + 300 + 16120, 2 + 16420, 2 + 16560, 2 + 16700]
    assert parser.usage.input_tokens == sum(inputs)
    assert parser.usage.output_tokens == 88 + 70 + 140 + 90 + 25
    assert parser.usage.cached_input_tokens == 11000 + 16120 + 16420 + 16560 + 16700


def test_resumed_turn_adds_usage_and_cost(repo):
    parser = ClaudeStream(repo)
    parse(parser, "claude_full.jsonl", repo)
    before = parser.usage.output_tokens
    parser.begin_turn(1)
    events, failure = parse(parser, "claude_resume.jsonl", repo)
    assert failure is None
    assert events[0] == {"type": "tool", "tool": "Bash", "command": "git diff --stat", "exit_code": 0, "turn": 1}
    assert parser.usage.output_tokens == before + 30 + 8
    assert parser.cost_usd == pytest.approx(0.0734 + 0.0121)


def test_result_usage_is_the_fallback_without_message_usage(repo):
    parser = ClaudeStream(repo)
    parser.feed(b'{"type":"result","subtype":"success","is_error":false,"num_turns":1,'
                b'"usage":{"input_tokens":7,"cache_read_input_tokens":3,"output_tokens":2}}')
    parser.end_process(exited())
    assert (parser.usage.input_tokens, parser.usage.output_tokens, parser.usage.cached_input_tokens) == (10, 2, 3)


@pytest.mark.parametrize("name, reason, failure_class, status", [
    ("claude_max_turns.jsonl", "max_turns", "agent", "max_turns"),
    ("claude_budget.jsonl", "budget_exceeded", "agent", "budget_exceeded"),
    ("claude_is_error_auth.jsonl", "auth_failed", "infrastructure", "failed"),
    ("claude_execution_error.jsonl", "agent_error", "agent", "failed"),
])
def test_result_failures(repo, name, reason, failure_class, status):
    _, failure = parse(ClaudeStream(repo), name, repo)
    assert (failure.reason, failure.failure_class, failure.status) == (reason, failure_class, status)


def test_is_error_counts_even_with_subtype_success(repo):
    parser = ClaudeStream(repo)
    parser.feed(b'{"type":"assistant","message":{"id":"m","content":[{"type":"text","text":"hi"}]}}')
    parser.feed(b'{"type":"result","subtype":"success","is_error":true,"num_turns":1,"result":"Something broke"}')
    _, failure = parser.end_process(exited())
    assert (failure.reason, failure.failure_class) == ("agent_error", "agent")


def test_missing_result_fails_whatever_the_exit_code(repo):
    parser = ClaudeStream(repo)
    parser.feed(b'{"type":"system","subtype":"init","session_id":"s"}')
    parser.feed(b'{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"t1",'
                b'"name":"Bash","input":{"command":"rm -rf build"}}]}}')
    events, failure = parser.end_process(exited(0))
    assert (failure.reason, failure.failure_class) == ("agent_error", "agent")
    assert events == [{"type": "tool", "tool": "Bash", "command": "rm -rf build", "turn": 0}]


def test_nothing_at_all_is_zero_turns(repo):
    parser = ClaudeStream(repo)
    parser.feed(b"garbage")
    _, failure = parser.end_process(exited(1, "node: command failed"))
    assert (failure.reason, failure.failure_class) == ("zero_turns", "infrastructure")
    assert parser.malformed_lines == 1


def test_paths_through_a_symlinked_root_are_repository_relative(tmp_path, repo):
    link = tmp_path / "link"
    link.symlink_to(repo)
    parser = ClaudeStream(link)
    parser.feed(('{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"t",'
                 f'"name":"Read","input":{{"file_path":"{repo}/a/b.py"}}}},{{"type":"tool_use","id":"u",'
                 f'"name":"Read","input":{{"file_path":"{link}/c.py"}}}}]}}}}').encode())
    assert parser.touched_paths == ["a/b.py", "c.py"]


def test_model_usage_counts_every_model_the_process_called(repo):
    parser = ClaudeStream(repo)
    events, failure = parse(parser, "claude_model_usage.jsonl", repo)
    assert failure is None
    assert [(e["tool"], e["command"], e["exit_code"]) for e in events if e["type"] == "tool"] == [
        ("Bash", "ruff check src", 0)]
    # modelUsage: sonnet (6 + 4400 + 28100 in, 70 out) plus an auxiliary haiku call that never
    # appeared as a message (3 + 9000 in, 40 out); it matches total_cost_usd, the messages do not.
    assert (parser.usage.input_tokens, parser.usage.output_tokens, parser.usage.cached_input_tokens) == (
        6 + 4400 + 28100 + 3 + 9000, 70 + 40, 28100 + 9000)
    assert parser.cost_usd == pytest.approx(0.0312)


def test_message_sums_equal_result_usage_without_model_usage(repo):
    parser = ClaudeStream(repo)
    for line in transcript_lines("claude_model_usage.jsonl", repo):
        parser.feed(line.replace(b'"modelUsage"', b'"modelUsageAbsent"'))
    parser.end_process(exited())
    # msg_01Q repeated with identical usage counts once: 2+4100+12000 and 4+300+16100.
    assert (parser.usage.input_tokens, parser.usage.output_tokens, parser.usage.cached_input_tokens) == (
        6 + 4400 + 28100, 70, 28100)


def test_usage_is_added_per_process_across_resumed_turns(repo):
    parser = ClaudeStream(repo)
    parse(parser, "claude_model_usage.jsonl", repo)
    parser.begin_turn(1)
    parse(parser, "claude_resume.jsonl", repo)
    assert parser.usage.output_tokens == 110 + 30 + 8


@pytest.mark.parametrize("name, reason", [
    ("claude_api_error_rate_limit.jsonl", "rate_limited"),  # error field and api_error_status 429
    ("claude_api_error_server.jsonl", "provider_error"),  # error field alone (older CLI)
    ("claude_resume_missing.jsonl", "session_lost"),
])
def test_api_errors_are_infrastructure(repo, name, reason):
    parser = ClaudeStream(repo)
    events, failure = parse(parser, name, repo, code=1)
    assert (failure.reason, failure.failure_class) == (reason, "infrastructure")
    # The synthetic error message is Claude Code speaking, not the agent.
    assert not [e for e in events if e["type"] == "message"] and parser.final_message is None


def test_assistant_error_field_alone_decides(repo):
    parser = ClaudeStream(repo)
    for line in transcript_lines("claude_api_error_rate_limit.jsonl", repo):
        parser.feed(line.replace(b',"api_error_status":429', b""))
    _, failure = parser.end_process(exited(1))
    assert failure.reason == "rate_limited"


@pytest.mark.parametrize("status, reason", [(401, "auth_failed"), (429, "rate_limited"), (529, "provider_error"),
                                            (400, "agent_error")])
def test_api_error_status_of_the_result(repo, status, reason):
    parser = ClaudeStream(repo)
    parser.feed(b'{"type":"assistant","message":{"id":"m","content":[{"type":"text","text":"Working."}]}}')
    parser.feed(('{"type":"result","subtype":"success","is_error":true,"num_turns":2,'
                 f'"result":"API Error: request failed","api_error_status":{status}}}').encode())
    _, failure = parser.end_process(exited(1))
    assert failure.reason == reason


def _line(obj) -> bytes:
    import json
    return json.dumps(obj).encode()


def _process(parser, turn, *objs, code=0):
    parser.begin_turn(turn)
    events = [e for obj in objs for e in parser.feed(_line(obj))]
    tail, failure = parser.end_process(exited(code))
    return events + tail, failure


def _result(cost, inp, out, **extra):
    return {"type": "result", "subtype": "success", "is_error": False, "session_id": "s", "total_cost_usd": cost,
            "usage": {"input_tokens": inp, "output_tokens": out}, **extra}


def _assistant(msg_id, *blocks, out=1):
    return {"type": "assistant", "message": {"id": msg_id, "content": list(blocks),
                                             "usage": {"input_tokens": 10, "output_tokens": out}}}


def test_result_usage_beats_message_start_stubs(repo):
    # Without modelUsage (older CLIs): assistant events carry message_start's 1-5 output tokens.
    parser = ClaudeStream(repo)
    _process(parser, 0, _assistant("m1", {"type": "text", "text": "hi"}, out=5), _result(0.01, 10, 25))
    assert (parser.usage.input_tokens, parser.usage.output_tokens) == (10, 25)


def test_resumed_process_reports_session_totals_counted_once(repo):
    parser = ClaudeStream(repo)
    _process(parser, 0, _assistant("m1", {"type": "text", "text": "a"}), _result(0.010, 100, 10))
    _process(parser, 1, _assistant("m2", {"type": "text", "text": "b"}), _result(0.025, 250, 30))
    assert parser.cost_usd == pytest.approx(0.025)
    assert (parser.usage.input_tokens, parser.usage.output_tokens) == (250, 30)


def test_tool_use_left_open_by_a_stop_never_ran(repo):
    parser = ClaudeStream(repo)
    events, failure = _process(parser, 0, _assistant("m1", {"type": "tool_use", "id": "t1", "name": "Bash",
                                                            "input": {"command": "make deploy"}}),
                               {**_result(0.01, 10, 5), "subtype": "error_max_turns", "is_error": True})
    assert failure is not None and failure.reason == "max_turns"
    assert parser.tool_calls == 0 and not [e for e in events if e["type"] == "tool"]


def test_killed_while_retrying_is_the_providers(repo):
    parser = ClaudeStream(repo, stall_seconds=600)
    parser.begin_turn(0)
    parser.feed(_line({"type": "system", "subtype": "api_retry", "error_status": 429, "attempt": 1}))
    parser.end_process(exited(None, timed_out=True))
    assert parser.timeout_failure("killed").reason == "rate_limited"
    parser.begin_turn(0)
    parser.feed(_line({"type": "system", "subtype": "init", "session_id": "s"}))
    assert parser.timeout_failure("killed").reason == "timeout"  # busy, not stalled past the request timeout


def test_a_quiet_running_tool_is_the_agents_time(repo):
    parser = ClaudeStream(repo, stall_seconds=0)
    parser.begin_turn(0)
    parser.feed(_line(_assistant("m1", {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "sleep 999"}})))
    events, _ = parser.end_process(exited(None, timed_out=True))
    assert parser.timeout_failure("killed").reason == "timeout"
    assert [e["command"] for e in events if e["type"] == "tool"] == ["sleep 999"]  # it ran: still reported
    parser.begin_turn(0)
    parser.feed(_line({"type": "system", "subtype": "init", "session_id": "s"}))
    parser.end_process(exited(None, timed_out=True))
    assert parser.timeout_failure("killed").reason == "provider_error"  # silent, waiting on the model
