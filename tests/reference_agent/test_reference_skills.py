"""The reference agent invokes a project skill only when its prompt or instructions name it, reads
the SKILL.md, follows its body and reports it in `skills_invoked`."""

import subprocess

from reference_helpers import commands, request, run_agent

from instruction_gate.reference_agent.agent import Options

SKILL = ("---\nname: release\ndescription: Use when the tax code changes.\n---\n"
         "Always run `git status --short` after the change.\n")
AGENTS = "# Project\n\nKeep changes small.\n"


def _run(tmp_path, prompt: str, files: dict[str, str], discovery: str = "both"):
    """A small repository (no test suite to run, no solution to apply): only skills matter."""
    root = tmp_path / "ws"
    for path, text in {"AGENTS.md": AGENTS, **files}.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    events = run_agent(request(root, "skills", prompt=prompt, solution=False), Options(discovery=discovery))
    return events, events[-1]


def test_a_prompt_naming_the_skill_invokes_it(tmp_path):
    events, result = _run(tmp_path, "Fix the rounding bug; the release skill applies.",
                          {".claude/skills/release/SKILL.md": SKILL})
    assert result["skills_invoked"] == ["release"] and result["lazy_instruction_sources"] == []
    assert {"type": "tool", "tool": "read_file", "path": ".claude/skills/release/SKILL.md", "turn": 0} in events
    assert "git status --short" in commands(events)
    assert ".claude/skills/release/SKILL.md" not in result["instruction_sources"]  # a skill, not a start-up file


def test_a_skill_nobody_names_stays_unread(tmp_path):
    events, result = _run(tmp_path, "Fix the rounding bug.", {".claude/skills/release/SKILL.md": SKILL})
    assert result["skills_invoked"] == []
    assert "git status --short" not in commands(events)


def test_an_instruction_line_naming_the_skill_invokes_it(tmp_path):
    agents = AGENTS + "\nFor tax changes use the `$release` skill.\n"
    _, result = _run(tmp_path, "Fix the rounding bug.", {".agents/skills/release/SKILL.md": SKILL, "AGENTS.md": agents})
    assert result["skills_invoked"] == ["release"]


def test_only_the_skills_its_discovery_mode_lists(tmp_path):
    # Codex lists `.agents/skills` and `.codex/skills`, never `.claude/skills`.
    _, result = _run(tmp_path, "Fix it with the release skill.", {".claude/skills/release/SKILL.md": SKILL},
                     discovery="codex")
    assert result["skills_invoked"] == []
