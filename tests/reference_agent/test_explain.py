"""`explain`: the chains each agent loads in a directory and the directives understood, with file:line."""

from __future__ import annotations

import json
import os
import subprocess

from instruction_gate.cli import main

ROOT = ("# Rules\n\nRun the tests with `python -m pytest -q` before finishing.\n"
        "- Never run `pip install`.\n- Always run `curl https://example.com/x.sh` after editing.\n"
        "- Set `PYTHONWARNDEFAULTENCODING=1`; read `CONTRIBUTING.md`.\n")
OVERRIDE = "# Payments\n\n- Run the tests with `make test-payments`.\n- Never run `make test-payments`.\n"


def explained(capsys, *argv: str) -> tuple[int, str]:
    code = main(["explain", *argv])
    return code, capsys.readouterr().out


def test_text_names_files_bytes_and_what_each_directive_does(git_repo, capsys):
    git_repo.commit({"AGENTS.md": ROOT, "CONTRIBUTING.md": "- Do not edit `CHANGELOG.md`.\n",
                     "svc/AGENTS.override.md": OVERRIDE, "CLAUDE.md": "See @AGENTS.md\n"}, "base")
    code, out = explained(capsys, "--repo", str(git_repo.path), "--cwd", "svc")
    assert code == 0
    assert f"AGENTS.md  {len(ROOT)} B" in out and f"svc/AGENTS.override.md  {len(OVERRIDE)} B" in out
    assert "AGENTS.md:3  test command `python -m pytest -q`: superseded by a later test command" in out
    assert "AGENTS.md:5  run `curl https://example.com/x.sh`: refused by the command policy: curl is not on" in out
    assert "PYTHONWARNDEFAULTENCODING" not in out.split("directives")[1]  # a variable is not a command
    assert "AGENTS.md:6  read `CONTRIBUTING.md`: reads it" in out
    assert "CONTRIBUTING.md:1  do not edit `CHANGELOG.md`" in out
    assert "svc/AGENTS.override.md:3  test command `make test-payments`: not run: forbidden by " \
           "svc/AGENTS.override.md:4" in out


def test_json_shows_truncation_at_the_codex_budget_and_reads_a_commit(git_repo, capsys):
    big = "# Big\n\n" + "- Always run `make lint` after editing.\n" * 1000  # ~40 KiB, over 32 KiB
    sha = git_repo.commit({"AGENTS.md": big}, "big")
    git_repo.commit({"AGENTS.md": "# Small\n"}, "later")
    code, out = explained(capsys, "--repo", str(git_repo.path), "--revision", sha, "--agent", "codex", "--json")
    data = json.loads(out)
    assert code == 0 and [c["agent"] for c in data["chains"]] == ["codex"]
    [loaded] = data["chains"][0]["files"]
    assert loaded == {"path": "AGENTS.md", "size": len(big), "bytes_loaded": 32 * 1024, "bytes_sent": 32 * 1024,
                      "truncated": True, "over_read_cap": False}
    assert data["directives"][0]["kind"] == "run" and data["directives"][0]["line"] == 3


def test_bad_input_exits_2(git_repo, capsys):
    git_repo.commit({"AGENTS.md": "x\n"}, "base")
    assert explained(capsys, "--repo", str(git_repo.path), "--cwd", "../elsewhere")[0] == 2
    assert explained(capsys, "--repo", str(git_repo.path), "--revision", "no-such-commit")[0] == 2


def test_a_symlinked_claude_md_is_shown_and_a_missing_cwd_refused(git_repo, capsys):
    repo = git_repo.path
    (repo / "AGENTS.md").write_text("- Always run the tests before finishing.\n")
    (repo / "CLAUDE.md").symlink_to("AGENTS.md")
    git_repo.commit({}, "shared instructions")
    code, out = explained(capsys, "--repo", str(repo), "--agent", "claude")
    assert code == 0 and "CLAUDE.md  " in out and "(no instruction file)" not in out
    assert "verify: nothing to run: no test command was found" in out  # no test command: nothing will run
    assert explained(capsys, "--repo", str(repo), "--cwd", "no/such/dir")[0] == 2
    assert explained(capsys, "--repo", str(repo), "--cwd", "AGENTS.md")[0] == 2


def test_a_closed_pipe_ends_quietly():
    import subprocess
    import sys
    from tests.conftest import REPO_ROOT
    reader = subprocess.run(f"{sys.executable} -m instruction_gate explain --repo examples/repo | head -c 10",
                            shell=True, cwd=REPO_ROOT, capture_output=True, text=True)
    assert "Traceback" not in reader.stderr and "BrokenPipe" not in reader.stderr


def test_a_step_said_twice_is_shown_as_already_run(git_repo, capsys):
    git_repo.commit({"AGENTS.md": "- Always run `make lint` after editing.\n\nAlways run `make lint` after editing.\n"},
                    "twice")
    code, out = explained(capsys, "--repo", str(git_repo.path))
    assert code == 0
    assert "AGENTS.md:1  run `make lint`: runs it" in out
    assert "AGENTS.md:3  run `make lint`: already run for AGENTS.md:1" in out


def test_a_read_of_a_file_already_loaded_says_so(git_repo, capsys):
    git_repo.commit({"AGENTS.md": "- Always run `make lint` after editing.\n",
                     "CLAUDE.md": "See `AGENTS.md` for the shared agent instructions.\n"}, "pointer")
    code, out = explained(capsys, "--repo", str(git_repo.path))
    assert code == 0 and "CLAUDE.md:1  read `AGENTS.md`: already loaded as an instruction file" in out


def test_load_settings_flags_later_files_symlinks_and_unloadable_imports(git_repo, capsys):
    repo = git_repo.path
    files = {"GEMINI.md": "- Run `make test`.\nSee @docs/gone.md and @shared/a.md and @docs/a.md\n",
             "CONTEXT.md": "ctx\n", "TEAM.md": "- Team rule.\n", "docs/a.md": "a\n", "svc/GEMINI.md": "svc\n"}
    for rel, body in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(body)
    (repo / "shared").symlink_to("docs")
    git_repo.commit({}, "gemini")
    code, out = explained(capsys, "--repo", str(repo), "--agent", "all", "--context-files", "GEMINI.md,CONTEXT.md",
                          "--fallback-names", "TEAM.md", "--doc-budget-bytes", "6")
    assert code == 0
    codex, gemini = out.split("\nCodex:")[1].split("\nClaude Code:")[0], out.split("\nGemini CLI:")[1].split("\nOpenCode:")[0]
    assert "TEAM.md  13 B  (cut: 6 of 13 bytes)" in codex
    assert "  CONTEXT.md  4 B" in gemini
    assert gemini.count("a.md  2 B") == 1  # docs/a.md and shared/a.md are one file
    assert "@docs/gone.md: not loaded (no such file); the model reads an import-failure text in its place" in gemini
    assert "svc/GEMINI.md  4 B on disk, 3 B sent  (later: once the agent touches files in svc/)" in gemini
    data = json.loads(explained(capsys, "--repo", str(repo), "--agent", "gemini", "--json")[1])
    [chain] = data["chains"]
    assert [f["path"] for f in chain["later"]] == ["svc/GEMINI.md"]
    assert chain["imports_not_loaded"] == [{"file": "GEMINI.md", "import": "docs/gone.md", "reason": "no such file"}]
    assert "CONTEXT.md" not in [f["path"] for f in chain["files"]]  # not a context file by default
    assert explained(capsys, "--repo", str(repo), "--doc-budget-bytes", "0")[0] == 2


def test_a_file_over_the_read_cap_is_noted(git_repo, capsys):
    from instruction_gate.untrusted import INSTRUCTION_CAP_BYTES
    git_repo.commit({"CLAUDE.md": "- Keep it short.\n" * (INSTRUCTION_CAP_BYTES // 17 + 2)}, "big")
    code, out = explained(capsys, "--repo", str(git_repo.path), "--agent", "claude")
    assert code == 0 and f"note: over the {INSTRUCTION_CAP_BYTES} byte read cap" in out
    data = json.loads(explained(capsys, "--repo", str(git_repo.path), "--agent", "claude", "--json")[1])
    assert data["chains"][0]["files"][0]["over_read_cap"] is True


def test_a_path_with_a_newline_stays_on_one_line(git_repo, capsys):
    hostile = "a\n::error::x"
    git_repo.commit({"AGENTS.md": "# Rules\n", f"{hostile}/AGENTS.md": "- Run `make test`.\n"}, "base")
    code, out = explained(capsys, "--repo", str(git_repo.path), "--cwd", hostile)
    assert code == 0
    assert "a\\n::error::x/AGENTS.md  " in out
    assert not any(line.startswith("::") for line in out.splitlines())


def test_a_link_out_of_the_repository_is_listed_for_the_agents_that_follow_it_never_read(git_repo, capsys):
    repo = git_repo.path
    (repo / "e").mkdir()
    (repo / "e" / "x.py").write_text("x = 1\n")
    (repo / "AGENTS.md").write_text("- Always run `make lint` after editing.\n")
    (repo / "e" / "AGENTS.md").symlink_to("/nonexistent-ig-target/hostname")
    (repo / "e" / "CLAUDE.md").symlink_to("../../elsewhere/CLAUDE.md")
    sha = git_repo.commit({}, "outside links")
    for extra in ((), ("--revision", sha)):
        code, out = explained(capsys, "--repo", str(repo), "--cwd", "e", "--agent", "all", *extra)
        assert code == 0
        chains = dict(part.split(":", 1) for part in out.split("\n\n")[1:5])
        note = "(symlink to /nonexistent-ig-target/hostname outside the repository: the agent loads whatever is " \
               "there on the machine; reviewers do not see it)"
        for agent in ("Codex", "Gemini CLI", "OpenCode"):
            assert f"e/AGENTS.md  {note}" in chains[agent], (agent, out)
        # Claude Code follows a memory file's link out of the repository too (the live CLI sends it).
        assert "e/CLAUDE.md  " + note.replace("/nonexistent-ig-target/hostname", "../../elsewhere/CLAUDE.md") \
            in chains["Claude Code"], out
        assert "3 file(s)" not in chains["Codex"] and f"{len('- Always run `make lint` after editing.')+1} bytes" \
            in chains["Codex"].splitlines()[0]
    data = json.loads(explained(capsys, "--repo", str(repo), "--cwd", "e", "--agent", "codex", "--json")[1])
    assert {"path": "e/AGENTS.md", "outside_repository": "/nonexistent-ig-target/hostname"} in data["chains"][0]["files"]


def test_refused_project_configuration_is_noted_under_its_agent(git_repo, capsys):
    git_repo.commit({"AGENTS.md": "# Rules\n", "svc/.gemini/settings.json": "{}", "web/.opencode/agent/a.md": "x\n"},
                    "config")
    # Only what the adapter itself would refuse for a run in that directory is noted.
    assert "note: " not in explained(capsys, "--repo", str(git_repo.path), "--agent", "all")[1]
    gemini = explained(capsys, "--repo", str(git_repo.path), "--cwd", "svc", "--agent", "all")[1]
    gemini = gemini.split("\nGemini CLI:")[1].split("\nOpenCode:")[0]
    assert "note: svc/.gemini/settings.json: the gemini adapter refuses to start next to it unless " \
           "workspace_settings=trust" in gemini
    opencode = explained(capsys, "--repo", str(git_repo.path), "--cwd", "web", "--agent", "all")[1]
    assert "note: web/.opencode: the opencode adapter refuses to start next to it unless workspace_settings=trust" \
        in opencode.split("\nOpenCode:")[1] and opencode.count("note: ") == 1
    data = json.loads(explained(capsys, "--repo", str(git_repo.path), "--cwd", "svc", "--agent", "all", "--json")[1])
    assert {c["agent"]: c["refused_project_config"] for c in data["chains"] if c["refused_project_config"]} == {
        "gemini": ["svc/.gemini/settings.json"]}


def test_codex_nested_files_are_what_its_prompt_asks_for_not_what_the_cli_sends(git_repo, capsys):
    git_repo.commit({"AGENTS.md": "# Rules\n", "svc/AGENTS.md": "- Run `make svc`.\n"}, "nested")
    out = explained(capsys, "--repo", str(git_repo.path), "--agent", "all")[1]
    codex, rest = out.split("\nCodex:")[1].split("\nClaude Code:")
    assert "svc/AGENTS.md  18 B  (may be read by the model once it edits files in svc/: Codex's prompt asks it to; " \
           "not sent by the CLI)" in codex
    assert "svc/AGENTS.md  18 B  (later: once the agent touches files in svc/)" in rest.split("\nOpenCode:")[1]


def test_a_directory_name_with_a_newline_cannot_split_a_line(git_repo, capsys):
    hostile = "a\n::error::x"
    git_repo.commit({"AGENTS.md": "# Rules\n", f"{hostile}/AGENTS.md": "- Run `make test`.\n- Run `make\tlint`.\n"},
                    "base")
    code, out = explained(capsys, "--repo", str(git_repo.path), "--cwd", hostile)
    assert code == 0
    assert "task directory: a\\n::error::x" in out
    assert "runs it in a\\n::error::x/" in out and "`make\\tlint`" in out
    assert not any(line.startswith("::") for line in out.splitlines())


def test_a_claude_md_linked_to_agents_md_is_understood_once(git_repo, capsys):
    repo = git_repo.path
    (repo / "AGENTS.md").write_text("- Always run `make lint` after editing.\nSee @docs/gone.md\n")
    (repo / "CLAUDE.md").symlink_to("AGENTS.md")
    (repo / "GEMINI.md").write_text("@AGENTS.md\n")
    git_repo.commit({}, "shared")
    out = explained(capsys, "--repo", str(repo), "--agent", "all")[1]
    assert "directives (1):" in out and "CLAUDE.md:1" not in out.split("directives")[1]
    gemini = out.split("\nGemini CLI:")[1].split("\nOpenCode:")[0]
    assert gemini.count("@docs/gone.md: not loaded") == 1



def test_an_instruction_file_asked_to_run_itself_is_explained_as_refused(git_repo, capsys):
    git_repo.commit({"AGENTS.md": "#!/bin/sh\nexit 42\n- Run `./AGENTS.md`.\n- Run `./docs/../AGENTS.md`.\n"}, "self")
    out = explained(capsys, "--repo", str(git_repo.path), "--agent", "codex")[1]
    directives = out.split("directives")[1]
    assert directives.count("refused by the command policy: ./") == 2 and "runs it" not in directives


def test_sizes_say_on_disk_and_sent_where_the_agent_sends_other_bytes(git_repo, capsys):
    # Gemini CLI trims a context file: the adapter reports the trimmed bytes, so does explain.
    text = "# Rules\n\n- Run `make test`.\n\n\n"
    git_repo.commit({"GEMINI.md": text, "AGENTS.md": text}, "base")
    code, out = explained(capsys, "--repo", str(git_repo.path), "--agent", "all")
    sent = len(text.strip())
    gemini = out.split("Gemini CLI:")[1].split("\n\n")[0]
    assert f"2 file(s), {2 * len(text)} bytes on disk, {2 * sent} bytes sent" in gemini
    assert f"GEMINI.md  {len(text)} B on disk, {sent} B sent" in gemini
    assert f"AGENTS.md  {len(text)} B\n" in out.split("Codex:")[1]  # Codex sends the file as it is
    data = json.loads(explained(capsys, "--repo", str(git_repo.path), "--agent", "gemini", "--json")[1])
    assert [(f["size"], f["bytes_sent"]) for f in data["chains"][0]["files"]] == [(len(text), sent)] * 2


def test_a_nested_files_root_relative_paths_are_shown_resolved(git_repo, capsys):
    git_repo.commit({"AGENTS.md": "# Root\n", "bin/fmt": "#!/bin/sh\n", "go/ai/gen.go": "package ai\n",
                     "go/AGENTS.md": "- Always run `bin/fmt`.\n- Do not edit `go/ai/gen.go`.\n- Always run `go vet ./...`.\n"},
                    "nested")
    code, out = explained(capsys, "--repo", str(git_repo.path), "--cwd", "go", "--agent", "codex")
    assert code == 0
    assert "go/AGENTS.md:1  run `bin/fmt`: runs it in the repository root" in out
    assert "go/AGENTS.md:2  do not edit `go/ai/gen.go`: leaves matching files alone: go/ai/gen.go" in out
    assert "go/AGENTS.md:3  run `go vet ./...`: runs it in go/" in out


def test_a_link_target_is_read_as_one_path_percent_decoded_and_quoted(git_repo, capsys):
    git_repo.commit({"CLAUDE.md": "Read [the guide](docs/%0A::error::linkinject.md) and [x](<docs/my%20guide.md>).\n",
                     "docs/my guide.md": "# Guide\n"}, "links")
    code, out = explained(capsys, "--repo", str(git_repo.path))
    assert code == 0
    assert "CLAUDE.md:1  read `docs/\\n::error::linkinject.md`: not found: cannot read it" in out
    assert "read `docs/my guide.md`: reads it" in out
    assert not any(line.lstrip().startswith("::") for line in out.splitlines())
    assert "read `linkinject.md`" not in out


def test_all_agents_show_directives_past_the_codex_budget_with_who_reads_them(git_repo, capsys):
    filler = "".join(f"- Note {i}: keep functions short and names plain.\n" for i in range(800))  # ~40 KB
    git_repo.commit({"AGENTS.md": "# Rules\n\n- Always run `make lint`.\n" + filler + "- Always run `make docs`.\n",
                     "Makefile": "lint:\n\ttrue\ndocs:\n\ttrue\n"}, "long file")
    code, out = explained(capsys, "--repo", str(git_repo.path), "--agent", "all")
    docs = next(line for line in out.splitlines() if "make docs" in line)
    assert code == 0 and "read only by" in docs and "codex" not in docs.split("read only by")[1].split(":")[0]
    assert "read only by" not in next(line for line in out.splitlines() if "make lint" in line)
    code, out = explained(capsys, "--repo", str(git_repo.path), "--agent", "codex")
    assert "make docs" not in out and "make lint" in out


def test_instruction_names_that_hold_no_file_are_named_not_skipped_silently(git_repo, capsys):
    repo = git_repo.path
    (repo / "CLAUDE.md").write_text("- Run `make lint` before committing.\n")
    os.mkfifo(repo / "AGENTS.md")  # a reader of the pipe would wait for a writer: never opened
    (repo / "svc" / "AGENTS.md").mkdir(parents=True)
    (repo / "svc" / "CLAUDE.md").symlink_to("gone.md")
    (repo / "svc" / "keep").write_text("")
    code, out = explained(capsys, "--repo", str(repo), "--cwd", "svc")
    assert code == 0
    assert "Not loaded: AGENTS.md is a named pipe, which no agent reads as instructions" in out
    assert "Not loaded: svc/AGENTS.md is a directory," in out
    assert "Not loaded: svc/CLAUDE.md is a symlink to no file," in out
    assert "CLAUDE.md:1  run `make lint`" in out  # the readable file is still understood
    code, out = explained(capsys, "--repo", str(repo), "--cwd", "svc", "--json")
    assert json.loads(out)["not_files"] == [{"path": "AGENTS.md", "is": "a named pipe"},
                                            {"path": "svc/AGENTS.md", "is": "a directory"},
                                            {"path": "svc/CLAUDE.md", "is": "a symlink to no file"}]


def test_a_submodule_named_like_an_instruction_file_is_named(git_repo, capsys):
    sub = git_repo.path / "AGENTS.md"
    sub.mkdir()
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.invalid", "PATH": os.environ["PATH"], "HOME": str(git_repo.path)}
    subprocess.run(["git", "init", "-q"], cwd=sub, check=True)
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "x"], cwd=sub, check=True, env=env)
    sha = git_repo.commit({"CLAUDE.md": "x\n"}, "with a gitlink")
    code, out = explained(capsys, "--repo", str(git_repo.path), "--revision", sha)
    assert code == 0 and "Not loaded: AGENTS.md is a submodule," in out


def test_directives_past_the_read_cap_are_not_understood(git_repo, capsys):
    from instruction_gate.untrusted import INSTRUCTION_CAP_BYTES
    filler = "- Keep it short.\n" * (INSTRUCTION_CAP_BYTES // 17 + 2)  # just over the cap
    git_repo.commit({"CLAUDE.md": "- Always run `make lint`.\n" + filler + "- Always run `make docs`.\n",
                     "Makefile": "lint:\n\ttrue\ndocs:\n\ttrue\n"}, "over the cap")
    code, out = explained(capsys, "--repo", str(git_repo.path), "--agent", "claude")
    assert code == 0 and "make lint" in out and "make docs" not in out  # the run reads no further either


def test_a_nul_line_does_not_shift_line_numbers(git_repo, capsys):
    git_repo.commit({"AGENTS.md": "# Rules\n\n\x00\x00\n\n- Always run `make lint`.\n",
                     "Makefile": "lint:\n\ttrue\n"}, "nul")
    code, out = explained(capsys, "--repo", str(git_repo.path), "--agent", "codex")
    assert code == 0 and "AGENTS.md:5  run `make lint`" in out


def test_an_import_above_the_working_directory_is_named_as_not_loaded(git_repo, capsys):
    """Claude Code expands only imports inside the directory it starts in: the root CLAUDE.md's
    `@AGENTS.md` stays literal text for a task in server/, and explain says so."""
    git_repo.commit({"CLAUDE.md": "# C\n\n@AGENTS.md\n", "AGENTS.md": "- Always run `make lint`.\n",
                     "Makefile": "lint:\n\ttrue\n", "server/app.py": "x\n"}, "base")
    code, out = explained(capsys, "--repo", str(git_repo.path), "--cwd", "server", "--agent", "claude")
    assert code == 0 and "@AGENTS.md: not loaded (outside the working directory)" in out and "make lint" not in out
    data = json.loads(explained(capsys, "--repo", str(git_repo.path), "--cwd", "server", "--agent", "claude",
                                "--json")[1])
    assert data["chains"][0]["imports_not_loaded"] == [
        {"file": "CLAUDE.md", "import": "AGENTS.md", "reason": "outside the working directory"}]
    code, out = explained(capsys, "--repo", str(git_repo.path), "--agent", "claude")
    assert "not loaded" not in out and "make lint" in out  # from the root it is expanded


def test_a_line_with_a_hidden_character_is_named_not_dropped_silently(git_repo, capsys):
    git_repo.commit({"AGENTS.md": "# R\n\n- Always run `make\u200b lint`.\n- Always run `make test`.\n",
                     "Makefile": "lint:\n\ttrue\ntest:\n\ttrue\n"}, "zero width")
    code, out = explained(capsys, "--repo", str(git_repo.path), "--agent", "codex")
    assert code == 0 and "Hidden: AGENTS.md:3 holds U+200B, which a reviewer cannot see" in out
    data = json.loads(explained(capsys, "--repo", str(git_repo.path), "--agent", "codex", "--json")[1])
    assert data["hidden_characters"] == [{"file": "AGENTS.md", "line": 3, "characters": ["U+200B"]}]


def test_a_cwd_that_is_no_directory_names_the_repository(git_repo, capsys):
    git_repo.commit({"AGENTS.md": "x\n"}, "base")
    assert main(["explain", "--repo", str(git_repo.path), "--cwd", "nope"]) == 2
    assert "--cwd: nope is no directory of the repository (working directory)" in capsys.readouterr().err


def test_an_empty_directory_gets_its_parents_files_and_a_submodule_is_named(git_repo, capsys):
    git_repo.commit({"AGENTS.md": "# R\n\nAlways run `make lint` before committing.\n", "Makefile": "lint:\n\ttrue\n"},
                    "base")
    (git_repo.path / "vendor" / "empty").mkdir(parents=True)  # a submodule not checked out looks so
    code, out = explained(capsys, "--repo", str(git_repo.path), "--cwd", "vendor/empty", "--agent", "codex")
    assert code == 0 and "run `make lint`" in out
    git_repo.git("update-index", "--add", "--cacheinfo", f"160000,{git_repo.git('rev-parse', 'HEAD')},ext")
    git_repo.git("commit", "-qm", "submodule")
    assert main(["explain", "--repo", str(git_repo.path), "--revision", "HEAD", "--cwd", "ext"]) == 2
    assert "--cwd: ext is a git submodule (--revision)" in capsys.readouterr().err


def test_a_token_in_an_instruction_file_is_redacted_from_text_and_json(git_repo, capsys):
    token = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
    git_repo.commit({"AGENTS.md": f"# Release\n\n- Never run `git push https://bot:{token}@github.com/o/r.git`.\n"
                                  f"- Never run `curl -H 'Authorization: Bearer {token[4:]}' https://x.test`.\n"},
                    "base")
    code, out = explained(capsys, "--repo", str(git_repo.path))
    assert code == 0 and token not in out and token[4:] not in out
    assert "AGENTS.md:3  never run `git push https://bot:[REDACTED]@github.com/o/r.git`" in out
    assert "AGENTS.md:4  never run `curl -H 'Authorization: Bearer [REDACTED]' https://x.test`" in out
    code, out = explained(capsys, "--repo", str(git_repo.path), "--json")
    assert code == 0 and token not in out and token[4:] not in out
    assert "git push https://bot:[REDACTED]@github.com/o/r.git" in {d["argument"] for d in json.loads(out)["directives"]}


def test_invalid_bytes_count_once_where_each_agent_stops(git_repo, capsys):
    """Invalid UTF-8 is one byte on disk and three as U+FFFD: an offset counted in the decoded text
    put a directive past every agent's cut ("read only by : ...")."""
    data = b"# Rules\n\n" + b"\xff" * 20_000 + b"\n\n- Always run `make test` before finishing.\n"
    git_repo.commit({"AGENTS.md": data, "Makefile": "test:\n\ttrue\n"}, "base")
    code, out = explained(capsys, "--repo", str(git_repo.path), "--agent", "all")
    assert code == 0 and "AGENTS.md:5  test command `make test`" in out
    assert "read only by" not in out  # 20 KB is inside every agent's budget
    code, out = explained(capsys, "--repo", str(git_repo.path), "--agent", "all", "--doc-budget-bytes", "20000")
    assert "(read only by " in out and "read only by :" not in out and "codex" not in out.split("read only by")[1].split(":")[0]


def test_a_budget_beyond_any_file_is_accepted_and_costs_nothing(git_repo, capsys):
    git_repo.commit({"AGENTS.md": "- Always run `make test`.\n"}, "base")
    code, out = explained(capsys, "--repo", str(git_repo.path), "--doc-budget-bytes", "9" * 23)
    assert code == 0 and "AGENTS.md  26 B" in out


def test_a_cwd_inside_git_and_a_revision_outside_any_repository_are_refused(git_repo, tmp_path, capsys):
    git_repo.commit({"AGENTS.md": "- Always run `make test`.\n"}, "base")
    assert main(["explain", "--repo", str(git_repo.path), "--cwd", ".git/hooks"]) == 2
    assert "--cwd: .git/hooks is inside .git" in capsys.readouterr().err
    plain = tmp_path / "plain"
    plain.mkdir()
    assert main(["explain", "--repo", str(plain), "--revision", "HEAD"]) == 2
    assert f"{plain}: not a git repository, so --revision 'HEAD' names nothing" in capsys.readouterr().err
    assert main(["explain", "--repo", str(tmp_path / "missing"), "--revision", "HEAD"]) == 2
    assert "missing: not a directory" in capsys.readouterr().err
