"""The sandbox's parts: what a view binds, the opt-out, teardown after a timeout, cut lines."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from instruction_gate import proc
from instruction_gate.errors import ConfigError
from instruction_gate.run import sandbox, sandbox_paths
from tests.fixtures.runner_cli import survivors


def test_no_bwrap_and_no_opt_out_is_a_configuration_error(monkeypatch):
    monkeypatch.setattr(sandbox.shutil, "which", lambda *a, **k: None)
    with pytest.raises(ConfigError, match="bwrap is not on PATH.*--unisolated"):
        sandbox.detect(False, "host")
    assert sandbox.detect(True, "host").label == "unisolated"
    with pytest.raises(ConfigError, match="--sandbox-network"):
        sandbox.detect(False, "everything")


def test_view_binds_the_system_and_the_view_only(tmp_path):
    work, extra = tmp_path / "work", tmp_path / "extra"
    args = sandbox.bwrap_args(sandbox.View((work,), (extra, extra / "inner"), work), "none")
    binds = [(args[i], args[i + 1]) for i, a in enumerate(args) if a in ("--bind", "--ro-bind")]
    assert ("--bind", str(work)) in binds and ("--ro-bind", str(extra)) in binds
    assert not any(path == str(extra / "inner") for _, path in binds)  # nested in a bound one
    assert not {path for _, path in binds} & {"/", "/home", "/root", "/run", "/tmp", "/mnt", "/srv"}
    assert "--unshare-net" in args and "--unshare-pid" in args and args[args.index("--cap-drop") + 1] == "ALL"
    assert "--unshare-net" not in sandbox.bwrap_args(sandbox.View((work,)), "host")


def test_adapter_paths_expose_the_package_beside_an_adapter_never_its_directory(tmp_path):
    harness = tmp_path / "evals" / "instructions"
    (harness / "adapters").mkdir(parents=True)
    (harness / "instruction_gate").mkdir()
    (harness / "tasks").mkdir()
    script = harness / "adapters" / "reference"
    script.write_text("#!/bin/sh\n")
    found = sandbox_paths.adapter_paths([sys.executable, str(script)], ["relative", str(tmp_path / "missing")])
    assert script in found and harness / "instruction_gate" in found
    assert harness not in found and harness / "tasks" not in found


def test_a_timed_out_sandbox_leaves_no_process(tmp_path):
    box = sandbox.detect(False, "none")
    marker = str(tmp_path / "marker")
    daemon = f"import os, time; os.setsid(); time.sleep(60)  # {marker}"
    script = f"import subprocess, sys, time; subprocess.Popen([sys.executable, '-c', {daemon!r}]); time.sleep(60)"
    confined = box.confine([sys.executable, "-c", script], sandbox.View((tmp_path,), sandbox_paths.harness_paths(), tmp_path))
    result = proc.run(confined.argv, tmp_path, timeout=1.0, grace=0.2, pass_fds=confined.pass_fds)
    confined.finish()
    assert result.timed_out and survivors(marker) == []


def test_an_endless_line_reaches_the_caller_cut(tmp_path):
    lines: list[bytes] = []
    script = "import sys; sys.stdout.write('a' * 300000 + '\\nshort\\n' + 'b' * 5000)"
    proc.run([sys.executable, "-c", script], Path(tmp_path), on_stdout_line=lines.append, line_bytes=1000)
    assert [len(line) for line in lines] == [1001, 5, 1001]


def test_agent_clis_on_path_are_visible_but_never_a_directory_holding_the_checkout(tmp_path):
    checkout = tmp_path / "checkout"
    bin_dir = checkout / "evals" / "agent" / "node_modules" / ".bin"
    tools = tmp_path / "tools" / "bin"
    for directory in (bin_dir, tools):
        directory.mkdir(parents=True)
    path = ":".join([str(bin_dir), str(tools), str(checkout), str(tmp_path), "/usr/bin", "relative/bin"])
    found = sandbox_paths.search_paths(path, (checkout, checkout / "evals"))
    assert found == (bin_dir.parent, tools)


def test_a_home_left_unreadable_is_still_emptied(tmp_path):
    home = tmp_path / "home"
    locked = home / "a" / "b"
    locked.mkdir(parents=True)
    (locked / "f").write_text("x")
    (home / "a").chmod(0o000)
    assert list(sandbox.fresh_dir(home).iterdir()) == []


def test_protected_paths_are_bound_read_only_after_every_writable_one(tmp_path):
    cache, env = tmp_path / "cache", tmp_path / "cache" / "env"
    inner = tmp_path / "env2" / "cache"  # a writable directory inside a protected one
    args = sandbox.bwrap_args(sandbox.View((tmp_path / "work", cache, inner), (), None,
                                           protected=(env, tmp_path / "env2")), "none")
    binds = [(args[i], args[i + 1]) for i, a in enumerate(args) if a in ("--bind", "--ro-bind")]
    last_writable = max(i for i, (kind, _) in enumerate(binds) if kind == "--bind")
    assert sorted(binds[last_writable + 1:]) == sorted([("--ro-bind", str(env)), ("--ro-bind", str(tmp_path / "env2"))])


def test_the_check_environment_brings_the_interpreter_it_was_made_from(tmp_path):
    base, env = tmp_path / "python-3.12", tmp_path / "venv"
    (base / "bin").mkdir(parents=True)
    (base / "bin" / "python3.12").write_text("")
    (env / "bin").mkdir(parents=True)
    (env / "bin" / "python").symlink_to(base / "bin" / "python3.12")
    (env / "pyvenv.cfg").write_text(f"home = {base / 'bin'}\nversion = 3.12\n")
    assert sandbox_paths.check_env_paths(env) == (base, env)
    (env / "pyvenv.cfg").write_text("home = /usr/bin\n")  # a system interpreter is visible already
    (env / "bin" / "python").unlink()
    assert sandbox_paths.check_env_paths(env) == (env,) and sandbox_paths.check_env_paths(None) == ()


def test_adapter_paths_bind_files_never_a_directory_the_configuration_names(tmp_path):
    scope, cli = tmp_path / "scope", tmp_path / "tools" / "node_modules" / "@x" / "cli" / "bin.js"
    scope.mkdir()
    cli.parent.mkdir(parents=True)
    cli.write_text("")
    config = tmp_path / "config.toml"
    config.write_text("")
    found = sandbox_paths.adapter_paths([sys.executable, "--scope", str(scope), str(cli)], [str(tmp_path), str(config)])
    assert config in found and tmp_path / "tools" / "node_modules" in found  # a file; npm's tree, named explicitly
    assert scope not in found and tmp_path not in found
    # The kernel's views are never bound: /proc/self/environ on the host would be the runner's own.
    kernel = sandbox_paths.adapter_paths([sys.executable], ["/proc/self/environ", "/proc/1/environ", "/dev/null"])
    assert [p for p in kernel if p.parts[1] in ("proc", "sys", "dev")] == []


def test_run_paths_never_show_the_out_directory_a_stage_or_the_checkout(tmp_path, capsys):
    from types import SimpleNamespace
    checkout, out, temp = tmp_path / "checkout", tmp_path / "out", tmp_path / "temp"
    stage_file = temp / "instruction-gate-abc123" / "solutions" / "t1.patch"
    harness = checkout / "evals" / "instructions"
    for directory in (out, stage_file.parent, harness / "adapters", harness / "instruction_gate"):
        directory.mkdir(parents=True)
    named = {"stage": stage_file, "out": out / "index.json", "check": checkout / "evals" / "check.py",
             "adapter": harness / "adapters" / "reference"}
    for path in named.values():
        path.write_text("")
    args = SimpleNamespace(out=out, temp_dir=temp, sandbox_readable=[checkout / "evals"])
    found = sandbox_paths.run_paths(args, [str(named["adapter"])], [str(p) for p in named.values()], "", (checkout,))
    assert named["adapter"] in found and harness / "instruction_gate" in found  # the vendored harness
    assert not {named["stage"], named["out"], named["check"], checkout / "evals"} & set(found)
    said = capsys.readouterr().err
    assert "t1.patch is not shown to agents: it is inside the harness's temporary directory" in said
    assert f"{checkout / 'evals'} is not shown to agents: it is inside the checkout or suite" in said
