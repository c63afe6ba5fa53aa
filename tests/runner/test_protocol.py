"""Adapter protocol: an adapter written for the reference design works unchanged."""

from __future__ import annotations

import json
import sys

import pytest

from tests.fixtures.runner_cli import MANIFEST, evaluate, make_adapter, record
from tests.runner.suite import build_suite_repo, run_cli, task

PROVENANCE = {"agent_name": "codex", "model": "gpt-x", "model_snapshot": "gpt-x-2025-01-01",
              "harness_version": "codex-cli 0.50", "adapter_version": "1.2.0", "container_digest": "sha256:abc"}

REFERENCE_ADAPTER = '''#!{python}
import json, subprocess, sys
request = json.loads(sys.stdin.read())
for key in ("schema_version", "workspace", "prompt", "task_id", "variant", "repeat", "limits", "agent_env"):
    request[key]
assert request["schema_version"] == 1 and sys.argv[1:] == ["--mode", "test"], sys.argv
assert {{"max_tool_calls", "max_provider_cost_usd", "network"}} <= set(request["limits"])
ran = subprocess.run(["python", "-c", "print('tests pass')"], cwd=request["workspace"],
                     env=request["agent_env"], capture_output=True, text=True, check=True)
print(json.dumps({{"type": "tool", "command": "python -m pytest -q", "exit_code": 0, "output": ran.stdout}}))
print(json.dumps({{"type": "approval_requested", "name": "approval_requested"}}))
result = {{"type": "result", "status": "completed", "tool_calls": 2, "input_tokens": 100, "output_tokens": 20,
          "cached_input_tokens": 5, "provider_cost_usd": 0.02, "instruction_sources": ["AGENTS.md"]}}
provenance = {provenance}
if {nested}:
    result["provenance"] = provenance
else:
    result.update(provenance)
print(json.dumps(result))
'''


@pytest.mark.parametrize("nested", [False, True], ids=["top-level-provenance", "provenance-object"])
def test_reference_adapter_works_unchanged_via_env_command(git_repo, tmp_path, nested):
    t1 = task("t1", required_command_patterns=["pytest"], required_events=["approval_requested"],
              required_instruction_sources=["AGENTS.md"], max_provider_cost_usd=1.0)
    script = REFERENCE_ADAPTER.format(python=sys.executable, provenance=PROVENANCE, nested=nested)
    base, candidate = build_suite_repo(git_repo, [t1], extra={"evals/adapters/broker": script})
    (git_repo.path / "evals/adapters/broker").chmod(0o755)
    git_repo.commit(message="make the adapter executable")
    git_repo.git("tag", "base")
    git_repo.commit({"AGENTS.md": "Always run `pytest -q`.\n"}, "candidate")
    out = tmp_path / "out"
    result = evaluate(git_repo, "base", "HEAD", out, None,
                      env={"AGENT_ADAPTER_CMD": "./evals/adapters/broker --mode test"})
    assert result.returncode == 0, result.stderr
    for variant in ("base", "candidate"):
        run = record(out, "t1", 0, variant)
        assert run["resolved"] is True and run["valid"] is True and run["hard_failures"] == []
        assert {k: run[k] for k in PROVENANCE} == PROVENANCE
        assert (run["tool_calls"], run["input_tokens"], run["output_tokens"], run["cached_input_tokens"],
                run["provider_cost_usd"]) == (2, 100, 20, 5, 0.02)
        assert run["instruction_sources"] == ["AGENTS.md"]
        # The result event is stored as it came, never with the events list inside it.
        assert run["events"][-1]["type"] == "result" and "events" not in run["events"][-1]
        assert run["events"][0]["output"] == "tests pass\n"
        lines = (out / "t1" / "repeat-0" / variant / "events.jsonl").read_text().splitlines()
        assert [json.loads(line)["type"] for line in lines] == ["tool", "approval_requested", "result"]


def test_request_carries_turns_cwd_limits_and_options(git_repo, tmp_path):
    t1 = task("t1", cwd="src", turns=["evals/tasks/t1/turn2.md"], timeout_seconds=7, max_tool_calls=4)
    base, candidate = build_suite_repo(git_repo, [t1], extra={"evals/tasks/t1/turn2.md": "Second turn\n"})
    adapter = make_adapter(tmp_path, """
        emit(type="probe", request={k: v for k, v in request.items() if k != "agent_env"}, cwd=os.getcwd())
    """)
    out = tmp_path / "out"
    result = evaluate(git_repo, base, candidate, out, adapter, "--adapter-option", "model=small",
                      "--adapter-option", "effort=low")
    assert result.returncode == 0, result.stderr
    probe = next(e for e in record(out, "t1", 0, "candidate")["events"] if e["type"] == "probe")
    request = probe["request"]
    assert request["turns"] == ["Prompt for t1\n", "Second turn\n"] and request["prompt"] == "Prompt for t1\n"
    assert request["cwd"] == "src" and request["workspace"] == probe["cwd"]
    assert request["workspace"] == request["repo_root"] + "/src"
    assert (request["task_id"], request["variant"], request["repeat"]) == ("t1", "candidate", 0)
    assert request["limits"] == {"timeout_seconds": 7, "max_tool_calls": 4, "max_provider_cost_usd": None,
                                 "network": "host"}
    assert request["adapter_options"] == {"model": "small", "effort": "low"}
    # The task has a reference solution, but only the offline reference adapter gets it (by content).
    assert request["reference_solution"] is None and request["reference_solution_patch"] is None


def test_missing_adapter_command_is_a_usage_error(git_repo, tmp_path):
    base, candidate = build_suite_repo(git_repo, [task("t1")])
    result = run_cli(git_repo, "--manifest", MANIFEST, "--base", base, "--candidate", candidate,
                     "--out", str(tmp_path / "out"))
    assert result.returncode == 2
    assert "no adapter: pass --adapter or set AGENT_ADAPTER_CMD" in result.stderr
