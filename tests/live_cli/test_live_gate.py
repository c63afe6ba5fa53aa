"""The whole gate with each live CLI behind the broker and a scripted provider, on the demo
repository (2 tasks × 1 repeat): the model runs the tests only when the instructions it
received tell it to, so a candidate that drops that line must fail `required_command_missing`
in both tasks, and only in the candidate arm."""

from __future__ import annotations

import json
import os
import sys

import pytest

from instruction_gate import demo_repo, proc
from instruction_gate.agents.scripted_provider import ScriptedProvider, Step
from tests.live_cli.conftest import broker_options
from instruction_gate.commands.demo import candidate_regressions
from instruction_gate.agents.conformance import (claude_memory, codex_instructions, copilot_instructions,
                                                 gemini_context, opencode_instructions)

TASKS = ("bug-tax-rounding", "add-idempotency-test")
TEST_LINE = "Run the tests with `python -m pytest -q` before finishing."


def _responder(agent: str, suite):
    patches = {task: (suite / "tasks" / task / "solution.patch").read_text() for task in TASKS}
    prompts = {task: (suite / "tasks" / task / "prompt.md").read_text().split("\n")[0] for task in TASKS}

    def respond(body) -> Step:
        text = json.dumps(body)
        task = next(t for t, first in prompts.items() if json.dumps(first)[1:-1] in text)
        if agent == "codex":
            done = sum(1 for item in body.get("input", []) if item.get("type") == "function_call_output")
            request = type("R", (), {"body": body})
            instructions = codex_instructions(request) or ""
        elif agent == "gemini":
            done = text.count('"functionResponse"')
            instructions = "\n".join(t for _, t in gemini_context(type("R", (), {"body": body})))
        elif agent == "opencode":
            done = sum(1 for m in body.get("messages", []) if m.get("role") == "tool")
            instructions = "\n".join(t for _, t in opencode_instructions(type("R", (), {"body": body})))
        elif agent == "copilot":
            done = sum(1 for m in body.get("messages", []) if m.get("role") == "tool")
            instructions = "\n".join(copilot_instructions(type("R", (), {"body": body})).blocks)
        else:
            done = text.count('"tool_result"')
            instructions = "\n".join(t for _, t in claude_memory(type("R", (), {"body": body})))
        steps = [f"git apply - <<'IG_PATCH'\n{patches[task]}IG_PATCH"]
        if TEST_LINE in instructions:
            steps.append("python -m pytest -q")
        if done < len(steps):
            tool = {"codex": "shell", "claude": "Bash", "gemini": "run_shell_command", "opencode": "bash",
                    "copilot": "bash"}[agent]
            described = {"description": "step"} if agent in ("opencode", "copilot") else {}
            return Step("tool", name=tool, args={"command": steps[done], **described})
        return Step("text", text="Done.")

    return respond


@pytest.mark.parametrize("agent", ["codex", "claude", "gemini", "opencode", "copilot"])
def test_gate_verdict_follows_what_reached_the_model(agent, request, tmp_path):
    binary = request.getfixturevalue(f"{agent}_bin")
    candidate_file = tmp_path / "AGENTS.md"
    agents = (demo_repo.EXAMPLE_REPO / "AGENTS.md").read_text()
    assert TEST_LINE in agents
    candidate_file.write_text(agents.replace(TEST_LINE + "\n", ""))
    repo = demo_repo.build(tmp_path / "repo", demo_repo.resolve_candidate(str(candidate_file)))
    suite, results = repo.suite, tmp_path / "results"
    home = tmp_path / "agent-home"
    (home / ".codex").mkdir(parents=True)
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "CODEX_HOME": str(home / ".codex"),
           "INSTRUCTION_EVAL_BROKER_TOKEN": "sk-gate-test-token-123456"}
    with ScriptedProvider(responder=_responder(agent, suite)) as provider:
        options = broker_options(agent, provider.url, binary)
        runner = [sys.executable, str(suite / "runner.py"), "--repo", str(repo.path),
                  "--manifest", str(suite / "manifest.json"), "--base", repo.base, "--candidate", repo.candidate,
                  "--out", str(results), "--adapter", f"{sys.executable} {suite / 'adapters' / 'broker'}",
                  "--tasks", *TASKS, "--repeats", "1", "--jobs", "2"]
        for key, value in options.items():
            runner += ["--adapter-option", f"{key}={value}"]
        ran = proc.run(runner, repo.path, env=env, timeout=600)
        # The runner already stops on the hard-gate regressions (exit 1); compare decides.
        assert ran.exit_code in (0, 1) and "2 valid pairs" in ran.stderr, ran.stderr[-3000:]
    compare = proc.run([sys.executable, str(suite / "compare.py"), "--results", str(results),
                        "--policy", str(suite / "policy.json"), "--summary", str(tmp_path / "summary.md")],
                       repo.path, env=env)
    assert compare.exit_code == 1, compare.stdout[-3000:] + compare.stderr[-3000:]
    assert candidate_regressions(results / "index.json") == {t: ["required_command_missing"] for t in TASKS}
    assert "verdict" in compare.stdout.lower() or (tmp_path / "summary.md").is_file()
