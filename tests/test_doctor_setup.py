"""`doctor` before any run: a missing or foreign `--binary` is named, and `--repo` warns about
agent project configuration the gate's runs do not use. (Runs against real CLIs: tests/live_cli.)"""

from __future__ import annotations

import sys

import pytest

from instruction_gate import cli


def _script(path, body: str):
    path.write_text(f"#!{sys.executable}\nimport sys\n{body}\n")
    path.chmod(0o755)
    return path


def test_a_missing_binary_is_named(tmp_path, capsys):
    assert cli.main(["doctor", "--agent", "gemini", "--binary", str(tmp_path / "gemini")]) == 3
    assert f"--binary {tmp_path / 'gemini'}: not found (no such file)" in capsys.readouterr().out


def test_a_binary_that_is_not_executable_or_a_directory_is_named(tmp_path, capsys):
    plain = tmp_path / "opencode"
    plain.write_text("not a program\n")
    assert cli.main(["doctor", "--agent", "opencode", "--binary", str(plain)]) == 3
    assert f"--binary {plain}: not executable" in capsys.readouterr().out
    assert cli.main(["doctor", "--agent", "opencode", "--binary", str(tmp_path)]) == 3
    assert f"--binary {tmp_path}: is a directory" in capsys.readouterr().out


@pytest.mark.parametrize("agent,body,says", [
    ("gemini", "print('codex-cli 0.171.0')", "does not look like the gemini CLI"),
    ("claude", "print('1.18.33')", "does not look like the claude CLI"),
    # A node launcher whose package is gone.
    ("codex", "print(\"Error: Cannot find module '/x/bin/codex.js'\", file=sys.stderr); sys.exit(1)",
     "--version exited 1: Error: Cannot find module"),
])
def test_a_binary_that_is_not_the_agents_cli_is_named(tmp_path, capsys, agent, body, says):
    binary = _script(tmp_path / agent, body)
    assert cli.main(["doctor", "--agent", agent, "--binary", str(binary)]) == 3
    out = capsys.readouterr().out
    assert says in out and str(binary) in out and "ok   " not in out


def test_repo_warns_about_project_configuration_the_adapters_refuse(tmp_path, capsys):
    (tmp_path / "svc" / ".gemini").mkdir(parents=True)
    (tmp_path / "svc" / ".gemini" / "settings.json").write_text("{}")
    (tmp_path / "opencode.jsonc").write_text("{}")
    (tmp_path / "web").mkdir()
    (tmp_path / "web" / "opencode.json").write_text("{}")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "opencode.json").write_text("{}")  # git's own directory is not the project
    (tmp_path / "web" / ".opencode" / "agent").mkdir(parents=True)
    assert cli.main(["doctor", "--repo", str(tmp_path)]) == 0
    warnings = [line for line in capsys.readouterr().out.splitlines() if line.startswith("warning:")]
    assert [w.split(":")[1].strip() for w in warnings] == ["opencode.jsonc", "svc/.gemini/settings.json",
                                                           "web/opencode.json", "web/.opencode"]
    assert "workspace_settings=trust" in warnings[0] and "refuses" in warnings[1]


def test_repo_without_configuration_and_no_arguments(tmp_path, capsys):
    assert cli.main(["doctor", "--repo", str(tmp_path)]) == 0
    assert "no agent project configuration" in capsys.readouterr().out
    assert cli.main(["doctor"]) != 0
