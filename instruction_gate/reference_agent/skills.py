"""Which project skills the reference agent invokes.

The skills it can see are those the agents of its discovery mode list for the run's cwd
(`agents/skills.py`). It invokes a skill when something it was given names it: a turn's prompt
says the skill's name as a word (`release`, `$release`, `/release`), or a line of a loaded
instruction file names it in code (`` `release` ``, `$release`, `/release`) beside the word
"skill". It never guesses from a description whether a skill fits a task: a model would, and an
offline agent that pretended to would make the gate's skill metrics measure that guess. An
invoked skill's SKILL.md is read (a tool call), and its body's directives join the plan like
those of any instruction file.
"""

from __future__ import annotations

import re
from pathlib import Path

from instruction_gate.agents.skills import Skill, skill_files

_SKILL_WORD = re.compile(r"\bskills?\b", re.IGNORECASE)


def visible_skills(repo_root: Path, cwd: str, agents: tuple[str, ...]) -> list[Skill]:
    """Every skill any of `agents` lists for a run in `cwd`, once per SKILL.md."""
    found: dict[str, Skill] = {}
    for agent in agents:
        for skill in skill_files(repo_root, agent, cwd):
            found.setdefault(skill.path, skill)
    return list(found.values())


def _names_in_prompt(name: str, prompt: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", prompt, re.IGNORECASE) is not None


def _named_in_instructions(name: str, texts: list[str]) -> bool:
    coded = re.compile(rf"(`[$/]?{re.escape(name)}`|(?<![\w-])[$/]{re.escape(name)}(?![\w-]))")
    return any(coded.search(line) and _SKILL_WORD.search(line) for text in texts for line in text.splitlines())


def invoked(skills: list[Skill], prompts: list[str], instruction_texts: list[str]) -> list[Skill]:
    """The skills the prompts or the loaded instructions name, in the order of `skills`."""
    return [s for s in skills if any(_names_in_prompt(s.listed_name, p) for p in prompts)
            or _named_in_instructions(s.listed_name, instruction_texts)]
