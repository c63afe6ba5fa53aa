"""Multi-turn resume with every agent that continues a session: a distinct command in each turn,
each reported once with its turn index, and judged in its own turn as the run record does
(`rules.judge`, what the runner stores under `rules` and `rule_metrics`)."""

from __future__ import annotations

import pytest

from instruction_gate.agents.conformance import run_live
from instruction_gate.agents.scripted_provider import Step
from instruction_gate.rules import builtin
from instruction_gate.rules.judge import judge
from tests.conftest import GitRepo

SHELL = {"codex": "shell", "claude": "Bash", "gemini": "run_shell_command", "opencode": "bash"}
TURNS = ("ls -a", "git status --short")
RULES = [{"id": "lists-first", "kind": "command_required", "pattern": "^ls -a$", "turn": 0},
         {"id": "status-second", "kind": "command_required", "pattern": r"^git status --short$", "turn": 1},
         {"id": "no-list-later", "kind": "command_forbidden", "pattern": "^ls ", "turn": 1},
         {"id": "no-status-first", "kind": "command_forbidden", "pattern": "^git status", "turn": 0}]


def _script(agent: str) -> list[Step]:
    described = {"description": "run it"} if agent == "opencode" else {}
    return [step for command in TURNS for step in (
        Step("tool", name=SHELL[agent], args={"command": command, **described}), Step("text", text=f"ran {command}"))]


def _repo(tmp_path) -> GitRepo:
    repo = GitRepo(tmp_path / "repo")
    repo.commit({"AGENTS.md": "Rules.\n", "app.py": "x = 1\n"})
    return repo


def _judged(events: list[dict]) -> dict:
    rules = [rule for decl in RULES for rule in builtin.build(decl, len(TURNS))]
    return judge(rules, events, len(TURNS), (), 0, 0, None, None)


@pytest.mark.parametrize("agent", sorted(SHELL))
def test_each_turn_keeps_its_own_command(agent, request, tmp_path):
    binary = request.getfixturevalue(f"{agent}_bin")
    run = run_live(agent, binary, _repo(tmp_path).path, _script(agent), tmp_path,
                   turns=("List the files.", "Show the status."))
    assert run.result["status"] == "completed", run.stderr
    assert [(e["command"], e["turn"], e.get("exit_code")) for e in run.of_type("tool")] == [
        ("ls -a", 0, 0), ("git status --short", 1, 0)]
    assert [e["index"] for e in run.of_type("turn")] == [0, 1]
    assert run.result["tool_calls"] == 2
    # The second process continued the first one's conversation, and each model call of either
    # process (100 tokens in, 10 out) is counted once.
    assert len(run.requests) == 4 and "ls -a" in str(run.requests[2].body)
    assert (run.result["input_tokens"], run.result["output_tokens"]) == (400, 40)
    judged = _judged(run.events)
    assert {r["id"]: (r["turn"], r["outcome"]) for r in judged["rules"]} == {
        "lists-first": (0, "satisfied"), "status-second": (1, "satisfied"),
        "no-list-later": (1, "satisfied"), "no-status-first": (0, "satisfied")}
    assert [t["csr"] for t in judged["rule_metrics"]["per_turn"]] == [1.0, 1.0]


def test_codex_commands_its_sandbox_could_not_start_are_reported(codex_bin, tmp_path):
    # Under Codex's own sandbox with its home in a temporary directory, Codex refuses to make
    # its sandbox helper, so commands cannot start, and `--json` prints an item for such a
    # command only some of the time (measured: 11 of 20 on 0.171.0); the session record always holds it.
    # Every turn still runs; a command that never started makes the run the infrastructure's
    # failure. (Where Codex's sandbox works, both commands run.)
    run = run_live("codex", codex_bin, _repo(tmp_path).path, _script("codex"), tmp_path,
                   turns=("List the files.", "Show the status."), options={"sandbox": "workspace-write"})
    tools = run.of_type("tool")
    assert [(e["command"], e["turn"]) for e in tools] == [("ls -a", 0), ("git status --short", 1)]
    refused = [e for e in tools if "refused" in e]
    if run.result.get("failure_reason") == "sandbox_error":
        assert run.result["failure_class"] == "infrastructure"
        assert refused and refused[0]["command"] in run.result["failure_detail"]
    else:
        assert run.result["status"] == "completed", run.stderr
        assert not refused
    assert run.result["tool_calls"] == 2
