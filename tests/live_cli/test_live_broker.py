"""Custom endpoints: each real CLI reaches a provider URL through adapters/broker, with a key
the agent never sees."""

from __future__ import annotations

import json

from instruction_gate.agents.scripted_provider import Step
from tests.conftest import GitRepo
from instruction_gate.agents.conformance import run_live

TOKEN = "sk-live-secret-0123456789"


def _run(agent, binary, tmp_path, header):
    repo = GitRepo(tmp_path / "repo")
    repo.commit({"AGENTS.md": "Rules.\n", "CLAUDE.md": "Rules.\n"})
    tool = {"codex": Step("tool", name="shell", args={"command": "env"}),
            "claude": Step("tool", name="Bash", args={"command": "env"}),
            "gemini": Step("tool", name="run_shell_command", args={"command": "env"}),
            "opencode": Step("tool", name="bash", args={"command": "env", "description": "env"})}[agent]
    run = run_live(agent, binary, repo.path, [tool, Step("text", text="done")], tmp_path, adapter="broker",
                   options={"wrap": agent}, runner_env={"INSTRUCTION_EVAL_BROKER_TOKEN": TOKEN})
    assert run.result["status"] == "completed", run.stderr
    assert run.requests and all(TOKEN in r.headers.get(header, "") for r in run.requests)
    # The agent ran `env`: its output went back to the model. The key is nowhere in it,
    # nor in anything the adapter printed.
    for request in run.requests:
        assert TOKEN not in json.dumps(request.body)
    assert TOKEN not in json.dumps(run.events) and TOKEN not in run.stderr
    return run


def test_codex_through_the_broker(codex_bin, tmp_path):
    _run("codex", codex_bin, tmp_path, "Authorization")


def test_claude_through_the_broker(claude_bin, tmp_path):
    _run("claude", claude_bin, tmp_path, "x-api-key")


def test_gemini_through_the_broker(gemini_bin, tmp_path):
    _run("gemini", gemini_bin, tmp_path, "x-goog-api-key")


def test_opencode_through_the_broker(opencode_bin, tmp_path):
    _run("opencode", opencode_bin, tmp_path, "Authorization")
