"""Class: contract holes. Instruction paths may not reach into the suite, a mode bit is not
content, suite files are regular files, ids end where they look like they end, and untrusted
strings in messages stay on one line."""

from __future__ import annotations

import json
import os

import pytest

from instruction_gate.cli import main
from instruction_gate.schemas import schema_problems
from tests.fixtures.runner_cli import MANIFEST, problem_lines, validate
from tests.runner.suite import build_suite_repo, manifest, task


@pytest.mark.parametrize("globs, overlap", [
    (["**/*.md"], "evals/tasks/t1/prompt.md"),
    (["AGENTS.md", "evals/**"], "evals/manifest.json"),
    (["**/*.py"], "evals/tasks/t1/secret_check.py"),
    (["AGENTS.md", "evals/tasks/t1/prompt.md"], "evals/tasks/t1/prompt.md"),
])
def test_instruction_paths_may_not_match_suite_files(git_repo, globs, overlap):
    base, candidate = build_suite_repo(git_repo, [task("t1")], instruction_paths=globs)
    result = validate(git_repo, base, candidate)
    assert result.returncode == 2, result.stderr
    assert f"{MANIFEST}::$.instruction_paths: matches the suite file {overlap}" in problem_lines(result.stderr)


def test_instruction_paths_beside_the_suite_are_fine(git_repo):
    base, candidate = build_suite_repo(git_repo, [task("t1")], instruction_paths=["*.md", "docs/**/*.md"])
    assert validate(git_repo, base, candidate).returncode == 0


def test_a_mode_only_change_is_not_a_change_of_content(git_repo):
    base, _ = build_suite_repo(git_repo, [task("t1")])
    git_repo.git("reset", "-q", "--hard", base)
    os.chmod(git_repo.path / "AGENTS.md", 0o755)
    candidate = git_repo.commit(message="chmod +x AGENTS.md")
    result = validate(git_repo, base, candidate)
    assert result.returncode == 2
    assert "byte-identical" in result.stderr and "only file modes differ (chmod)" in result.stderr


def test_a_mode_change_beside_a_content_change_is_evaluated(git_repo):
    base, candidate = build_suite_repo(git_repo, [task("t1")])
    os.chmod(git_repo.path / "AGENTS.md", 0o755)
    candidate = git_repo.commit(message="chmod +x beside the edit")
    assert validate(git_repo, base, candidate).returncode == 0


@pytest.mark.parametrize("field", ["prompt_file", "turns", "reference_solution"])
def test_a_suite_file_that_is_a_symlink_is_refused(git_repo, field):
    base, candidate = build_suite_repo(git_repo, [task("t1")])
    git_repo.git("reset", "-q", "--hard", base)
    git_repo.symlink("evals/tasks/t1/link.md", "prompt.md")
    data = manifest([task("t1")])
    data["tasks"][0][field] = ["evals/tasks/t1/prompt.md", "evals/tasks/t1/link.md"] if field == "turns" \
        else "evals/tasks/t1/link.md"
    git_repo.write({MANIFEST: json.dumps(data)})
    base = git_repo.commit(message="a prompt that is a symlink")
    candidate = git_repo.commit({"AGENTS.md": "Changed.\n"}, "candidate")
    result = validate(git_repo, base, candidate)
    assert result.returncode == 2, result.stderr
    assert "evals/tasks/t1/link.md is not a regular file at the base commit (mode 120000)" in result.stderr


@pytest.mark.parametrize("where, value", [
    ("task id", "t1\n"), ("task id", "t1\r"), ("rule id", "r1\n"), ("task id", "t" * 129),
])
def test_ids_end_where_they_appear_to(where, value):
    data = manifest([task("t1")])
    if where == "task id":
        data["tasks"][0]["id"] = value
        path = "$.tasks[0].id"
    else:
        data["rules"] = [{"id": value, "kind": "command_required", "pattern": "pytest"}]
        path = "$.rules[0].id"
    problems = schema_problems("manifest", data, "m.json")
    assert any(p.startswith(f"m.json::{path}:") for p in problems), problems


def test_a_changed_path_with_a_newline_stays_on_one_line(git_repo):
    base, _ = build_suite_repo(git_repo, [task("t1")])
    git_repo.git("reset", "-q", "--hard", base)
    candidate = git_repo.commit({"AGENTS.md": "Changed.\n", "src/evil\n::error::x.py": "x = 1\n"}, "candidate")
    result = validate(git_repo, base, candidate)
    assert result.returncode == 2
    assert "  src/evil\\n::error::x.py: not an instruction path" in result.stderr
    assert not any(line.startswith("::") for line in result.stderr.splitlines())


def test_changes_prints_one_line_per_path(git_repo, capsys):
    base, _ = build_suite_repo(git_repo, [task("t1")], instruction_paths=["AGENTS.md", "**/AGENTS.md"])
    git_repo.git("reset", "-q", "--hard", base)
    # `*` never matches a newline, so such a path is no instruction path; other control
    # characters (a terminal escape, a tab) can be, and are printed escaped.
    candidate = git_repo.commit({"a\tb/AGENTS.md": "rules\n", "\x1b[2Jc/AGENTS.md": "rules\n",
                                 "x\ny/AGENTS.md": "rules\n"}, "candidate")
    code = main(["changes", "--repo", str(git_repo.path), "--manifest", str(git_repo.path / MANIFEST),
                 "--base", base, "--candidate", candidate])
    assert code == 0 and capsys.readouterr().out.splitlines() == ["\\x1b[2Jc/AGENTS.md", "a\\tb/AGENTS.md"]
