"""Gemini CLI pieces that need no binary: recorded stream-json transcripts, discovery edge
cases, the session record's exit codes, and the workspace files the adapter refuses."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from agent_helpers import TRANSCRIPTS, exited, parse, write

from instruction_gate.agents.gemini.discovery import gemini_imports, gemini_sources
from instruction_gate.agents.gemini.home import workspace_hazards
from instruction_gate.agents.gemini.session import shell_exit_code
from instruction_gate.agents.gemini.stream import GeminiStream


def test_imports_run_to_the_next_space_and_skip_code():
    text = "See @a.md, @./b.md\n`@c.md` ```\n@d.md\n``` x@e.md @9.md @/abs.md\n@f.md"
    assert gemini_imports(text) == ["a.md,", "./b.md", "/abs.md", "f.md"]


def test_project_files_are_sorted_by_path_and_linked_files_load_once(tmp_path):
    (tmp_path / ".git").mkdir()
    write(tmp_path, "GEMINI.md", "root\n")
    write(tmp_path, "AGENTS.md", "agents\n")
    write(tmp_path, "Api/AGENTS.md", "api\n")
    os.symlink("AGENTS.md", tmp_path / "Api" / "GEMINI.md")
    write(tmp_path, "Api/empty/GEMINI.md", "  \n")
    (tmp_path / "Api" / "empty" / "AGENTS.md").mkdir()  # a directory of that name: nothing
    sources = gemini_sources(tmp_path, "Api/empty", file_names=("AGENTS.md", "GEMINI.md"))
    assert [f.path for f in sources] == ["AGENTS.md", "Api/AGENTS.md", "GEMINI.md"]


def test_imports_stop_at_the_project_root_and_five_levels(tmp_path):
    outside = write(tmp_path, "outside.md", "no\n")
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    write(project, "GEMINI.md", f"@{outside} @../outside.md @l1.md\n")
    for level in range(1, 8):
        write(project, f"l{level}.md", f"@l{level + 1}.md\n")
    sources = gemini_sources(project, "")
    assert [f.path for f in sources] == ["GEMINI.md", "l1.md", "l2.md", "l3.md", "l4.md", "l5.md"]


def test_files_found_just_in_time_come_from_touched_paths_below_the_cwd(tmp_path):
    (tmp_path / ".git").mkdir()
    write(tmp_path, "GEMINI.md", "root\n")
    write(tmp_path, "pkg/GEMINI.md", "pkg\n")
    write(tmp_path, "pkg/deep/GEMINI.md", "deep\n")
    write(tmp_path, "other/GEMINI.md", "never\n")
    sources = gemini_sources(tmp_path, "", touched_paths=["pkg/deep/x.py", "other/../pkg/deep"])
    assert [f.path for f in sources] == ["GEMINI.md", "pkg/GEMINI.md", "pkg/deep/GEMINI.md"]
    assert [f.path for f in gemini_sources(tmp_path, "pkg", touched_paths=["other/y.py"])] == [
        "GEMINI.md", "pkg/GEMINI.md"]


def test_global_files_come_first_under_their_own_name(tmp_path):
    repo, home = tmp_path / "repo", tmp_path / "home"
    (repo / ".git").mkdir(parents=True)
    write(repo, "GEMINI.md", "project\n")
    write(home, ".gemini/GEMINI.md", "global\n")
    assert [f.path for f in gemini_sources(repo, "", home=home)] == ["$GEMINI_CLI_HOME/.gemini/GEMINI.md", "GEMINI.md"]


@pytest.mark.parametrize("response, code", [
    ("<untrusted_context>\nOutput: hi\nProcess Group PGID: 7\n</untrusted_context>", 0),
    ("<untrusted_context>\nOutput: hi\nExit Code: 3\nProcess Group PGID: 7\n</untrusted_context>", 3),
    # Output that spells an exit code is still followed by the real one.
    ("<untrusted_context>\nOutput: Exit Code: 0\nExit Code: 2\nProcess Group PGID: 7\n</untrusted_context>", 2),
    ("<untrusted_context>\nOutput: (empty)\nSignal: 9\nProcess Group PGID: 7\n</untrusted_context>", 137),
    ("Command was cancelled by user before it could complete.", None),
])
def test_shell_exit_codes_from_what_the_model_was_told(response, code):
    assert shell_exit_code(response) == code


def test_workspace_files_that_would_reconfigure_the_cli(tmp_path):
    write(tmp_path, "pkg/.gemini/settings.json", "{}")
    write(tmp_path, ".gemini/.env", "GEMINI_SYSTEM_MD=1\n")
    write(tmp_path, "pkg/sub/.gemini/settings.json", "{}")  # below the cwd: the CLI never reads it
    assert workspace_hazards(tmp_path, tmp_path / "pkg") == ["pkg/.gemini/settings.json", ".gemini/.env"]
    assert workspace_hazards(tmp_path, tmp_path / "pkg" / "sub") == ["pkg/sub/.gemini/settings.json", ".gemini/.env"]


def _recorded_run(repo: Path, home: Path, name: str, **exit) -> tuple[list[dict], object, GeminiStream]:
    """A transcript recorded from Gemini CLI 0.61.0, with its session record where there is one."""
    session = TRANSCRIPTS / name.replace(".jsonl", "_session.jsonl")
    if session.is_file():
        target = home / ".gemini" / "tmp" / "repo" / "chats" / "session-2026-12-01T11-16-db8d387a.jsonl"
        target.parent.mkdir(parents=True)
        target.write_text(session.read_text().replace("/REPO", str(repo)))
    parser = GeminiStream(repo, home)
    events, failure = parse(parser, name, repo, **exit)
    return events, failure, parser


def test_recorded_run_events_exit_codes_and_usage(repo, tmp_path):
    events, failure, parser = _recorded_run(repo, tmp_path / "home", "gemini_full.jsonl")
    assert failure is None and parser.session_id == "db8d387a-e5dd-4158-a0e4-f5fa2edf36f8"
    assert [(e["command"], e.get("exit_code")) for e in events if e["type"] == "tool"] == [
        ("read_file calc.py", 0), ("python -m pytest -q; exit 3", 3), ("replace calc.py", 0),
        ("replace calc.py", 1), ("write_file tests/test_calc.py", 0)]
    # The failed replace changed nothing.
    assert [(e["path"], e.get("change")) for e in events if e["type"] == "file_change"] == [
        ("calc.py", "modify"), ("tests/test_calc.py", None)]
    assert parser.final_message == "Fixed the bug." and parser.tool_calls == 5
    assert (parser.usage.input_tokens, parser.usage.output_tokens, parser.usage.cached_input_tokens) == (900, 64, 100)
    assert parser.touched_paths == ["calc.py", "tests/test_calc.py"]


def test_without_the_session_record_shell_exit_codes_stay_unknown(repo, tmp_path):
    parser = GeminiStream(repo, tmp_path / "empty-home")
    events, failure = parse(parser, "gemini_full.jsonl", repo)
    shell = [e for e in events if e.get("tool") == "run_shell_command"]
    assert failure is None and len(shell) == 1 and "exit_code" not in shell[0]


@pytest.mark.parametrize("name, code, reason", [
    ("gemini_truncated.jsonl", 0, "provider_error"),  # exits 0 after "ended without a finish reason"
    ("gemini_rate_limited.jsonl", 173, "rate_limited"),
    ("gemini_context_overflow.jsonl", 144, "agent_error"),
    ("gemini_max_turns.jsonl", 53, "max_turns"),
])
def test_recorded_failures(repo, tmp_path, name, code, reason):
    _, failure, _ = _recorded_run(repo, tmp_path / "home", name, code=code)
    assert failure is not None and failure.reason == reason


@pytest.mark.parametrize("stderr, code, reason", [
    ('Error resuming session: Invalid session identifier "x".', 42, "session_lost"),
    ("When using Gemini API, you must specify the GEMINI_API_KEY environment variable.", 41, "auth_failed"),
    ("Attempt 1 failed with status 503. Retrying with backoff...", 1, "provider_error"),
])
def test_failures_before_any_result(repo, tmp_path, stderr, code, reason):
    parser = GeminiStream(repo, tmp_path)
    assert parser.end_process(exited(code, stderr))[1].reason == reason


def test_files_past_the_harness_read_cap_are_reported_at_their_full_size(tmp_path):
    # The CLI sends a context file whole, and imports what it names past the harness's 1 MiB read cap.
    from instruction_gate.untrusted import INSTRUCTION_CAP_BYTES
    (tmp_path / ".git").mkdir()
    big = write(tmp_path, "GEMINI.md", " " * INSTRUCTION_CAP_BYTES + "rule @docs/x.md\n")
    write(tmp_path, "docs/x.md", "imported\n")
    write(tmp_path, "pkg/GEMINI.md", "\n\t \n")  # whitespace alone: nothing sent
    sources = gemini_sources(tmp_path, "pkg")
    assert [(f.path, f.size, f.bytes_loaded) for f in sources] == [
        ("GEMINI.md", big.stat().st_size, big.stat().st_size), ("docs/x.md", 9, 9)]


def test_reported_bytes_are_the_decoded_trimmed_text_the_cli_sends(tmp_path):
    # Checked against Gemini CLI 0.61: a context file goes out decoded (invalid bytes as U+FFFD)
    # and trimmed (a byte-order mark too); an imported file is inlined decoded, untrimmed,
    # between two comments that count as the importing file's.
    from instruction_gate.agents.discovery import result_fields
    (tmp_path / ".git").mkdir()
    (tmp_path / "GEMINI.md").write_bytes(b"\xef\xbb\xbf\n\n  Rules \xff caf\xc3\xa9 @imp.md\n\n\n")
    (tmp_path / "imp.md").write_bytes(b"\n  imported \xff\n\n")
    sources, sizes = result_fields(gemini_sources(tmp_path, "."))
    assert sources == ["GEMINI.md", "imp.md"]
    marked = "<!-- Imported from: imp.md -->\n\n<!-- End of import from: imp.md -->"
    assert sizes == {"GEMINI.md": len(f"Rules \ufffd café {marked}".encode()),
                     "imp.md": len("\n  imported \ufffd\n\n".encode())}


def test_only_calls_that_succeed_load_context_files_just_in_time(repo, tmp_path):
    # Recorded from Gemini CLI 0.61.0: a read_file call rejected for a wrong argument name
    # (`absolute_path`), one of a file that does not exist, then one that succeeds.
    parser = GeminiStream(repo, tmp_path / "home")
    events, failure = parse(parser, "gemini_failed_reads.jsonl", repo)
    assert failure is None
    assert [(e["command"], e["exit_code"]) for e in events if e["type"] == "tool"] == [
        ("read_file pkg/x.py", 1), ("read_file gone/missing.py", 1), ("read_file ok/y.py", 0)]
    assert parser.touched_paths == ["ok/y.py"]


def test_reported_bytes_include_the_text_the_cli_leaves_for_each_failed_import(tmp_path):
    # Gemini CLI 0.61 replaces a reference it cannot import by a comment saying why, with
    # Node's error message and the absolute path it tried; a cycle leaves a comment too.
    from instruction_gate.agents.discovery import result_fields
    root = Path(os.path.realpath(tmp_path))
    write(root, "outside.md", "outside\n")
    project = root / "p"
    (project / ".git").mkdir(parents=True)
    write(project, "GEMINI.md", "# @pkg/core\n@docs @x.py/y.md @../outside.md @https://e.com/z.md @a.md\n")
    write(project, "docs/keep.md", "k\n")
    write(project, "x.py", "x = 1\n")
    write(project, "a.md", "a @a.md\n")
    sources, sizes = result_fields(gemini_sources(project, "."))
    failed = "<!-- Import failed: {} - {} -->".format
    sent = " ".join([
        "# " + failed("pkg/core", f"ENOENT: no such file or directory, access '{project}/pkg/core'") + "\n"
        + failed("docs", "EISDIR: illegal operation on a directory, read"),
        failed("x.py/y.md", f"ENOTDIR: not a directory, access '{project}/x.py/y.md'"),
        failed("../outside.md", "Path traversal attempt"), failed("https://e.com/z.md", "Path traversal attempt"),
        "<!-- Imported from: a.md -->\n\n<!-- End of import from: a.md -->"])
    assert sources == ["GEMINI.md", "a.md"]
    assert sizes == {"GEMINI.md": len(sent.encode()), "a.md": len("a <!-- File already processed: a.md -->\n")}
