"""Skills: folders holding a `SKILL.md` (YAML front matter `name`, `description`; then the body).

An agent that loads skills puts each skill's name and description in front of the model at
start-up and sends the body only when the skill is invoked. Which folders count, and what a
SKILL.md needs to be listed, differ per CLI; `SKILL_AGENTS` holds what was verified live
against each pinned CLI through the scripted provider (tests/live_cli/test_live_skills.py):

- Claude Code: `.claude/skills/<folder>/SKILL.md` of every directory from the root to the cwd;
  one level only; listed under the folder's name (a different front-matter `name` is accepted
  too); without a description, the body's first line is shown. Folders below the cwd load
  when the agent touches a file beside them. Legacy `.claude/commands/*.md` are listed as
  skills as well (not read here: no SKILL.md).
- Codex: `.agents/skills` and `.codex/skills` from the root to the cwd, searched at any depth;
  a description is required; the name is the front matter's, else the folder's.
- Gemini CLI: `.gemini/skills` and `.agents/skills` of the cwd only, one level; name and
  description required.
- OpenCode: `.claude/skills` and `.agents/skills` from the cwd up to the root, at any depth;
  name and description required.
- Copilot CLI: `.github/skills`, `.agents/skills` and `.claude/skills` from the cwd up to the
  root, at any depth; a front matter is required, nothing in it (the folder's name, the body's
  start stand in).

Every CLI wants the front matter on the file's first line (`---`, CRLF accepted). The CLIs
read a front matter that is not valid YAML leniently (`description: a: b` is listed); here it
is parsed with pyyaml, and what pyyaml refuses is marked not understood (`problem`), never a
crash, and still counted as listed. Pure functions over a checked-out tree: nothing here runs an agent.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

import yaml

from instruction_gate.agents.discovery import dirs_root_to_cwd, resolve
from instruction_gate.untrusted import read_instruction_bytes

SKILL_FILE = "SKILL.md"
#: Skill folders read per skills directory at most: a hostile tree must not cost unbounded time.
MAX_SKILLS_PER_DIRECTORY = 500
#: How deep the agents that search below a skills directory are followed here.
MAX_DEPTH = 6
_FRONT_MATTER = re.compile(rb"\A---[ \t]*\r?\n(.*?)^---[ \t]*(?:\r?\n|\Z)", re.S | re.M)


@dataclass(frozen=True)
class Skill:
    """One SKILL.md as an agent's skills loader sees it."""

    path: str  #: repository-relative POSIX path of the SKILL.md
    folder: str  #: the name of the folder holding it
    name: str | None  #: front-matter `name`; None when absent or not understood
    description: str | None  #: front-matter `description` (folded to one line); None when absent
    body: bytes  #: what follows the front matter: what reaches the model on invocation
    problem: str | None = None  #: why the front matter is not understood; None when it is (or absent)
    front_matter: bool = True  #: the file opens with a front matter block

    @property
    def listed_name(self) -> str:
        """The name the skill is listed and invoked under (front matter, else folder)."""
        return self.name or self.folder


@dataclass(frozen=True)
class SkillRules:
    """Where one agent's pinned CLI finds project skills and what it needs to list one."""

    directories: tuple[str, ...]  #: skills directories, relative to each directory searched
    reach: str  #: "root_to_cwd": every directory from the root to the cwd; "cwd": the cwd only
    recursive: bool  #: SKILL.md files below a skill folder's first level count too
    needs_name: bool  #: a front-matter `name` is required to be listed
    needs_description: bool  #: a front-matter `description` is required to be listed
    needs_front_matter: bool  #: a SKILL.md without front matter is not listed
    invocation: str  #: how an invocation shows in the CLI's own stream (for people)
    verified: str  #: the CLI release these rules were checked against, live
    on_touch: bool = False  #: skills directories below the cwd load once a file beside them is touched
    by_folder: bool = False  #: listed under the folder's name, whatever the front matter says

    def name_of(self, skill: "Skill") -> str:
        """The name this agent lists `skill` under."""
        return skill.folder if self.by_folder else skill.listed_name


SKILL_AGENTS: dict[str, SkillRules] = {
    "claude": SkillRules((".claude/skills",), "root_to_cwd", False, False, False, False,
                         "a `Skill` tool call (`input.skill`)", "2.1.328", on_touch=True, by_folder=True),
    "codex": SkillRules((".agents/skills", ".codex/skills"), "root_to_cwd", True, False, True, True,
                        "`$name` in the prompt (body injected), or a command reading the SKILL.md", "0.171.0"),
    "gemini": SkillRules((".gemini/skills", ".agents/skills"), "cwd", False, True, True, True,
                         "an `activate_skill` tool call (`parameters.name`)", "0.61.0"),
    "opencode": SkillRules((".claude/skills", ".agents/skills"), "root_to_cwd", True, True, True, True,
                           "a `skill` tool call (`state.input.name`)", "1.18.33"),
    "copilot": SkillRules((".github/skills", ".agents/skills", ".claude/skills"), "root_to_cwd", True, False, False,
                          True, "a `skill` tool call (`arguments.skill`)", "1.0.102"),
}


def parse_skill(path: str, data: bytes) -> Skill:
    """A SKILL.md's front matter and body; bad YAML gives `problem`, never an exception."""
    folder = Path(path).parent.name
    match = _FRONT_MATTER.match(data)
    if match is None:
        return Skill(path, folder, None, None, data, front_matter=False)
    body = data[match.end():]
    try:
        fields: Any = yaml.safe_load(match.group(1).decode("utf-8", errors="replace"))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (front matter line {mark.line + 1})" if mark is not None else ""
        return Skill(path, folder, None, None, body, f"front matter is not YAML{where}: "
                                                     f"{getattr(exc, 'problem', None) or 'unreadable'}")
    if fields is None:
        fields = {}
    if not isinstance(fields, dict):
        return Skill(path, folder, None, None, body, "front matter is not a mapping of fields")
    name, description = fields.get("name"), fields.get("description")
    problem = next((f"front matter `{key}` is not text" for key, value in (("name", name), ("description", description))
                    if value is not None and not isinstance(value, str)), None)
    return Skill(path, folder, name.strip() or None if isinstance(name, str) else None,
                 " ".join(description.split()) or None if isinstance(description, str) else None, body, problem)


def listed(skill: Skill, rules: SkillRules) -> bool:
    """Whether the agent lists this skill (Claude Code lists every one, falling back on the folder's
    name and the body's first line). A front matter pyyaml refuses counts as listed: each CLI was
    seen reading one leniently, and a skill that may reach the model must not be left out."""
    if skill.problem is not None:
        return True
    if (rules.needs_name and skill.name is None) or (rules.needs_front_matter and not skill.front_matter):
        return False
    return not (rules.needs_description and skill.description is None)


def skill_files(root: Path | str, agent: str, cwd: Path | str = ".", touched: Iterable[str] = ()) -> list[Skill]:
    """The project skills `agent` lists for a run in `cwd` (repository-relative or absolute), in
    its directories' order: those listed up front, then, for an agent that adds skills on touch,
    those of the directories below `cwd` down to each `touched` file (repository-relative); []
    for an agent without verified skill loading. A name listed twice keeps its first skill."""
    rules = SKILL_AGENTS.get(agent)
    if rules is None:
        return []
    repo, here = resolve(root, cwd)
    try:
        searched = dirs_root_to_cwd(repo, here) if rules.reach == "root_to_cwd" else [here]
    except ValueError:  # a cwd outside the repository: no project skills of this repository
        return []
    for path in touched if rules.on_touch else ():
        folder = Path(os.path.normpath(repo / path)).parent
        if folder != here and folder.is_relative_to(here):
            searched += [d for d in dirs_root_to_cwd(here, folder)[1:] if d not in searched]
    found: dict[str, Skill] = {}
    for directory in searched:
        for skill in skills_under(repo, directory, rules):
            if listed(skill, rules):
                found.setdefault(rules.name_of(skill), skill)
    return list(found.values())


def skills_under(repo: Path, directory: Path, rules: SkillRules) -> list[Skill]:
    """Every SKILL.md in `directory`'s skills directories per `rules`, understood or not."""
    out: list[Skill] = []
    for relative in rules.directories:
        top = directory / relative
        if not top.is_dir() or not Path(os.path.realpath(top)).is_relative_to(repo):
            continue  # a link out of the repository is not the repository's skill
        for skill_md in _skill_paths(top, rules.recursive):
            if not Path(os.path.realpath(skill_md)).is_relative_to(repo):
                continue
            data = read_instruction_bytes(skill_md)
            if data is not None:
                out.append(parse_skill(skill_md.relative_to(repo).as_posix(), data))
    return out


def _skill_paths(top: Path, recursive: bool) -> list[Path]:
    """`<folder>/SKILL.md` under `top`, sorted; with `recursive`, also deeper ones (links to
    folders are not followed below the first level, so a loop ends)."""
    paths: list[Path] = []
    pending = [(top, 0)]
    while pending and len(paths) < MAX_SKILLS_PER_DIRECTORY:
        folder, depth = pending.pop(0)
        try:
            children = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError:
            continue
        for child in children:
            if not child.is_dir(follow_symlinks=depth == 0):
                continue
            if os.path.isfile(os.path.join(child.path, SKILL_FILE)):
                paths.append(Path(child.path) / SKILL_FILE)
            elif recursive and depth + 1 < MAX_DEPTH:
                pending.append((Path(child.path), depth + 1))
    return paths[:MAX_SKILLS_PER_DIRECTORY]


def skill_named(skills: list[Skill], name: str) -> Skill | None:
    """The skill an invocation by `name` loads: its listed name, else its folder's name."""
    return next((s for s in skills if s.listed_name == name), None) or next(
        (s for s in skills if s.folder == name), None)
