"""A reader that closes stdout early (`... | head -1`) ends the command quietly with exit 0;
a broken pipe to anything else is still a failure to evaluate (exit 3)."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from instruction_gate import cli

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("command", [["explain"], ["lint"], ["explain", "--json"]])
def test_a_closed_stdout_ends_quietly_with_exit_0(tmp_path, command):
    (tmp_path / "AGENTS.md").write_text("# Agents\n\n" + "".join(f"- Run `make t{i}`.\n" for i in range(300)))
    child = subprocess.Popen([sys.executable, "-m", "instruction_gate", *command, "--repo", str(tmp_path)],
                             cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    child.stdout.close()  # the reader is gone before the first line is written
    _, err = child.communicate(timeout=120)
    assert child.returncode == 0, err
    assert err == b""


def test_a_broken_pipe_to_a_child_is_not_a_pass(monkeypatch, capsys):
    class Broken:
        @staticmethod
        def run(args):
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setitem(cli.COMMANDS, "explain", ("broken_module", ""))
    monkeypatch.setattr(cli.importlib, "import_module", lambda name: Broken)
    assert cli.execute(argparse.Namespace(command="explain")) == 3
    assert "could not evaluate: Broken pipe" in capsys.readouterr().err
