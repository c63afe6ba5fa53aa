"""The reference agent reads the files its discovery mode loads: Copilot's and Cursor's formats too."""

from __future__ import annotations

import subprocess

from instruction_gate.reference_agent.agent import Options

from tests.reference_agent.reference_helpers import EXAMPLE, commands, request, run_agent, workspace

TASK = "bug-tax-rounding"


def _moved(front_matter: str = "") -> str:
    """The example's AGENTS.md as another format's file (after its front matter)."""
    return front_matter + (EXAMPLE / "AGENTS.md").read_text()


def test_copilot_and_cursor_modes_read_their_own_files(tmp_path):
    root = workspace(tmp_path, TASK, {"AGENTS.md": None, "CLAUDE.md": None})
    for path, text in {".github/copilot-instructions.md": _moved(),
                       ".cursor/rules/project.mdc": _moved("---\ndescription: project rules\nalwaysApply: true\n---\n"),
                       ".cursor/rules/py.mdc": "---\nglobs: \"**/*.py\"\n---\nRun `python -m pytest -q x.py`.\n"}.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "formats"], cwd=root, check=True)
    req = request(root, TASK)
    copilot = run_agent(req, Options(discovery="copilot"))
    cursor = run_agent(req, Options(discovery="cursor"))
    assert copilot[-1]["instruction_sources"] == [".github/copilot-instructions.md"]
    # The always-applied rule loads; the glob-scoped one waits for a matching file, so it is not read.
    assert cursor[-1]["instruction_sources"] == [".cursor/rules/project.mdc"]
    for events in (copilot, cursor):
        # Its front matter is no directive; the test command it names runs, from the repository root.
        assert "python -m pytest -q" in commands(events)
        assert not any("pip install" in c for c in commands(events))
    assert run_agent(req, Options(discovery="codex"))[-1]["instruction_sources"] == []
