"""Project skills per agent: which SKILL.md files each pinned CLI lists, and their front matter."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from instruction_gate.agents.skills import SKILL_AGENTS, parse_skill, skill_files, skill_named


def _write(root: Path, files: dict[str, str]) -> Path:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def _skill(name: str | None, description: str | None = "Use when releasing.", body: str = "Run make release.\n") -> str:
    fields = "".join(f"{k}: {v}\n" for k, v in (("name", name), ("description", description)) if v is not None)
    return f"---\n{fields}---\n{body}"


def test_front_matter_and_body():
    skill = parse_skill(".claude/skills/release/SKILL.md",
                        b"---\r\nname: release\r\ndescription: >\r\n  Use when\r\n  releasing.\r\n---\r\nBody.\r\n")
    assert (skill.name, skill.description, skill.body, skill.folder, skill.problem) == (
        "release", "Use when releasing.", b"Body.\r\n", "release", None)


@pytest.mark.parametrize("data, problem", [
    (b"---\nname: x\ndescription: a: b: [c\n---\nbody\n", "front matter is not YAML (front matter line 2)"),
    (b"---\n- a\n- b\n---\nbody\n", "front matter is not a mapping of fields"),
    (b"---\nname: [1]\ndescription: d\n---\nbody\n", "front matter `name` is not text"),
    (b"---\nname: x\ndescription: \"\\xff\x00\"\n---\n", "front matter is not YAML"),
])
def test_front_matter_not_understood_is_a_problem_not_a_crash(data, problem):
    skill = parse_skill("s/x/SKILL.md", data)
    assert skill.problem is not None and skill.problem.startswith(problem), skill.problem
    assert skill.body.startswith(b"body") or not skill.body


def test_no_front_matter_or_a_late_one_is_all_body():
    for data in (b"Just text.\n", b"\n---\nname: x\ndescription: d\n---\nbody\n"):
        skill = parse_skill("s/x/SKILL.md", data)
        assert (skill.name, skill.description, skill.body, skill.problem) == (None, None, data, None)


def test_each_agent_reads_its_own_directories(tmp_path):
    root = _write(tmp_path, {f"{d}/{n}/SKILL.md": _skill(n) for d, n in (
        (".claude/skills", "c"), (".agents/skills", "a"), (".codex/skills", "x"), (".gemini/skills", "g"),
        (".opencode/skill", "o"), (".github/skills", "h"))})
    found = {agent: sorted(s.listed_name for s in skill_files(root, agent)) for agent in SKILL_AGENTS}
    assert found == {"claude": ["c"], "codex": ["a", "x"], "gemini": ["a", "g"], "opencode": ["a", "c"],
                     "copilot": ["a", "c", "h"]}
    assert skill_files(root, "reference-unknown") == []


def test_reach_from_a_subdirectory_and_depth(tmp_path):
    root = _write(tmp_path, {
        ".agents/skills/top/SKILL.md": _skill("top"), "sub/.agents/skills/near/SKILL.md": _skill("near"),
        ".agents/skills/group/deep/SKILL.md": _skill("deep"), "other/.agents/skills/off/SKILL.md": _skill("off"),
        ".claude/skills/top/SKILL.md": _skill("top"), ".claude/skills/group/deep/SKILL.md": _skill("deep"),
        "sub/.claude/skills/near/SKILL.md": _skill("near"), "sub/.gemini/skills/g/SKILL.md": _skill("g")})
    names = lambda agent, cwd: sorted(s.listed_name for s in skill_files(root, agent, cwd))  # noqa: E731
    assert names("codex", "sub") == ["deep", "near", "top"]  # root to cwd, at any depth
    assert names("opencode", "sub") == ["deep", "near", "top"]
    assert names("claude", "sub") == ["near", "top"]  # one level
    assert names("gemini", "sub") == ["g", "near"]  # the cwd only
    assert names("gemini", ".") == ["top"]


def test_claude_adds_the_skills_of_a_folder_it_touched_below_the_cwd(tmp_path):
    root = _write(tmp_path, {"apps/web/.claude/skills/deploy/SKILL.md": _skill("deploy"), "apps/web/page.txt": "p",
                             "apps/.claude/skills/mid/SKILL.md": _skill("mid"), "other/x.txt": "x"})
    names = lambda agent, touched: [s.listed_name for s in skill_files(root, agent, ".", touched)]  # noqa: E731
    assert names("claude", []) == [] and names("claude", ["other/x.txt", "../outside"]) == []
    assert names("claude", ["apps/web/page.txt"]) == ["mid", "deploy"]
    assert names("opencode", ["apps/web/page.txt"]) == []  # no skill loads later in OpenCode


def test_what_each_agent_needs_to_list_a_skill(tmp_path):
    root = _write(tmp_path, {
        ".agents/skills/noname/SKILL.md": _skill(None), ".agents/skills/nodesc/SKILL.md": _skill("nodesc", None),
        ".agents/skills/plain/SKILL.md": "Plain text.\n", ".claude/skills/noname/SKILL.md": _skill(None),
        ".claude/skills/plain/SKILL.md": "Plain text.\n", ".claude/skills/folder/SKILL.md": _skill("other")})
    names = lambda agent: sorted(s.path for s in skill_files(root, agent))  # noqa: E731
    assert names("codex") == [".agents/skills/noname/SKILL.md"]  # a description is enough
    assert names("gemini") == []  # name and description
    assert names("opencode") == [".claude/skills/folder/SKILL.md"]
    assert names("claude") == [f".claude/skills/{n}/SKILL.md" for n in ("folder", "noname", "plain")]
    # Copilot CLI wants a front matter, and nothing in it (the second `noname` is the same name).
    assert names("copilot") == [".agents/skills/nodesc/SKILL.md", ".agents/skills/noname/SKILL.md",
                                ".claude/skills/folder/SKILL.md"]
    claude = skill_files(root, "claude")
    # Claude Code lists a skill under its folder, and takes the front matter's name as well.
    assert skill_named(claude, "folder") is skill_named(claude, "other") is not None
    assert SKILL_AGENTS["claude"].name_of(skill_named(claude, "other")) == "folder"


def test_a_front_matter_not_understood_still_lists_the_skill(tmp_path):
    # Every pinned CLI listed this one (it reads the YAML leniently): it may reach the model.
    root = _write(tmp_path, {".agents/skills/odd/SKILL.md": "---\nname: odd\ndescription: a: b: [c\n---\nBody.\n"})
    for agent in ("codex", "gemini", "opencode", "copilot"):
        [skill] = skill_files(root, agent)
        assert (skill.listed_name, skill.problem is not None) == ("odd", True)


def test_a_name_listed_twice_keeps_the_first(tmp_path):
    root = _write(tmp_path, {".agents/skills/a/SKILL.md": _skill("same", "first"),
                             ".agents/skills/b/SKILL.md": _skill("same", "second")})
    [skill] = skill_files(root, "gemini")
    assert skill.description == "first"


def test_links_loops_and_odd_files_never_crash(tmp_path):
    root = _write(tmp_path / "repo", {".agents/skills/real/SKILL.md": _skill("real"), "outside.txt": "x"})
    _write(tmp_path, {"elsewhere/skills/out/SKILL.md": _skill("out")})
    os.symlink("../../..", root / ".agents/skills/loop")  # a loop back to the root
    os.makedirs(root / ".agents/skills/dir/SKILL.md")  # a directory named SKILL.md
    os.mkfifo(root / ".agents/skills/fifo-skill")
    (root / ".codex").mkdir()
    os.symlink(tmp_path / "elsewhere/skills", root / ".codex/skills")  # out of the repository
    os.makedirs(root / ".claude")
    os.symlink("../.agents/skills", root / ".claude/skills")  # shared skills through a link
    assert [s.listed_name for s in skill_files(root, "codex")] == ["real"]
    assert [s.path for s in skill_files(root, "opencode")] == [".claude/skills/real/SKILL.md"]
    assert skill_files(root, "codex", "/nowhere") == []


# -- what each adapter's stream parser reports as invoked ---------------------------------------
def test_claude_reports_a_skill_call_the_cli_answered(tmp_path):
    from instruction_gate.agents.claude.stream import ClaudeStream
    parser = ClaudeStream(tmp_path)
    calls = [("t1", "release", False), ("t2", "nosuch", True), ("t3", "release", False)]
    for tool_id, name, error in calls:
        parser.handle({"type": "assistant", "message": {"id": tool_id, "content": [
            {"type": "tool_use", "id": tool_id, "name": "Skill", "input": {"skill": name}}]}})
        parser.handle({"type": "user", "message": {"content": [
            {"type": "tool_result", "tool_use_id": tool_id, "content": "Launching skill", "is_error": error}]}})
    assert parser.skills_invoked == ["release"]


def test_gemini_and_opencode_report_successful_skill_tools(tmp_path):
    from instruction_gate.agents.gemini.stream import GeminiStream
    from instruction_gate.agents.opencode.stream import OpenCodeStream
    gemini = GeminiStream(tmp_path, tmp_path / "home")
    for tool_id, name, status in (("a", "release", "success"), ("b", "other", "error")):
        gemini.handle({"type": "tool_use", "tool_name": "activate_skill", "tool_id": tool_id, "parameters": {"name": name}})
        gemini.handle({"type": "tool_result", "tool_id": tool_id, "status": status})
    assert gemini.skills_invoked == ["release"]
    opencode = OpenCodeStream(tmp_path)
    for name, status in (("release", "completed"), ("other", "error")):
        opencode.handle({"type": "tool_use", "part": {"tool": "skill", "state": {"status": status, "input": {"name": name}}}})
    assert opencode.skills_invoked == ["release"]


def test_codex_reports_mentions_and_reads_of_listed_skills(tmp_path):
    from instruction_gate.agents.codex.stream import CodexStream
    root = _write(tmp_path, {".agents/skills/release/SKILL.md": _skill("release"),
                             ".codex/skills/notes/SKILL.md": _skill("notes"), "sub/x.txt": "x"})
    parser = CodexStream(root, workspace=root / "sub")
    parser.sent_prompt("Use $release, then $nosuch; costs $5.")
    for index, (command, code) in enumerate([("cat ../.codex/skills/notes/SKILL.md", 0),
                                             ("cat ../.agents/skills/gone/SKILL.md", 1)]):
        parser.handle({"type": "item.completed", "item": {"id": f"i{index}", "type": "command_execution",
                                                          "command": f"/bin/bash -lc '{command}'", "exit_code": code}})
    assert parser.skills_invoked == ["release", "notes"]


def test_a_skill_call_names_its_skill_in_the_tool_event(tmp_path):
    from instruction_gate.agents.claude.stream import ClaudeStream
    parser = ClaudeStream(tmp_path)
    parser.handle({"type": "assistant", "message": {"id": "m", "content": [
        {"type": "tool_use", "id": "t", "name": "Skill", "input": {"skill": "release"}}]}})
    [event] = parser.handle({"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "t"}]}})
    assert (event["tool"], event["command"]) == ("Skill", "Skill release")


def test_the_agents_that_load_a_skill_file_are_those_whose_skill_folders_hold_it():
    from instruction_gate.agents.loading import is_instruction_file, loading_agents
    assert loading_agents(".github/skills/release/SKILL.md") == ("copilot",)
    assert set(loading_agents("pkg/.agents/skills/x/SKILL.md")) == {"codex", "gemini", "opencode", "copilot"}
    assert loading_agents("notes.claude/skills/x/SKILL.md") == ()  # a folder that only ends like one
    assert not is_instruction_file("notes.claude/skills/x/SKILL.md")
    assert is_instruction_file(".cursor/rules/ts.mdc") and loading_agents(".cursor/rules/ts.mdc") == ("cursor",)
