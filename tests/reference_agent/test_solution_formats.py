"""The reference agent applies every patch `validate-tasks` accepts (git apply reads it), and never
reports success having applied nothing."""

from __future__ import annotations

import subprocess

import pytest

from instruction_gate.reference_agent.solution import apply_solution, file_changes

PLAIN = "--- a/calc.py\t2026-01-01\n+++ b/calc.py\t2026-01-01\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n"
#: `git diff -R` of the fix: its header names b/ before a/.
REVERSED = ("diff --git b/calc.py a/calc.py\nindex 1111111..2222222 100644\n--- b/calc.py\n+++ a/calc.py\n"
            "@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n")
NEW_FILE = "--- /dev/null\n+++ b/notes.md\n@@ -0,0 +1 @@\n+fixed\n"


@pytest.fixture
def repo(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    return tmp_path


@pytest.mark.parametrize("patch", [PLAIN, REVERSED], ids=["diff-u", "git-diff-R"])
def test_a_patch_without_a_git_header_of_its_own_shape_is_applied(repo, patch):
    assert [(c.path, c.change) for c in file_changes(patch, repo)] == [("calc.py", "modify")]
    outcome = apply_solution(patch, repo, set())
    assert outcome.error is None and [c.path for c in outcome.applied] == ["calc.py"]
    assert "a + b" in (repo / "calc.py").read_text()


def test_a_withheld_file_of_such_a_patch_is_left_alone(repo):
    outcome = apply_solution(PLAIN + NEW_FILE, repo, {"calc.py"})
    assert [(c.path, c.change) for c in outcome.applied] == [("notes.md", "add")]
    assert [c.path for c in outcome.withheld] == ["calc.py"]
    assert (repo / "notes.md").read_text() == "fixed\n" and "a - b" in (repo / "calc.py").read_text()


def test_text_git_cannot_read_is_an_error_not_a_silent_success(repo):
    outcome = apply_solution("this is no patch\n", repo, set())
    assert outcome.applied == [] and outcome.error == "the reference solution is no patch git apply can read"
