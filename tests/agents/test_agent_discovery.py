"""Codex and Claude Code instruction discovery over trees built in tmp_path."""

from __future__ import annotations

import os

from agent_helpers import write

from instruction_gate.agents.claude.discovery import claude_imports, claude_sources
from instruction_gate.agents.codex.discovery import codex_chain
from instruction_gate.agents.discovery import LoadedFile, result_fields


def test_codex_picks_one_file_per_directory_root_first(tmp_path):
    write(tmp_path, "AGENTS.md", "root rules\n")
    write(tmp_path, "svc/AGENTS.md", "svc rules\n")
    write(tmp_path, "svc/AGENTS.override.md", "svc override\n")
    write(tmp_path, "svc/pay/TEAM.md", "fallback\n")
    write(tmp_path, "other/AGENTS.md", "sibling, never loaded\n")
    chain = codex_chain(tmp_path, "svc/pay", fallback_names=["TEAM.md"])
    assert [f.path for f in chain] == ["AGENTS.md", "svc/AGENTS.override.md", "svc/pay/TEAM.md"]
    assert all(not f.truncated and f.bytes_loaded == f.size for f in chain)


def test_codex_budget_truncates_the_crossing_file_and_drops_the_rest(tmp_path):
    write(tmp_path, "AGENTS.md", "a" * 30)
    write(tmp_path, "x/AGENTS.md", "b" * 30)
    write(tmp_path, "x/y/AGENTS.md", "c" * 30)
    chain = codex_chain(tmp_path, tmp_path / "x" / "y", budget=50)
    assert chain == [LoadedFile("AGENTS.md", 30, 30, False), LoadedFile("x/AGENTS.md", 30, 20, True)]
    assert result_fields(chain) == (["AGENTS.md", "x/AGENTS.md"], {"AGENTS.md": 30, "x/AGENTS.md": 20})


def test_codex_empty_override_shadows_agents_md_and_costs_nothing(tmp_path):
    write(tmp_path, "AGENTS.override.md", "  \n")
    write(tmp_path, "AGENTS.md", "ignored because the override exists\n")
    write(tmp_path, "sub/AGENTS.md", "sub\n")
    assert [f.path for f in codex_chain(tmp_path, "sub")] == ["sub/AGENTS.md"]


def test_codex_default_budget_is_32_kib(tmp_path):
    write(tmp_path, "AGENTS.md", "z" * 40000)
    (only,) = codex_chain(tmp_path, ".")
    assert (only.size, only.bytes_loaded, only.truncated) == (40000, 32768, True)


def test_codex_ignores_symlink_to_non_regular_file(tmp_path):
    os.symlink("/dev/null", tmp_path / "AGENTS.md")
    assert codex_chain(tmp_path, ".") == []


def test_claude_loads_upward_chain_dot_claude_local_and_imports(tmp_path):
    write(tmp_path, "CLAUDE.md", "root\n@docs/style.md and `@docs/not-in-code.md`\n")
    write(tmp_path, "docs/style.md", "style @hop1.md\n```\n@docs/fenced.md\n```\n")
    write(tmp_path, "docs/hop1.md", "@hop2.md\n")
    write(tmp_path, "docs/hop2.md", "end\n")
    write(tmp_path, "docs/not-in-code.md", "x")
    write(tmp_path, "docs/fenced.md", "x")
    write(tmp_path, ".claude/CLAUDE.md", "dot\n")
    write(tmp_path, "app/CLAUDE.local.md", "local\n")
    write(tmp_path, "app/deep/CLAUDE.md", "only when touched\n")
    write(tmp_path, "lib/CLAUDE.md", "outside cwd subtree\n")
    paths = [f.path for f in claude_sources(tmp_path, ".")]
    assert paths == ["CLAUDE.md", "docs/style.md", "docs/hop1.md", "docs/hop2.md", ".claude/CLAUDE.md"]
    # Headless Claude Code expands only imports that resolve inside its working directory.
    paths = [f.path for f in claude_sources(tmp_path, "app")]
    assert paths == ["CLAUDE.md", ".claude/CLAUDE.md", "app/CLAUDE.local.md"]
    touched = [f.path for f in claude_sources(tmp_path, "app", ["app/deep/x.py", "lib/y.py"])]
    assert touched[-1] == "app/deep/CLAUDE.md" and "lib/CLAUDE.md" not in touched


def test_claude_import_hops_are_bounded_and_cycles_end(tmp_path):
    write(tmp_path, "CLAUDE.md", "@h1.md\n")
    for i in range(1, 8):
        write(tmp_path, f"h{i}.md", f"@h{i + 1}.md @CLAUDE.md\n")
    paths = [f.path for f in claude_sources(tmp_path, ".")]
    assert paths == ["CLAUDE.md", "h1.md", "h2.md", "h3.md", "h4.md"]  # four hops, as 2.1.328 does


def test_claude_imports_never_leave_the_repository(tmp_path):
    repo = tmp_path / "repo"
    write(tmp_path, "secret.md", "outside")
    write(repo, "CLAUDE.md", "@../secret.md @~/.claude/me.md @/etc/hostname\n")
    assert [f.path for f in claude_sources(repo, ".")] == ["CLAUDE.md"]


def test_claude_loads_a_memory_file_linked_out_of_the_repository(tmp_path):
    repo = tmp_path / "repo"
    write(tmp_path, "outside.md", "Outside QWERTY @inside.md @repo/sub/two.md\n")
    write(tmp_path, "inside.md", "beside the target, outside the working directory\n")
    write(repo, "CLAUDE.md", "Root rules.\n")
    write(repo, "sub/inside.md", "in\n")
    write(repo, "sub/two.md", "two\n")
    (repo / "sub" / "CLAUDE.md").symlink_to(tmp_path / "outside.md")
    found = claude_sources(repo, "sub")
    # Reported under the repository path, sized by what was read; its imports start from the
    # target's own directory, as the live CLI resolves them.
    assert [(f.path, f.size, f.bytes_loaded) for f in found] == [
        ("CLAUDE.md", 12, 12), ("sub/CLAUDE.md", 43, 43), ("sub/two.md", 4, 4)]


def test_claude_imports_of_a_linked_memory_file_start_beside_its_target(tmp_path):
    write(tmp_path, "docs/main.md", "Main @x.md\n")
    write(tmp_path, "docs/x.md", "docs x\n")
    write(tmp_path, "x.md", "root x\n")
    (tmp_path / "CLAUDE.md").symlink_to("docs/main.md")
    assert [f.path for f in claude_sources(tmp_path, ".")] == ["CLAUDE.md", "docs/x.md"]


def test_claude_memory_files_above_the_repository_count_only_for_a_real_run(tmp_path):
    repo = tmp_path / "repo"
    write(tmp_path, "CLAUDE.md", "parent\n")
    write(tmp_path, ".claude/rules/r.md", "parent rule\n")
    write(tmp_path, "CLAUDE.local.md", "parent local\n")
    write(repo, "CLAUDE.md", "root\n")
    assert [f.path for f in claude_sources(repo, ".")] == ["CLAUDE.md"]  # lint and explain: the revision only
    assert [f.path for f in claude_sources(repo, ".", above_root=True)] == [
        "../CLAUDE.md", "../.claude/rules/r.md", "../CLAUDE.local.md", "CLAUDE.md"]


def test_claude_import_syntax():
    # Punctuation stays part of the path, as the CLI reads it: `@a.md,` names `a.md,`.
    assert claude_imports("see @a.md, mail x@y.com\n@b\\ c.md") == ["a.md,", "b c.md"]


def test_claude_rules_load_unless_scoped(tmp_path):
    write(tmp_path, "CLAUDE.md", "root\n")
    write(tmp_path, ".claude/rules/a.md", "a\n")
    write(tmp_path, ".claude/rules/team/b.md", "b\n")
    write(tmp_path, ".claude/rules/notes.txt", "not markdown\n")
    write(tmp_path, ".claude/rules/scoped.md", "---\npaths:\n  - src/**\n---\nscoped\n")
    write(tmp_path, "app/.claude/rules/c.md", "c\n")
    write(tmp_path, "app/CLAUDE.local.md", "local\n")
    paths = [f.path for f in claude_sources(tmp_path, "app")]
    assert sorted(paths[1:3]) == [".claude/rules/a.md", ".claude/rules/team/b.md"]
    assert paths[0] == "CLAUDE.md" and paths[3:] == ["app/.claude/rules/c.md", "app/CLAUDE.local.md"]
