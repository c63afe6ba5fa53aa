"""Which commits are candidates: merges read by their pull request's title."""

from __future__ import annotations

from instruction_gate.mining import history


def test_a_merge_is_read_by_its_pull_requests_title_and_diffed_against_its_first_parent(git_repo):
    git_repo.commit({"calc.py": "def add(a, b):\n    return a - b\n",
                     "tests/test_calc.py": "def test_one():\n    assert True\n"}, "initial")
    git_repo.git("checkout", "-q", "-b", "topic")
    fix = git_repo.commit({"calc.py": "def add(a, b):\n    return a + b\n",
                           "tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(1, 1) == 2\n"},
                          "wip")
    git_repo.git("checkout", "-q", "main")
    git_repo.git("merge", "-q", "--no-ff", "topic", "-m", "Merge pull request #7 from someone/topic\n\nFix add returning the difference")
    candidates, _ = history.scan(git_repo.path)
    (candidate,) = candidates
    assert candidate.sha != fix and candidate.subject == "Fix add returning the difference"
    assert (candidate.code_files, candidate.test_files) == (("calc.py",), ("tests/test_calc.py",))
    assert history.pull_request_title("Merge branch 'stable'", "") == "Merge branch 'stable'"
