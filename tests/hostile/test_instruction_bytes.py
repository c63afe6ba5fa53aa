"""Class: instruction files are data. Any bytes, any size up to the cap, any `@import` text:
discovery, the reference agent and the lint read them without raising."""

from __future__ import annotations

import os

import pytest

from instruction_gate.agents.codex.discovery import codex_chain

from instruction_gate.agents.claude.discovery import claude_sources
from instruction_gate.cli import main
from instruction_gate.untrusted import INSTRUCTION_CAP_BYTES, decode_instruction, quote, read_instruction_bytes
from tests.reference_agent.reference_helpers import request, run_agent, workspace

HOSTILE = {
    "nul in an import": b"Run tests.\n@foo\x00bar\n",
    "nul import with a path": b"@docs/\x00/../../etc/passwd\n",
    "binary blob": bytes(range(256)) * 4,
    "invalid utf-8": b"\xff\xfe\xc3\x28 Always run `make test`.\n@\xff\xfe.md\n",
    "newline-like separators in import": "@a\u2028b.md\n@c\u0085d.md\n".encode(),
    "only NULs": b"\x00" * 4096,
    "import of a directory": b"@.\n@..\n@/\n",
    "import of a device": b"@/dev/zero\n@../../../../dev/zero\n",
    "deep import loop": b"@CLAUDE.md\n" * 50,
    "over the cap": b"Always run tests.\n" + b"x" * (INSTRUCTION_CAP_BYTES + 10),
}


@pytest.mark.parametrize("content", HOSTILE.values(), ids=HOSTILE.keys())
def test_discovery_reads_any_bytes(tmp_path, content):
    for name in ("CLAUDE.md", "AGENTS.md", "sub/CLAUDE.md", "sub/AGENTS.override.md"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(content)
    claude = claude_sources(tmp_path, "sub", touched_paths=["sub/x\x00y.py"])
    assert [f.path for f in claude][:2] == ["CLAUDE.md", "sub/CLAUDE.md"]
    codex = codex_chain(tmp_path, "sub")
    assert sum(f.bytes_loaded for f in codex) <= 32 * 1024


def test_special_files_are_not_read(tmp_path):
    os.mkfifo(tmp_path / "AGENTS.md")  # reading a FIFO would block forever
    (tmp_path / "CLAUDE.md").symlink_to("/dev/zero")  # and a device would never end
    assert read_instruction_bytes(tmp_path / "AGENTS.md") is None
    assert read_instruction_bytes(tmp_path / "CLAUDE.md") is None
    assert read_instruction_bytes(str(tmp_path / "a\x00b")) is None
    assert codex_chain(tmp_path, ".") == []
    assert claude_sources(tmp_path, ".") == []


def test_decoding_and_quoting_never_raise():
    assert decode_instruction(b"a\x00\xffb") == "a\ufffd\ufffdb"
    assert quote("evil\n::error::x") == "evil\\n::error::x"
    assert "\n" not in quote("a\r\n\u2028b") and len(quote("x" * 10_000)) < 300


@pytest.mark.parametrize("content", [HOSTILE["nul in an import"], HOSTILE["binary blob"], HOSTILE["invalid utf-8"]],
                         ids=["nul import", "binary", "invalid utf-8"])
def test_reference_agent_completes_on_hostile_instructions(tmp_path, content):
    root = workspace(tmp_path, "bug-tax-rounding")
    for name in ("CLAUDE.md", "AGENTS.md"):
        (root / name).write_bytes(content)
    events = run_agent(request(root, "bug-tax-rounding"))
    assert events[-1]["type"] == "result" and events[-1]["status"] == "completed"
    skipped = [e for e in events if e.get("name") == "import_skipped"]
    if b"@foo\x00bar" in content:  # the fact is recorded, escaped
        assert skipped == [{"type": "instructions", "name": "import_skipped", "path": "CLAUDE.md",
                            "import": "foo\\x00bar", "reason": "not a loadable path (control character)"}]


@pytest.mark.parametrize("content", HOSTILE.values(), ids=HOSTILE.keys())
def test_lint_reports_instead_of_crashing(git_repo, capsys, content):
    git_repo.commit({"CLAUDE.md": "Always run tests.\n", "AGENTS.md": "Use make.\n"}, "base")
    git_repo.commit({"CLAUDE.md": content, "AGENTS.md": content}, "candidate")
    code = main(["lint", "--repo", str(git_repo.path), "--base", "HEAD~1", "--candidate", "HEAD"])
    err = capsys.readouterr().err
    assert code in (0, 1) and "Traceback" not in err


@pytest.mark.parametrize("head", ["fifo", "dev-zero", "symlink", "nul ref", "huge"])
def test_the_agents_git_files_are_read_as_data(tmp_path, head):
    from instruction_gate.rules.capture import workspace_head
    dot_git = tmp_path / ".git"
    (dot_git / "refs" / "heads").mkdir(parents=True)
    sha = "a" * 40
    (dot_git / "refs" / "heads" / "real").write_text(sha + "\n")
    if head == "fifo":
        os.mkfifo(dot_git / "HEAD")  # reading it would block the runner forever
    elif head == "dev-zero":
        (dot_git / "HEAD").symlink_to("/dev/zero")
    elif head == "symlink":
        (dot_git / "HEAD").write_text("ref: refs/heads/main\n")
        (dot_git / "refs" / "heads" / "main").symlink_to(dot_git / "refs" / "heads" / "real")
    elif head == "nul ref":
        (dot_git / "HEAD").write_bytes(b"ref: refs/heads/\x00x\n")
    else:
        (dot_git / "HEAD").write_text("ref: refs/heads/" + "x" * 20_000_000 + "\n")
    assert workspace_head(dot_git) is None
    (dot_git / "HEAD").unlink()
    (dot_git / "HEAD").write_text("ref: refs/heads/real\n")
    assert workspace_head(dot_git) == sha


def test_reference_agent_records_unloadable_imports_by_the_loading_agents_syntax(tmp_path):
    root = workspace(tmp_path, "bug-tax-rounding")
    # Gemini CLI imports inside a `~~~` fence (Claude Code would not): its own syntax decides.
    (root / "GEMINI.md").write_bytes(b"Run tests.\n~~~\n@foo\x01bar\n~~~\n")
    from instruction_gate.reference_agent.agent import Options
    events = run_agent(request(root, "bug-tax-rounding"), Options(discovery="gemini"))
    skipped = [e for e in events if e.get("name") == "import_skipped"]
    assert skipped == [{"type": "instructions", "name": "import_skipped", "path": "GEMINI.md",
                        "import": "foo\\x01bar", "reason": "not a loadable path (control character)"}]
