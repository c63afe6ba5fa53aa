"""Project skills against each pinned CLI that loads them: the description reaches the model up
front, the body only after an invocation, and the adapter's `skills_invoked` names what was
invoked (agents/skills.py holds the rules these runs verify). One short run per agent."""

from __future__ import annotations

import json
import os
from pathlib import Path

from instruction_gate.agents.conformance import run_live
from instruction_gate.agents.scripted_provider import Step
from instruction_gate.agents.skills import SKILL_AGENTS, skill_files
from tests.conftest import GitRepo

DESCRIPTION = "Use when cutting a release DESC7Q."
BODY = "Release steps BODY4K: run make release.\n"
UNUSED_BODY = "Never invoked BODY9Z.\n"


def _skill(name: str, description: str, body: str) -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n{body}"


def _repo(tmp_path: Path, skills_dir: str, extra: dict[str, str] | None = None) -> GitRepo:
    repo = GitRepo(tmp_path / "repo")
    repo.commit({"AGENTS.md": "Agents.\n", "CLAUDE.md": "Claude.\n", "calc.py": "x = 1\n",
                 f"{skills_dir}/release/SKILL.md": _skill("release", DESCRIPTION, BODY),
                 f"{skills_dir}/unused/SKILL.md": _skill("unused", "Use for nothing at all.", UNUSED_BODY),
                 **(extra or {})})
    return repo


def _sent(run) -> list[str]:
    return [json.dumps(request.body) for request in run.requests]


def _check(run, agent: str, repo: GitRepo, invoked: list[str]) -> None:
    assert run.result["status"] == "completed", (run.result, run.stderr)
    sent = _sent(run)
    assert "DESC7Q" in sent[0] and "BODY4K" not in sent[0]  # the description up front, not the body
    assert "BODY4K" in sent[-1] and "BODY9Z" not in sent[-1]  # the body after the invocation
    assert run.result["skills_invoked"] == invoked
    assert {"release", "unused"} <= {s.listed_name for s in skill_files(repo.path, agent)}
    # The rules in agents/skills.py were verified on this release.
    assert SKILL_AGENTS[agent].verified in (run.result["provenance"]["harness_version"] or "")


def test_claude_code_skill_tool(claude_bin, tmp_path):
    repo = _repo(tmp_path, ".claude/skills", {"sub/CLAUDE.md": "Nested.\n", "sub/notes.txt": "n\n"})
    run = run_live("claude", claude_bin, repo.path, [
        Step("tool", name="Read", args={"file_path": str(repo.path / "sub/notes.txt")}),
        Step("tool", name="Skill", args={"skill": "nosuch"}),  # an error result: nothing sent
        Step("tool", name="Skill", args={"skill": "release"}), Step("text", text="ok")], tmp_path)
    _check(run, "claude", repo, ["release"])
    # The nested CLAUDE.md reached the model only once a file beside it was read.
    assert run.result["lazy_instruction_sources"] == ["sub/CLAUDE.md"]


def test_codex_mention_and_read(codex_bin, tmp_path):
    repo = _repo(tmp_path, ".agents/skills", {".codex/skills/notes/SKILL.md": _skill("notes", "Notes.", "NOTES3B.\n")})
    run = run_live("codex", codex_bin, repo.path, [
        Step("tool", name="shell", args={"command": "cat .agents/skills/release/SKILL.md"}), Step("text", text="ok")],
        tmp_path, turns=("Use $notes for this.",))
    # `$notes` sends that whole SKILL.md with the prompt; `release` is read by a command.
    _check(run, "codex", repo, ["notes", "release"])
    assert "NOTES3B" in _sent(run)[0]
    assert run.result["lazy_instruction_sources"] == []


def test_gemini_activate_skill(gemini_bin, tmp_path):
    repo = _repo(tmp_path, ".gemini/skills")
    run = run_live("gemini", gemini_bin, repo.path, [
        Step("tool", name="activate_skill", args={"name": "release"}), Step("text", text="ok")], tmp_path)
    _check(run, "gemini", repo, ["release"])


def test_opencode_skill_tool(opencode_bin, tmp_path):
    repo = _repo(tmp_path, ".agents/skills", {".claude/skills/claude-side/SKILL.md": _skill("claude-side", "C.", "C.\n")})
    # The skill tool lists the skill folder's other files with ripgrep, which OpenCode would
    # otherwise download: a stand-in `rg` finding nothing stands for it.
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "rg").write_text("#!/bin/sh\nexit 1\n")
    (tools / "rg").chmod(0o755)
    run = run_live("opencode", opencode_bin, repo.path, [
        Step("tool", name="skill", args={"name": "release"}), Step("text", text="ok")], tmp_path,
        env_extra={"PATH": f"{tools}:{os.environ['PATH']}"})
    _check(run, "opencode", repo, ["release"])
    assert "claude-side" in _sent(run)[0]  # `.claude/skills` too



def test_copilot_skill_tool(copilot_bin, tmp_path):
    repo = _repo(tmp_path, ".github/skills", {".claude/skills/claude-side/SKILL.md": _skill("claude-side", "C.", "C.\n"),
                                              ".agents/skills/agents-side/SKILL.md": _skill("agents-side", "A.", "A.\n")})
    run = run_live("copilot", copilot_bin, repo.path, [
        Step("tool", name="skill", args={"skill": "release"}), Step("text", text="ok")], tmp_path)
    _check(run, "copilot", repo, ["release"])
    assert "claude-side" in _sent(run)[0] and "agents-side" in _sent(run)[0]
