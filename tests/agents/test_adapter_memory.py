"""An agent cannot read its adapter's memory: a child of the agent, in the agent sandbox (bwrap,
every capability dropped, same uid as the adapter, root here), gets no byte of the adapter's
(or the broker's) /proc/<pid>/mem, while the same probe reads its own parent, the agent."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

from agent_helpers import REPO_ROOT, TRANSCRIPTS, install_standins, make_request
from test_agent_broker import StandInProvider

from instruction_gate import proc
from instruction_gate.agents.undumpable import is_dumpable, make_undumpable
from instruction_gate.run import sandbox, sandbox_paths


def _run_confined(argv: list[str], request: dict, env: dict, tmp_path: Path, network: str = "none"):
    box = sandbox.Sandbox("bwrap", network, shutil.which("bwrap"))
    readable = sandbox_paths.harness_paths() + sandbox_paths.adapter_paths(argv, request.get("adapter_options", {}).values())
    confined = box.confine(argv, sandbox.View((tmp_path,), readable, tmp_path))
    try:
        return proc.run(confined.argv, tmp_path, env=env, stdin=json.dumps(request), timeout=60,
                        pass_fds=confined.pass_fds)
    finally:
        confined.finish()


def test_a_child_of_the_agent_cannot_read_the_adapter_s_memory(tmp_path):
    bin_dir, log, repo = tmp_path / "bin", tmp_path / "log", tmp_path / "repo"
    install_standins(bin_dir)
    log.mkdir()
    (repo / "src").mkdir(parents=True)
    path = f"{bin_dir}{os.pathsep}{os.environ['PATH']}"
    agent_env = {"PATH": path, "HOME": str(tmp_path), "STANDIN_LOG": str(log), "STANDIN_REPO": str(repo),
                 "STANDIN_MODE": "memprobe", "STANDIN_SESSION": "s",
                 "STANDIN_TRANSCRIPTS": str(REPO_ROOT / "tests" / "transcripts" / "codex_full.jsonl")}
    argv = [sys.executable, str(REPO_ROOT / "adapters" / "codex")]
    result = _run_confined(argv, make_request(repo, repo, agent_env), {"PATH": path, "HOME": str(tmp_path)}, tmp_path)
    assert result.exit_code == 0, result.stderr
    probed = json.loads((log / "mem.json").read_text())
    agent, adapter = probed[0], next(p for p in probed if "adapters/codex" in p["cmdline"])
    assert agent["mem"] == "read 16 bytes", probed  # the probe works here: a dumpable same-uid process
    assert adapter["mem"] == "PermissionError", probed


def test_the_broker_holding_the_provider_key_is_out_of_the_agent_s_reach(tmp_path):
    bin_dir, log, repo = tmp_path / "bin", tmp_path / "log", tmp_path / "repo"
    install_standins(bin_dir, ("codex",))
    log.mkdir()
    repo.mkdir()
    path = f"{bin_dir}{os.pathsep}{os.environ['PATH']}"
    agent_env = {"PATH": path, "HOME": str(tmp_path), "STANDIN_LOG": str(log), "STANDIN_REPO": str(repo),
                 "STANDIN_MODE": "broker", "STANDIN_TRANSCRIPTS": str(TRANSCRIPTS / "codex_legacy.jsonl")}
    provider = StandInProvider()
    try:
        argv = [sys.executable, str(REPO_ROOT / "adapters" / "broker")]
        env = {"PATH": path, "HOME": str(tmp_path), "INSTRUCTION_EVAL_BROKER_TOKEN": "sk-test-memory",
               "INSTRUCTION_EVAL_UPSTREAM_URL": provider.url}
        result = _run_confined(argv, make_request(repo, repo, agent_env, options={"wrap": "codex"}), env, tmp_path,
                               network="host")
    finally:
        provider.close()
    assert result.exit_code == 0, result.stderr
    probed = {os.path.basename((p["cmdline"].split() + [""])[1]): p["mem"] for p in json.loads((log / "mem.json").read_text())}
    assert probed["broker"] == "PermissionError" and probed["codex"] == "PermissionError", probed


def test_the_flag_is_set_in_the_calling_process_and_reset_by_exec(tmp_path):
    script = ("import subprocess, sys\n"
              "from instruction_gate.agents.undumpable import is_dumpable, make_undumpable\n"
              "assert make_undumpable() is None and is_dumpable() is False\n"
              "child = 'from instruction_gate.agents.undumpable import is_dumpable; print(is_dumpable())'\n"
              "print(subprocess.run([sys.executable, '-c', child], capture_output=True, text=True).stdout.strip())\n")
    result = proc.run([sys.executable, "-c", script], REPO_ROOT, timeout=60)
    assert result.exit_code == 0 and result.stdout.strip() == "True", result.stderr
    assert is_dumpable() is True and make_undumpable is not None  # the test process itself stays dumpable
