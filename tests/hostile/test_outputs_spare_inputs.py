"""No command writes over what it reads: instruction files, their links and imports, policy files;
and a file output's directory must exist. Exit 2, the option named, nothing written."""

from __future__ import annotations

import pytest

from instruction_gate.cli import main

AGENTS = "# Agents\n\nRun `ls` first.\n\n@docs/extra.md\n"


@pytest.fixture
def repo(git_repo):
    git_repo.commit({"AGENTS.md": AGENTS, "docs/extra.md": "# Extra\n", "policy.json": "{}\n"})
    git_repo.symlink("CLAUDE.md", "AGENTS.md")
    return git_repo.path


def _snapshot(root):
    return {p: p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file() and ".git" not in p.parts}


@pytest.mark.parametrize("flag", ["--json", "--markdown", "--sarif"])
@pytest.mark.parametrize("target", ["AGENTS.md", "CLAUDE.md", "docs/extra.md", "policy.json", "sub/GEMINI.md"])
def test_lint_refuses_to_overwrite_what_it_reads(repo, capsys, flag, target):
    before = _snapshot(repo)
    code = main(["lint", "--repo", str(repo), "--policy", str(repo / "policy.json"), flag, str(repo / target)])
    err = capsys.readouterr().err
    assert code == 2
    assert f"{flag} {repo / target}" in err and "nothing was written" in err
    assert _snapshot(repo) == before and not (repo / "sub").exists()


def test_lint_still_writes_beside_the_instruction_files(repo, capsys):
    code = main(["lint", "--repo", str(repo), "--json", str(repo / "lint.json")])
    assert code in (0, 1) and (repo / "lint.json").is_file()


def test_a_file_output_in_a_missing_directory_is_refused(repo, tmp_path, capsys):
    missing = tmp_path / "no" / "such" / "dir"
    code = main(["lint", "--repo", str(repo), "--sarif", str(missing / "x.sarif")])
    err = capsys.readouterr().err
    assert code == 2 and "--sarif" in err and "does not exist" in err
    assert not (tmp_path / "no").exists()


def test_validate_tasks_json_cannot_replace_the_manifest(repo, capsys):
    manifest = repo / "manifest.json"
    manifest.write_text('{"schema_version": 1, "tasks": []}\n')
    before = manifest.read_bytes()
    code = main(["validate-tasks", "--repo", str(repo), "--manifest", str(manifest), "--base", "HEAD",
                 "--json", str(manifest)])
    assert code == 2 and manifest.read_bytes() == before
