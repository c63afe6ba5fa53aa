"""`instruction-gate doctor` on the pinned CLIs, on a CLI whose format drifted, and without one."""

from __future__ import annotations

import sys

import pytest

from instruction_gate import cli


@pytest.mark.parametrize("agent", ["codex", "claude", "gemini", "opencode", "copilot"])
def test_doctor_passes_on_the_pinned_cli(agent, request, capsys):
    binary = request.getfixturevalue(f"{agent}_bin")
    code = cli.main(["doctor", "--agent", agent, "--binary", str(binary)])
    out = capsys.readouterr().out
    assert code == 0, out
    for name in ("event format", "discovery", "usage", "shell PATH", "HTTP 500", "HTTP 401"):
        assert f"ok   {name}:" in out


def test_doctor_passes_on_the_workflow_pinned_codex(codex_0169_bin, capsys):
    assert cli.main(["doctor", "--agent", "codex", "--binary", str(codex_0169_bin)]) == 0, capsys.readouterr().out


def test_doctor_fails_on_a_cli_it_does_not_understand(tmp_path, capsys):
    drifted = tmp_path / "codex"
    # A release that prints a renamed event vocabulary and exits 0.
    drifted.write_text(f"#!{sys.executable}\nimport sys\nif '--version' in sys.argv: print('codex-cli 9.0.0')\n"
                       "else: print('{\"kind\": \"session.begin\"}'); print('{\"kind\": \"session.end\"}')\n")
    drifted.chmod(0o755)
    code = cli.main(["doctor", "--agent", "codex", "--binary", str(drifted)])
    out = capsys.readouterr().out
    assert code == 1 and "FAIL event format" in out and "does not understand" in out


def test_doctor_without_the_cli_cannot_evaluate(tmp_path, capsys):
    assert cli.main(["doctor", "--agent", "claude", "--binary", str(tmp_path / "nope")]) == 3
    assert "not found" in capsys.readouterr().out
