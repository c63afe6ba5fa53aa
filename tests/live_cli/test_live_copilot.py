"""The Copilot adapter against the pinned GitHub Copilot CLI and a scripted OpenAI-compatible
(Chat Completions) provider: events, usage, failure classes, and the instruction files and
skills that reached the model, compared with what the adapter reports."""

from __future__ import annotations

from pathlib import Path

import pytest

from instruction_gate.agents.conformance import copilot_block_files, copilot_instructions, run_live
from instruction_gate.agents.scripted_provider import Step
from tests.conftest import GitRepo
from tests.live_cli.conftest import assert_usage_matches_the_provider

FAST_FAIL = {"stall_seconds": "0.5"}


@pytest.fixture(scope="session")
def unpacked(tmp_path_factory) -> dict[str, str]:
    """Where the binary unpacks its program, shared by the runs of one test process (a second each)."""
    return {"COPILOT_PKG_CACHE_HOME": str(tmp_path_factory.mktemp("copilot-pkg"))}

FILES = {
    ".github/copilot-instructions.md": "Use tabs.\n",
    "AGENTS.md": "\ufeffRun the tests.\r\nKeep it short.  \n\n",
    "CLAUDE.md": "Claude rules: @docs/style.md, not `@docs/code.md`.\n",  # imports expanded
    "docs/style.md": "Style.\n@deeper.md\n",
    "docs/deeper.md": "Deeper.\n",
    "docs/code.md": "Code.\n",
    "GEMINI.md": "",  # empty: an empty block, nothing reported
    "pkg/AGENTS.md": "Package rules.\n",
    "pkg/GEMINI.md": "Package Gemini rules.\n",
    "pkg/calc.py": "x = 1\n",
    "pkg/deep/AGENTS.md": "Deep rules.\n@notes.md\n",
    "pkg/deep/notes.md": "Deep notes.\n",
    "pkg/deep/data.txt": "d\n",
    "other/AGENTS.md": "Other rules.\n",
    "other/notes.txt": "n\n",
    ".github/instructions/always.instructions.md": "Everywhere rule.\n",
    ".github/instructions/py.instructions.md": '---\napplyTo: "**/*.py"\ndescription: Python\n---\nPython rule.\n',
    ".github/instructions/ts.instructions.md": "---\napplyTo: '**/*.ts'\n---\nTypeScript rule.\n",
    ".github/skills/release/SKILL.md": "---\nname: release\ndescription: Cut a release of the package\n---\n"
                                       "Release steps: bump, tag, push.\n",
    ".claude/skills/lint/SKILL.md": "---\nname: lint\ndescription: Lint the code\n---\nLint body.\n",
}


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    repo = GitRepo(tmp_path / "repo")
    repo.commit(FILES)
    return repo


def _text(repo: GitRepo, path: str) -> str:
    return (repo.path / path).read_bytes().decode("utf-8").removeprefix("\ufeff")


def _files(repo: GitRepo, sent: str) -> list[tuple[str | None, str]]:
    """A sent file's own text, then each file it imported, named repository-relative."""
    return [(path if path is None else Path(path).relative_to(repo.path).as_posix(), text)
            for path, text in copilot_block_files(sent)]


def test_tool_calls_usage_instructions_and_skills(copilot_bin, repo, tmp_path, unpacked):
    pkg = repo.path / "pkg"
    run = run_live("copilot", copilot_bin, repo.path, [
        Step("tool", name="bash", args={"command": "echo hi; exit 3", "description": "x"},
             input_tokens=120, output_tokens=7),
        Step("tool", name="edit", args={"path": str(pkg / "calc.py"), "old_str": "x = 1", "new_str": "x = 2"},
             input_tokens=150, cached_tokens=100, output_tokens=9),
        Step("tool", name="create", args={"path": str(pkg / "new.py"), "file_text": "y = 1\n"}),
        Step("tool", name="view", args={"path": str(pkg / "calc.py")}),  # the applyTo **/*.py rule
        Step("tool", name="view", args={"path": str(pkg / "deep" / "data.txt")}),  # AGENTS.md below the cwd
        Step("tool", name="view", args={"path": str(repo.path / "other" / "notes.txt")}),  # off the path
        Step("tool", name="skill", args={"skill": "release"}),
        Step("text", text="Fixed.", input_tokens=170, output_tokens=25)], tmp_path, cwd="pkg",
        options={"price_per_mtok": "1,0.5,10"}, env_extra=unpacked)
    result = run.result
    assert result["status"] == "completed", run.stderr
    assert run.commands() == [("echo hi; exit 3", 3), ("edit pkg/calc.py", 0), ("create pkg/new.py", 0),
                              ("view pkg/calc.py", 0), ("view pkg/deep/data.txt", 0), ("view other/notes.txt", 0),
                              ("skill release", 0)]
    assert (pkg / "calc.py").read_text() == "x = 2\n"
    assert [(e["path"], e.get("change")) for e in run.of_type("file_change")] == [("pkg/calc.py", "modify"),
                                                                                   ("pkg/new.py", "add")]
    assert result["tool_calls"] == 7 and result["final_message"] == "Fixed."
    assert_usage_matches_the_provider(result, run.requests, prices_per_mtok=(1, 0.5, 10))
    assert result["provenance"]["harness_version"] == "1.0.102"

    # At start: blocks for the root's and the cwd's files, then the files that apply everywhere.
    start = [".github/copilot-instructions.md", "AGENTS.md", "CLAUDE.md", "docs/style.md", "docs/deeper.md",
             "pkg/AGENTS.md", "pkg/GEMINI.md", ".github/instructions/always.instructions.md"]
    lazy = [".github/instructions/py.instructions.md", "pkg/deep/AGENTS.md", "pkg/deep/notes.md", "other/AGENTS.md"]
    sent = copilot_instructions(run.requests[0])
    order = [".github/copilot-instructions.md", "AGENTS.md", "CLAUDE.md", "GEMINI.md", "pkg/AGENTS.md",
             "pkg/GEMINI.md"]
    # Byte for byte: BOM dropped, nothing trimmed; CLAUDE.md's import (and its import) inside its block.
    assert [_files(repo, block) for block in sent.blocks] == [
        [(None, _text(repo, p))] + ([("docs/style.md", _text(repo, "docs/style.md")),
                                     ("docs/deeper.md", _text(repo, "docs/deeper.md"))] if p == "CLAUDE.md" else [])
        for p in order]
    assert sent.everywhere == "\n\n" + _text(repo, ".github/instructions/always.instructions.md") + "\n\n"
    assert "'.github/instructions/py.instructions.md' | Python" in sent.table
    # Later: each lazily loaded file's text after the tool result that pulled it in.
    reminders = [r for request in run.requests for r in copilot_instructions(request).reminders]
    assert [(p, _files(repo, text)) for p, text in dict.fromkeys(reminders)] == [
        (".github/instructions/py.instructions.md", [(None, _text(repo, ".github/instructions/py.instructions.md"))]),
        ("pkg/deep/AGENTS.md", [(None, _text(repo, "pkg/deep/AGENTS.md")),
                                ("pkg/deep/notes.md", _text(repo, "pkg/deep/notes.md"))]),
        ("other/AGENTS.md", [(None, _text(repo, "other/AGENTS.md"))])]
    assert result["instruction_sources"] == start + lazy
    assert result["lazy_instruction_sources"] == lazy
    assert result["instruction_bytes"] == {p: len(_text(repo, p).encode()) for p in start + lazy}

    # Skills: every description up front, the body only once invoked.
    system = run.requests[0].body["messages"][0]["content"]
    assert "Cut a release of the package" in system and "Lint the code" in system
    assert "Release steps" not in str(run.requests[0].body)
    assert "Release steps: bump, tag, push." in str(run.requests[-1].body["messages"][-1])
    assert result["skills_invoked"] == ["release"]
    assert "scripted-key" not in str([r.body for r in run.requests])


def test_resumed_turns_keep_every_command(copilot_bin, repo, tmp_path, unpacked):
    run = run_live("copilot", copilot_bin, repo.path, [
        Step("tool", name="bash", args={"command": "ls -a", "description": "one"}), Step("text", text="a"),
        Step("tool", name="bash", args={"command": "git status --short", "description": "two"}),
        Step("text", text="b")], tmp_path, turns=("one", "-two"), env_extra=unpacked)
    assert run.result["status"] == "completed", run.stderr
    assert run.commands() == [("ls -a", 0), ("git status --short", 0)]
    assert [e["turn"] for e in run.of_type("tool")] == [0, 1]
    # The second process continued the first one's conversation; a prompt may start with "-".
    assert len(run.requests) == 4 and "ls -a" in str(run.requests[2].body["messages"])
    assert run.requests[2].body["messages"][-1]["content"].endswith("-two")
    # The session record repeats the first process's calls: each is counted once.
    assert (run.result["input_tokens"], run.result["output_tokens"]) == (400, 40)


def test_refused_tool_is_reported_as_never_run(copilot_bin, repo, tmp_path, unpacked):
    run = run_live("copilot", copilot_bin, repo.path, [
        Step("tool", name="bash", args={"command": "rm CLAUDE.md", "description": "x"}), Step("text", text="ok")],
        tmp_path, options={"extra_args": "--deny-tool=shell(rm)"}, env_extra=unpacked)
    assert run.result["status"] == "completed", run.stderr
    [tool] = run.of_type("tool")
    assert tool["command"] == "rm CLAUDE.md" and "exit_code" not in tool and "shell(rm)" in tool["refused"]
    assert [e["command"] for e in run.of_type("policy") if e.get("name") == "permission_denied"] == ["rm CLAUDE.md"]
    assert (repo.path / "CLAUDE.md").exists()


@pytest.mark.parametrize("step, timeout, reason", [
    (Step("status", status=401, times=0), 30, "auth_failed"),  # two quick retries, then the error
    (Step("status", status=500, times=0), 8, "provider_error"),  # still retrying at the deadline (16 s)
    (Step("garbage", times=0), 30, "provider_error"),  # 5 retries a second apart, then the error
    (Step("hang_headers", times=0), 8, "provider_error"),  # no answer: killed at the deadline
])
def test_provider_failures_are_infrastructure(copilot_bin, repo, tmp_path, unpacked, step, timeout, reason):
    run = run_live("copilot", copilot_bin, repo.path, [step], tmp_path, options=FAST_FAIL, timeout=timeout,
                   hang_seconds=30, env_extra=unpacked)
    assert (run.result["failure_class"], run.result["failure_reason"]) == ("infrastructure", reason), \
        (run.result, run.stderr)
    assert run.result["instruction_sources"]  # the request went out with them


def test_context_overflow_is_the_agents(copilot_bin, repo, tmp_path, unpacked):
    run = run_live("copilot", copilot_bin, repo.path, [Step(
        "status", status=400, times=0, message="This model's maximum context length is 128000 tokens.")], tmp_path,
        env_extra=unpacked)
    assert (run.result["failure_class"], run.result["failure_reason"]) == ("agent", "agent_error"), run.stderr
    assert len(run.requests) == 1  # not retried


def test_a_tool_running_past_the_deadline_is_the_agents_timeout(copilot_bin, repo, tmp_path, unpacked):
    run = run_live("copilot", copilot_bin, repo.path, [
        Step("tool", name="bash", args={"command": "sleep 60", "description": "x", "initial_wait": 120})],
        tmp_path, options=FAST_FAIL, timeout=9, env_extra=unpacked)
    assert (run.result["status"], run.result["failure_reason"]) == ("timeout", "timeout"), run.stderr
    assert run.commands() == [("sleep 60", None)]


def test_cli_not_found_is_infrastructure(repo, tmp_path):
    run = run_live("copilot", tmp_path / "missing" / "copilot", repo.path, [], tmp_path)
    assert (run.result["failure_class"], run.result["failure_reason"]) == ("infrastructure", "cli_not_found")
