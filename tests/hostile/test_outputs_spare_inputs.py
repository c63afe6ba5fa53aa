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


def test_blame_out_cannot_replace_its_results(tmp_path, capsys):
    from compare_builders import index, run, write_json

    results = write_json(tmp_path / "out" / "blame.json", index([run("t", 0, "base"), run("t", 0, "candidate")]))
    before = results.read_bytes()
    manifest = write_json(tmp_path / "m" / "manifest.json", {})
    code = main(["blame", "--repo", str(tmp_path), "--manifest", str(manifest), "--base", "x", "--candidate", "y",
                 "--results", str(results), "--out", str(tmp_path / "out"), "--adapter", "/bin/true"])
    assert code == 2 and "--out (blame.json)" in capsys.readouterr().err
    assert results.read_bytes() == before


def test_mutate_out_files_cannot_be_instruction_files(repo, capsys):
    """With `**/*.md` as instruction paths, mutation.md in the repository would be one."""
    manifest = repo / "evals" / "manifest.json"
    manifest.parent.mkdir()
    (repo / "evals" / "a.md").write_text("Fix it.\n")
    manifest.write_text('{"schema_version": 1, "repeats": 1, "instruction_paths": ["**/*.md"], "tasks": ['
                        '{"id": "a", "kind": "bug_fix", "prompt_file": "evals/a.md", "checks": [["true"]]}]}\n')
    code = main(["mutate", "--repo", str(repo), "--manifest", str(manifest), "--base", "HEAD", "--adapter", "/bin/true",
                 "--out", str(repo)])
    err = capsys.readouterr().err
    assert code == 2 and f"--out (mutation.md) {repo / 'mutation.md'}" in err


@pytest.mark.parametrize("out, says", [(".", "is the root of a git working tree"), (".git", "inside a .git directory"),
                                       (".git/refs/out", "inside a .git directory")])
def test_no_output_lands_at_the_trees_root_or_among_gits_files(repo, capsys, monkeypatch, out, says):
    monkeypatch.chdir(repo)
    (repo / "m.json").write_text('{"schema_version": 1, "repeats": 1, "instruction_paths": ["AGENTS.md"], "tasks": ['
                                 '{"id": "a", "kind": "bug_fix", "prompt_file": "docs/extra.md", "checks": [["true"]]}]}\n')
    before, refs = _snapshot(repo), sorted(p.name for p in (repo / ".git" / "refs").rglob("*"))
    code = main(["mutate", "--repo", ".", "--manifest", "m.json", "--base", "HEAD", "--adapter", "/bin/true",
                 "--out", out])
    err = capsys.readouterr().err
    assert code == 2 and says in err and "nothing was written" in err
    assert _snapshot(repo) == before and sorted(p.name for p in (repo / ".git" / "refs").rglob("*")) == refs
    code = main(["lint", "--repo", ".", "--json", ".git/config"])
    assert code == 2 and "inside a .git directory" in capsys.readouterr().err


def test_evaluate_out_at_the_root_is_refused_and_a_subdirectory_is_not(repo, capsys, monkeypatch):
    monkeypatch.chdir(repo)
    code = main(["evaluate", "--repo", ".", "--manifest", "m.json", "--base", "HEAD", "--candidate", "HEAD",
                 "--adapter", "/bin/true", "--out", "."])
    assert code == 2 and "root of a git working tree" in capsys.readouterr().err
    code = main(["evaluate", "--repo", ".", "--manifest", "m.json", "--base", "HEAD", "--candidate", "HEAD",
                 "--adapter", "/bin/true", "--out", "results"])
    assert code == 2 and "root of a git working tree" not in capsys.readouterr().err  # the missing manifest


@pytest.mark.parametrize("target", ["Makefile", "package.json", "docs/extra.md"])
def test_no_report_replaces_a_file_git_tracks(repo, git_repo, capsys, target):
    """The lint reads the project's runner files and checks its paths: a report over one would
    change what the next lint says (`Unknown package.json script`)."""
    git_repo.commit({"Makefile": "test:\n\ttrue\n", "package.json": '{"scripts": {"test": "x"}}\n'}, "runners")
    before = (repo / target).read_bytes()
    code = main(["lint", "--repo", str(repo), "--json", str(repo / target)])
    assert code == 2 and f"--json {repo / target}: would overwrite the input" in capsys.readouterr().err
    assert (repo / target).read_bytes() == before
    untracked = repo / "lint.json"
    for _ in range(2):  # a report of its own may be written again
        assert main(["lint", "--repo", str(repo), "--json", str(untracked)]) in (0, 1)
