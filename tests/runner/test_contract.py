"""The static contract (`--validate-only`): merge base, instruction paths only, regular files."""

from __future__ import annotations

import json

import pytest

from tests.fixtures.runner_cli import evaluate, make_adapter, problem_lines, record, validate
from tests.runner.suite import manifest, task

INSTRUCTIONS = ["AGENTS.md", "CLAUDE.md", "**/AGENTS.override.md"]


def suite_base(repo, instruction_paths=None, extra=None) -> str:
    """A base commit with a one-task suite; no candidate yet."""
    data = manifest([task("t1")], instruction_paths=instruction_paths or INSTRUCTIONS)
    files = {"AGENTS.md": "base rules\n", "CLAUDE.md": "claude rules\n", "src/app.py": "VALUE = 1\n",
             "evals/manifest.json": json.dumps(data), "evals/tasks/t1/prompt.md": "Do it.\n"}
    files.update(extra or {})
    return repo.commit(files, "base")


def test_base_branch_that_moved_on_is_compared_at_the_merge_base(git_repo):
    fork = suite_base(git_repo)
    git_repo.git("checkout", "-q", "-b", "pr")
    candidate = git_repo.commit({"AGENTS.md": "candidate rules\n"}, "candidate")
    git_repo.git("checkout", "-q", "main")
    base = git_repo.commit({"src/app.py": "VALUE = 2\n", "src/new.py": "NEW = 1\n"}, "main moves on")
    result = validate(git_repo, base, candidate)
    assert result.returncode == 0, result.stderr
    assert f"merge base {fork[:12]}" in result.stderr
    assert "changes AGENTS.md" in result.stderr


def test_non_instruction_change_is_refused_naming_the_path(git_repo):
    base = suite_base(git_repo)
    candidate = git_repo.commit({"AGENTS.md": "new\n", "src/app.py": "VALUE = 3\n", "pkg/AGENTS.md": "nested\n"})
    result = validate(git_repo, base, candidate)
    assert result.returncode == 2
    assert "breaks the static contract" in result.stderr
    lines = problem_lines(result.stderr)
    assert [line.split(":")[0] for line in lines] == ["pkg/AGENTS.md", "src/app.py"]
    assert all("not an instruction path" in line for line in lines)


def test_added_symlink_among_instruction_paths_is_refused(git_repo):
    base = suite_base(git_repo)
    git_repo.symlink("svc/AGENTS.override.md", "../CLAUDE.md")
    candidate = git_repo.commit({"AGENTS.md": "new\n"})
    result = validate(git_repo, base, candidate)
    assert result.returncode == 2
    assert problem_lines(result.stderr) == [
        "svc/AGENTS.override.md: candidate adds a symlink; instruction files must be regular files"]


def test_retargeted_symlink_is_refused(git_repo):
    base = suite_base(git_repo, extra={"CLAUDE.md": None, "docs/CLAUDE.md": "docs\n"})
    git_repo.symlink("CLAUDE.md", "AGENTS.md")
    base = git_repo.commit(message="CLAUDE.md links to AGENTS.md")
    git_repo.symlink("CLAUDE.md", "docs/CLAUDE.md")
    candidate = git_repo.commit(message="retarget")
    result = validate(git_repo, base, candidate)
    assert result.returncode == 2
    assert problem_lines(result.stderr)[0].startswith("CLAUDE.md: ")
    assert "symlink" in problem_lines(result.stderr)[0]


def test_symlink_replaced_by_regular_file_is_a_type_change(git_repo):
    suite_base(git_repo, extra={"CLAUDE.md": None})
    git_repo.symlink("CLAUDE.md", "AGENTS.md")
    base = git_repo.commit(message="link")
    git_repo.write({"CLAUDE.md": None})
    candidate = git_repo.commit({"CLAUDE.md": "now a file\n"}, "type change")
    result = validate(git_repo, base, candidate)
    assert result.returncode == 2
    assert problem_lines(result.stderr) == ["CLAUDE.md: candidate changes the file type (mode 120000 -> 100644)"]


def test_regular_file_replaced_by_symlink_is_refused(git_repo):
    base = suite_base(git_repo)
    git_repo.symlink("CLAUDE.md", "AGENTS.md")
    candidate = git_repo.commit(message="type change")
    result = validate(git_repo, base, candidate)
    assert result.returncode == 2
    assert problem_lines(result.stderr) == [
        "CLAUDE.md: candidate makes a symlink; instruction files must be regular files"]


def test_submodule_at_an_instruction_path_is_refused(git_repo):
    base = suite_base(git_repo)
    git_repo.write({"AGENTS.md": "changed\n"})
    git_repo.git("add", "AGENTS.md")
    git_repo.git("update-index", "--add", "--cacheinfo", f"160000,{base},vendor/AGENTS.override.md")
    git_repo.git("commit", "-q", "-m", "submodule")
    candidate = git_repo.git("rev-parse", "HEAD")
    result = validate(git_repo, base, candidate)
    assert result.returncode == 2
    assert problem_lines(result.stderr) == [
        "vendor/AGENTS.override.md: candidate adds a submodule; instruction files must be regular files"]


def test_unchanged_symlink_to_another_instruction_file_is_allowed_and_kept(git_repo, tmp_path):
    suite_base(git_repo, extra={"AGENTS.md": None})
    git_repo.symlink("AGENTS.md", "CLAUDE.md")
    base = git_repo.commit(message="AGENTS.md links to CLAUDE.md")
    candidate = git_repo.commit({"CLAUDE.md": "claude rules, candidate\n"}, "candidate")
    assert validate(git_repo, base, candidate).returncode == 0
    adapter = make_adapter(tmp_path, """
        root = request["repo_root"]
        link = os.path.join(root, "AGENTS.md")
        emit(type="probe", is_link=os.path.islink(link), target=os.readlink(link),
             text=open(link).read(), status=subprocess.run(["git", "status", "--porcelain"], cwd=root,
                                                            capture_output=True, text=True).stdout)
    """)
    out = tmp_path / "out"
    result = evaluate(git_repo, base, candidate, out, adapter)
    assert result.returncode == 0, result.stderr
    for variant, text in (("base", "claude rules\n"), ("candidate", "claude rules, candidate\n")):
        probe = next(e for e in record(out, "t1", 0, variant)["events"] if e["type"] == "probe")
        assert (probe["is_link"], probe["target"], probe["text"], probe["status"]) == (True, "CLAUDE.md", text, "")


@pytest.mark.parametrize("target, problem", [
    ("../../home/user/CLAUDE.md", "CLAUDE.md: symlink points outside the repository (../../home/user/CLAUDE.md)"),
    ("/etc/hostname", "CLAUDE.md: symlink points outside the repository (/etc/hostname)"),
    ("src/app.py", "CLAUDE.md: symlink target src/app.py is not an instruction path"),
])
def test_base_symlink_must_resolve_to_an_instruction_path_inside(git_repo, target, problem):
    suite_base(git_repo, extra={"CLAUDE.md": None})
    git_repo.symlink("CLAUDE.md", target)
    base = git_repo.commit(message="link")
    candidate = git_repo.commit({"AGENTS.md": "changed\n"})
    result = validate(git_repo, base, candidate)
    assert result.returncode == 2
    assert problem_lines(result.stderr) == [problem]


def test_byte_identical_instructions_are_refused(git_repo):
    base = suite_base(git_repo)
    git_repo.commit({"AGENTS.md": "temporary\n"}, "edit")
    candidate = git_repo.commit({"AGENTS.md": "base rules\n"}, "revert")
    result = validate(git_repo, base, candidate)
    assert result.returncode == 2
    assert "byte-identical: nothing to evaluate" in result.stderr
    empty = git_repo.commit(message="nothing")
    assert validate(git_repo, candidate, empty).returncode == 2


def test_double_star_glob_matches_root_and_nested_files(git_repo):
    base = suite_base(git_repo, instruction_paths=["**/AGENTS.md"])
    candidate = git_repo.commit({"AGENTS.md": "root\n", "pkg/deep/AGENTS.md": "nested\n"})
    result = validate(git_repo, base, candidate)
    assert result.returncode == 0, result.stderr
    assert "changes AGENTS.md, pkg/deep/AGENTS.md" in result.stderr


def test_plain_path_matches_the_root_file_only(git_repo):
    base = suite_base(git_repo, instruction_paths=["AGENTS.md"])
    candidate = git_repo.commit({"AGENTS.md": "root\n", "pkg/AGENTS.md": "nested\n"})
    result = validate(git_repo, base, candidate)
    assert result.returncode == 2
    assert [line.split(":")[0] for line in problem_lines(result.stderr)] == ["pkg/AGENTS.md"]


def test_unknown_commit_is_a_usage_error(git_repo):
    base = suite_base(git_repo)
    result = validate(git_repo, base, "no-such-ref")
    assert result.returncode == 2
    assert "--candidate: 'no-such-ref' is not a commit" in result.stderr


def test_deleted_instruction_file_is_absent_from_the_candidate_workspace(git_repo, tmp_path):
    base = suite_base(git_repo, extra={"AGENTS.override.md": "override\n"})
    candidate = git_repo.commit({"AGENTS.override.md": None}, "drop the override")
    adapter = make_adapter(tmp_path, """
        emit(type="probe", exists=os.path.exists(os.path.join(request["repo_root"], "AGENTS.override.md")))
    """)
    out = tmp_path / "out"
    assert evaluate(git_repo, base, candidate, out, adapter).returncode == 0
    probes = {v: next(e for e in record(out, "t1", 0, v)["events"] if e["type"] == "probe")["exists"]
              for v in ("base", "candidate")}
    assert probes == {"base": True, "candidate": False}
