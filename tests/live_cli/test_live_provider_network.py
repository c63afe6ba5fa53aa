"""Each real CLI through the broker under the provider-only network, in the real agent sandbox:
the scripted model has the agent try another loopback port of the host, then fix the task. The
run completes through the relay; the connection fails, and the tool result that says so is what
the model saw. The gate end to end (runner.py evaluate), one task, one repeat."""

from __future__ import annotations

import json
import os
import socket
import sys
import threading

import pytest

from instruction_gate import proc
from instruction_gate.agents.scripted_provider import ScriptedProvider, Step
from tests.live_cli.conftest import broker_options
from tests.conftest import REPO_ROOT, GitRepo
from tests.fixtures.runner_cli import wait_for
from tests.runner.suite import build_suite_repo, task

TOOLS = {"codex": "shell", "claude": "Bash", "gemini": "run_shell_command", "opencode": "bash"}
FIX = "printf 'VALUE = 2\\n' > src/app.py"
CHECK = ["python", "-c", "import sys; sys.exit(0 if 'VALUE = 2' in open('src/app.py').read() else 1)"]


def _probe(port: int) -> str:
    """A command printing PROBE-RESULT and connect_ex's errno (0: connected) for 127.0.0.1:port."""
    return (f"python -c \"import socket; s = socket.socket(); s.settimeout(5); "
            f"print('PROBE-RESULT', s.connect_ex(('127.0.0.1', {port})))\"")


def _tool_results(agent: str, body) -> int:
    text = json.dumps(body)
    if agent == "codex":
        return sum(1 for item in body.get("input", []) if item.get("type") == "function_call_output")
    if agent == "gemini":
        return text.count('"functionResponse"')
    if agent == "opencode":
        return sum(1 for m in body.get("messages", []) if m.get("role") == "tool")
    return text.count('"tool_result"')


def _responder(agent: str, port: int):
    steps = [_probe(port), FIX]

    def respond(body) -> Step:
        done = _tool_results(agent, body)
        if done < len(steps):
            described = {"description": "step"} if agent == "opencode" else {}
            return Step("tool", name=TOOLS[agent], args={"command": steps[done], **described})
        return Step("text", text="Done.")

    return respond


@pytest.fixture
def other_port():
    """A loopback port of the host that counts the connections it accepts."""
    server = socket.create_server(("127.0.0.1", 0))
    accepted: list[int] = []

    def serve():
        while True:
            try:
                client, _ = server.accept()
            except OSError:
                return
            accepted.append(1)
            client.close()

    threading.Thread(target=serve, daemon=True).start()
    yield server.getsockname()[1], accepted
    try:
        server.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    server.close()


def _gate(agent: str, binary, tmp_path, port: int, *flags: str):
    """runner.py evaluate through the broker; (runner result, OUT, model requests the provider saw)."""
    repo = GitRepo(tmp_path / "repo")
    # CLAUDE.md imports AGENTS.md, so every agent sees the candidate's edit (impact analysis runs the task).
    base, candidate = build_suite_repo(repo, [task("t1", checks=[CHECK], timeout_seconds=300)],
                                       extra={"CLAUDE.md": "@AGENTS.md\n"})
    home = tmp_path / "agent-home"
    (home / ".codex").mkdir(parents=True)
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "CODEX_HOME": str(home / ".codex"),
           "INSTRUCTION_EVAL_BROKER_TOKEN": "sk-provider-network-live-123456"}
    out = tmp_path / "out"
    with ScriptedProvider(responder=_responder(agent, port)) as provider:
        options = broker_options(agent, provider.url, binary)
        runner = [sys.executable, str(REPO_ROOT / "runner.py"), "--repo", str(repo.path),
                  "--manifest", "evals/manifest.json", "--base", base, "--candidate", candidate, "--out", str(out),
                  "--adapter", f"{sys.executable} {REPO_ROOT / 'adapters' / 'broker'}", "--repeats", "1", *flags]
        for key, value in options.items():
            runner += ["--adapter-option", f"{key}={value}"]
        ran = proc.run(runner, repo.path, env=env, timeout=900)
        return ran, out, [json.dumps(r.body) for r in provider.model_requests()]


@pytest.mark.parametrize("agent", ["codex", "claude", "gemini", "opencode"])
def test_agent_completes_through_the_relay_and_reaches_nothing_else(agent, request, tmp_path, other_port):
    port, accepted = other_port
    ran, out, seen = _gate(agent, request.getfixturevalue(f"{agent}_bin"), tmp_path, port)
    assert "agent sandbox: bwrap (network: provider)" in ran.stderr, ran.stderr[-3000:]
    assert ran.exit_code == 0 and "1 valid pairs" in ran.stderr, ran.stderr[-3000:]
    for variant in ("base", "candidate"):
        record = json.loads((out / "t1" / "repeat-0" / variant / "run.json").read_text())
        assert record["resolved"] is True, (record["failure_reason"], record["adapter_stderr_tail"])
        assert record["isolation"] == "bwrap (network: provider)"
    # What went back to the model: the probe's own output, refused (ECONNREFUSED), never connected.
    assert sum("PROBE-RESULT 111" in text for text in seen) >= 2, seen[-1][-3000:]
    assert not any("PROBE-RESULT 0" in text for text in seen)
    assert accepted == []


def test_host_network_control(codex_bin, tmp_path, other_port):
    """The same probe under the explicit `host` network connects: the test can see a way out."""
    port, accepted = other_port
    ran, out, seen = _gate("codex", codex_bin, tmp_path, port, "--sandbox-network", "host")
    assert ran.exit_code == 0 and "agent sandbox: bwrap (network: host)" in ran.stderr, ran.stderr[-3000:]
    assert sum("PROBE-RESULT 0" in text for text in seen) >= 2, seen[-1][-3000:]
    assert wait_for(lambda: len(accepted) >= 2)
