"""adapters/codex and adapters/claude run as real processes against stand-in CLIs on PATH."""

from __future__ import annotations

import os
import signal
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from agent_helpers import TRANSCRIPTS, calls, install_standins, make_request, pid_gone, run_adapter

CODEX_SESSION = "0199a213-81c0-7800-8aa1-bbab2a035a53"
CLAUDE_SESSION = "6f0c6c1e-2b8e-4d5e-9c1a-3d8f7a1b2c3d"


@dataclass
class Setup:
    repo: Path
    workspace: Path
    log: Path
    agent_env: dict
    adapter_env: dict

    def request(self, *transcripts: str, mode: str = "ok", session: str = CODEX_SESSION, **kwargs) -> dict:
        env = {**self.agent_env, "STANDIN_MODE": mode, "STANDIN_SESSION": session,
               "STANDIN_TRANSCRIPTS": ",".join(str(TRANSCRIPTS / t) for t in transcripts)}
        return make_request(self.workspace, self.repo, env, **kwargs)


@pytest.fixture
def setup(tmp_path: Path) -> Setup:
    bin_dir, home, log = tmp_path / "bin", tmp_path / "home", tmp_path / "log"
    install_standins(bin_dir)
    home.mkdir()
    log.mkdir()
    repo = tmp_path / "repo"
    workspace = repo / "services" / "payments"
    workspace.mkdir(parents=True)
    (repo / "AGENTS.md").write_text("Run the tests before you finish.\n")
    (workspace / "AGENTS.override.md").write_text("Never touch the ledger.\n")
    (repo / "CLAUDE.md").write_text("Project memory @docs/style.md\n")
    (repo / "docs").mkdir()
    (repo / "docs" / "style.md").write_text("Four-space indents.\n")
    (workspace / "CLAUDE.md").write_text("Payments memory.\n")
    path = f"{bin_dir}{os.pathsep}{os.environ['PATH']}"
    agent_env = {"PATH": path, "HOME": str(home), "STANDIN_LOG": str(log), "STANDIN_REPO": str(repo)}
    adapter_env = {"PATH": path, "HOME": str(home), "ADAPTER_ONLY_MARKER": "adapter-private"}
    return Setup(repo, workspace, log, agent_env, adapter_env)


def result_of(events):
    assert events and events[-1]["type"] == "result", events
    assert [e["type"] for e in events].count("result") == 1
    return events[-1]


def test_codex_single_turn(setup):
    events, proc_result = run_adapter("codex", setup.request("codex_full.jsonl"), setup.adapter_env,
                                      "--model", "gpt-5-codex")
    assert proc_result.exit_code == 0, proc_result.stderr
    result = result_of(events)
    assert result["status"] == "completed" and "failure_class" not in result
    assert result["tool_calls"] == 6
    assert (result["input_tokens"], result["output_tokens"], result["cached_input_tokens"]) == (24018, 1312, 19200)
    assert result["provider_cost_usd"] is None
    assert result["instruction_sources"] == ["AGENTS.md", "services/payments/AGENTS.override.md"]
    assert result["instruction_bytes"] == {"AGENTS.md": len("Run the tests before you finish.\n"),
                                           "services/payments/AGENTS.override.md": len("Never touch the ledger.\n")}
    assert result["provenance"] == {"agent_name": "codex", "model": "gpt-5-codex",
                                    "harness_version": "codex-cli 0.46.0",
                                    "adapter_version": result["provenance"]["adapter_version"]}
    assert events[0] == {"type": "turn", "index": 0}
    assert {"type": "file_change", "path": "src/payments/amount.py", "change": "modify", "turn": 0} in events
    (call,) = calls(setup.log)
    argv = call["argv"][1:]
    assert argv[:5] == ["exec", "--json", "--sandbox", "workspace-write", "--ephemeral"]
    assert argv[argv.index("--model") + 1] == "gpt-5-codex" and argv[-2:] == ["--", "Fix the rounding bug."]
    assert call["cwd"] == str(setup.workspace)
    # The agent got agent_env, not the adapter's environment.
    assert "ADAPTER_ONLY_MARKER" not in call["env"] and call["env"]["STANDIN_MODE"] == "ok"


def test_codex_multi_turn_resumes_the_thread(setup):
    request = setup.request("codex_full.jsonl", "codex_turn2_resume.jsonl",
                            turns=("Fix the rounding bug.", "Summarise the diff."))
    events, _ = run_adapter("codex", request, setup.adapter_env)
    result = result_of(events)
    assert result["status"] == "completed"
    assert [e["index"] for e in events if e["type"] == "turn"] == [0, 1]
    assert (result["input_tokens"], result["output_tokens"]) == (30018, 1412)
    first, second = calls(setup.log)
    assert "--ephemeral" not in first["argv"]  # the session must survive for `resume`
    assert second["argv"][1:4] == ["exec", "resume", "--json"]
    assert second["argv"][-2:] == [CODEX_SESSION, "Summarise the diff."]


def test_codex_nonzero_exit_after_completed_turn_fails(setup):
    events, proc_result = run_adapter("codex", setup.request("codex_full.jsonl", mode="exit3"), setup.adapter_env)
    assert proc_result.exit_code == 0
    assert (result_of(events)["status"], result_of(events)["failure_class"]) == ("failed", "agent")


def test_codex_garbage_output_is_a_zero_turn_failure(setup):
    events, _ = run_adapter("codex", setup.request("codex_full.jsonl", mode="garbage"), setup.adapter_env)
    result = result_of(events)
    assert (result["failure_class"], result["failure_reason"]) == ("infrastructure", "zero_turns")
    assert [e["type"] for e in events] == ["turn", "result"]


def test_codex_missing_terminal_event_fails_with_exit_zero(setup):
    events, _ = run_adapter("codex", setup.request("codex_no_terminal.jsonl"), setup.adapter_env)
    result = result_of(events)
    assert (result["status"], result["failure_reason"]) == ("failed", "agent_error")
    assert {"type": "tool", "tool": "shell", "command": "git push origin HEAD", "turn": 0} in events


def test_cli_not_found_is_infrastructure(setup):
    request = setup.request("codex_full.jsonl", options={"binary": "codex-not-installed"})
    events, proc_result = run_adapter("codex", request, setup.adapter_env)
    result = result_of(events)
    assert (result["failure_class"], result["failure_reason"]) == ("infrastructure", "cli_not_found")
    assert proc_result.exit_code == 0 and calls(setup.log) == []


def test_hang_is_killed_by_the_adapters_own_timeout(setup):
    request = setup.request("codex_full.jsonl", mode="hang", options={"timeout_seconds": "3"})
    events, proc_result = run_adapter("codex", request, setup.adapter_env)
    result = result_of(events)
    assert (result["status"], result["failure_class"], result["failure_reason"]) == ("timeout", "agent", "timeout")
    (call,) = calls(setup.log)
    assert pid_gone(call["pid"])


def test_hang_is_killed_when_the_runner_terminates_the_adapter(setup):
    request = setup.request("claude_full.jsonl", mode="hang", timeout_seconds=600)
    finished = []
    runner = threading.Thread(target=lambda: finished.append(run_adapter("claude", request, setup.adapter_env)))
    runner.start()
    deadline = time.monotonic() + 60
    while not calls(setup.log) and time.monotonic() < deadline:
        time.sleep(0.05)
    (call,) = calls(setup.log)
    os.kill(call["ppid"], signal.SIGTERM)  # what the runner does at its timeout
    runner.join(60)
    (_, proc_result), = finished
    assert proc_result.exit_code == 128 + signal.SIGTERM
    assert pid_gone(call["pid"])  # the agent runs in its own session: only the adapter can kill it


def test_claude_single_turn(setup):
    request = setup.request("claude_full.jsonl", session=CLAUDE_SESSION, options={"max_turns": "30"})
    events, proc_result = run_adapter("claude", request, setup.adapter_env)
    assert proc_result.exit_code == 0, proc_result.stderr
    result = result_of(events)
    assert result["status"] == "completed"
    assert result["provider_cost_usd"] == pytest.approx(0.0734)
    assert result["provenance"]["agent_name"] == "claude-code"
    assert result["provenance"]["model"] == "claude-sonnet-4-5-20250929"
    assert result["provenance"]["harness_version"] == "2.0.14 (Claude Code)"
    # The root's import of docs/style.md resolves outside the cwd: headless Claude Code leaves it as text.
    assert result["instruction_sources"] == ["CLAUDE.md", "services/payments/CLAUDE.md"]
    assert result["instruction_bytes"]["CLAUDE.md"] == len("Project memory @docs/style.md\n")
    assert {"type": "tool", "tool": "Bash", "command": "git push origin HEAD", "exit_code": 1, "turn": 0} in events
    (call,) = calls(setup.log)
    assert call["stdin"] == "Fix the rounding bug."
    assert call["argv"][call["argv"].index("--max-turns") + 1] == "30"


def test_claude_multi_turn_resumes_and_reports_failures(setup):
    request = setup.request("claude_full.jsonl", "claude_max_turns.jsonl", session=CLAUDE_SESSION,
                            turns=("Fix it.", "Now tidy up."))
    events, _ = run_adapter("claude", request, setup.adapter_env, "--permission-mode", "acceptEdits")
    result = result_of(events)
    assert (result["status"], result["failure_class"], result["failure_reason"]) == ("max_turns", "agent", "max_turns")
    assert calls(setup.log)[1]["argv"].count("--resume") == 1


def test_claude_garbage_and_nonzero_exit(setup):
    events, _ = run_adapter("claude", setup.request("claude_full.jsonl", mode="garbage"), setup.adapter_env)
    assert result_of(events)["failure_reason"] == "zero_turns"


def test_bad_option_is_a_configuration_error(setup):
    request = setup.request("codex_full.jsonl", options={"sandbox": "none-at-all"})
    events, proc_result = run_adapter("codex", request, setup.adapter_env)
    assert proc_result.exit_code == 2 and events == []
    assert "adapter_options::$.sandbox" in proc_result.stderr


@pytest.mark.parametrize("agent", ["codex", "claude", "gemini", "opencode"])
@pytest.mark.parametrize("stderr", [
    "node:internal/modules/cjs/loader:1228\n  throw err;\n  ^\n\nError: Cannot find module "
    "'/opt/npm/lib/node_modules/@acme/cli/dist/index.js'\n    at Module._resolveFilename\n",
    "/usr/bin/env: 'node': No such file or directory\n",
])
def test_a_cli_whose_program_is_missing_is_infrastructure(setup, tmp_path, agent, stderr):
    # A launcher left behind by an uninstalled npm package: it prints the error and exits 1.
    broken = tmp_path / "broken" / agent
    broken.parent.mkdir()
    broken.write_text(f"#!/bin/sh\nprintf '%s' {stderr!r} >&2\nexit 1\n".replace("\\n", "\n"))
    broken.chmod(0o755)
    request = setup.request("codex_full.jsonl", options={"binary": str(broken)})
    events, _ = run_adapter(agent, request, setup.adapter_env)
    result = result_of(events)
    assert (result["failure_class"], result["failure_reason"]) == ("infrastructure", "cli_not_found")
    assert result["failure_detail"] == next(line for line in stderr.splitlines() if "such file" in line or "Cannot" in line)


def test_a_launcher_error_after_the_session_started_is_still_the_agents():
    from instruction_gate.agents.failures import launch_failure
    assert launch_failure(1, '{"type": "thread.started"}\n', "Error: Cannot find module 'x'") is None
    assert launch_failure(0, "", "Error: Cannot find module 'x'") is None
    assert launch_failure(1, "", "Error: something else") is None
    assert launch_failure(1, "", "boom\nError: Cannot find module 'x'\n").detail == "Error: Cannot find module 'x'"
