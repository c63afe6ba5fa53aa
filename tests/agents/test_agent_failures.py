"""The shared failure vocabulary: who is to blame for each kind of error text."""

from __future__ import annotations

import pytest

from instruction_gate.agents.failures import Failure, classify_error_text, reason_for_http_status


@pytest.mark.parametrize("text, reason, failure_class", [
    ("unexpected status 401 Unauthorized: Incorrect API key provided", "auth_failed", "infrastructure"),
    ("Invalid API key · Please run /login", "auth_failed", "infrastructure"),
    ("exceeded retry limit, last status: 429 Too Many Requests", "rate_limited", "infrastructure"),
    ("You've hit your usage limit", "rate_limited", "infrastructure"),
    ("error: sandbox setup failed: landlock not supported", "sandbox_error", "infrastructure"),
    ("API Error: 529 {\"type\":\"overloaded_error\"}", "provider_error", "infrastructure"),
    ("stream disconnected before completion", "provider_error", "infrastructure"),
    ("prompt is too long: 250000 tokens > 200000 maximum", "agent_error", "agent"),
    ("Your input exceeds the context window of this model", "agent_error", "agent"),
    ("the agent gave up", "agent_error", "agent"),
    ("tests/test_x.py:500 failed", "agent_error", "agent"),  # a number is not an HTTP status
])
def test_classification(text, reason, failure_class):
    failure = classify_error_text(text)
    assert (failure.reason, failure.failure_class) == (reason, failure_class)


def test_unknown_text_takes_the_default():
    assert classify_error_text("panic", default="zero_turns").failure_class == "infrastructure"
    assert classify_error_text("prompt is too long", default="zero_turns").reason == "agent_error"


def test_statuses():
    assert [Failure(r).status for r in ("max_turns", "budget_exceeded", "timeout", "auth_failed")] == [
        "max_turns", "budget_exceeded", "timeout", "failed"]
    assert Failure("something-new").failure_class == "agent"


@pytest.mark.parametrize("text, reason", [
    ("Selected model is at capacity. Please try a different model.", "provider_error"),
    ("The 'gpt-x' model is not supported when using Codex with a ChatGPT account.", "provider_error"),
    ("You've hit your session limit · resets 11pm", "rate_limited"),
    ("Your credit balance is too low to access the Anthropic API.", "rate_limited"),
    ("No conversation found with session ID: 1234", "session_lost"),
])
def test_messages_seen_in_real_cli_output(text, reason):
    failure = classify_error_text(text)
    assert (failure.reason, failure.failure_class) == (reason, "infrastructure")


def test_http_status_reasons():
    assert [reason_for_http_status(s) for s in (401, 403, 429, 500, 529, 400, 413, None, True)] == [
        "auth_failed", "auth_failed", "rate_limited", "provider_error", "provider_error", None, None, None, None]
