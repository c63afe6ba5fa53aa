"""backtest: instruction commits of a history, the trusted suite laid over each pair, rows that survive a restart."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

from instruction_gate.backtest.history import Replay, instruction_commits
from instruction_gate.cli import main
from instruction_gate.suite.contract import read_tree
from tests.conftest import REPO_ROOT
from tests.fixtures.runner_cli import wait_for
from tests.holdcode.project import MANIFEST, build_base

SUITE = json.dumps({"schema_version": 1, "repeats": 1, "instruction_paths": ["AGENTS.md"],
                    "tasks": [{"id": "t", "kind": "bug_fix", "prompt_file": "evals/t/prompt.md", "checks": [["true"]]}]})


def test_instruction_commits_first_parent_mixed_and_merges(git_repo):
    root = git_repo.commit({"AGENTS.md": "one\n", "src/a.py": "A = 1\n"}, "root")
    only = git_repo.commit({"AGENTS.md": "two\n"}, "instructions only")
    git_repo.commit({"src/a.py": "A = 2\n"}, "code only")
    mixed = git_repo.commit({"AGENTS.md": "three\n", "Makefile": "x:\n"}, "mixed")
    git_repo.git("checkout", "-q", "-b", "side")
    git_repo.commit({"AGENTS.md": "side 1\n"}, "side one")
    git_repo.commit({"AGENTS.md": "side 2\n", "src/b.py": "B = 1\n"}, "side two")
    git_repo.git("checkout", "-q", "main")
    git_repo.git("merge", "-q", "--no-ff", "-m", "merge side", "side")
    merge = git_repo.git("rev-parse", "HEAD")
    found = instruction_commits(git_repo.path, ("AGENTS.md",), "HEAD")
    assert [(c.sha, c.subject, c.instruction_files, c.code_files) for c in found] == [
        (only, "instructions only", ("AGENTS.md",), ()),
        (mixed, "mixed", ("AGENTS.md",), ("Makefile",)),
        (merge, "merge side", ("AGENTS.md",), ("src/b.py",)),  # what the merge brought in, side commits not listed
    ]
    assert found[2].parent == mixed and root not in {c.sha for c in found}


def test_replay_lays_the_trusted_suite_over_commits_that_predate_it(git_repo):
    git_repo.commit({"AGENTS.md": "one\n", "evals/t/prompt.md": "old prompt\n"}, "root")
    commit = git_repo.commit({"AGENTS.md": "two\n", "src/a.py": "A = 1\n"}, "mixed, before the suite")
    trusted = git_repo.commit({"evals/manifest.json": SUITE, "evals/t/prompt.md": "Do it.\n"}, "suite")
    (found,) = instruction_commits(git_repo.path, ("AGENTS.md",), f"{commit}~1..{commit}")
    with Replay(git_repo.path, SUITE.encode(), "evals/manifest.json", trusted) as replay:
        base, candidate = replay.pair(found)
        base_tree, candidate_tree = read_tree(replay.root, base), read_tree(replay.root, candidate)
        suite_tree = read_tree(git_repo.path, trusted)
        for tree in (base_tree, candidate_tree):
            assert tree["evals/t/prompt.md"] == suite_tree["evals/t/prompt.md"]
            assert tree["evals/manifest.json"] == suite_tree["evals/manifest.json"]
        changed = {p for p in set(base_tree) | set(candidate_tree) if base_tree.get(p) != candidate_tree.get(p)}
        assert changed == {"AGENTS.md", "src/a.py"}
        assert replay.pair(found) == (base, candidate)  # same commits again: a rerun resumes the same pair


def test_suite_ref_that_does_not_exist_is_a_usage_error(git_repo, tmp_path, capsys):
    build_base(git_repo)
    code = main(["backtest", "--repo", str(git_repo.path), "--manifest", MANIFEST, "--suite-ref", "no-such-branch",
                 "--out", str(tmp_path / "out"), "--adapter", "true"])
    assert code == 2
    assert "--suite-ref: 'no-such-branch' is not a commit" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_an_out_that_is_a_file_is_a_usage_error(git_repo, tmp_path, capsys):
    build_base(git_repo)
    taken = tmp_path / "taken"
    taken.write_text("keep me\n")
    for extra in ([], ["--demo"]):
        code = main(["backtest", "--repo", str(git_repo.path), "--manifest", MANIFEST, "--suite-ref", "HEAD",
                     "--out", str(taken), "--adapter", "true", *extra])
        assert code == 2 and "exists and is not a directory" in capsys.readouterr().err
    assert taken.read_text() == "keep me\n"


def _backtest(out, env=None):
    return subprocess.Popen([sys.executable, "-m", "instruction_gate", "backtest", "--demo", "--out", str(out),
                             "--tasks", "bug-tax-rounding", "--repeats", "1"], cwd=REPO_ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def test_demo_history_backtest_resumes_after_an_interruption(tmp_path):
    out = tmp_path / "bt"
    first = _backtest(out)
    assert wait_for(lambda: len(list(out.glob("commits/*/row.json"))) >= 2, seconds=240)
    first.send_signal(signal.SIGTERM)
    _, err = first.communicate(timeout=60)
    assert first.returncode == 3, err
    kept = {p.parent.name: (p.stat().st_mtime_ns, p.read_text()) for p in out.glob("commits/*/row.json")}
    runs_before = {p: p.stat().st_mtime_ns for p in out.glob("commits/*/results/**/run.json")
                   if p.parts[len(out.parts) + 1] in kept}
    assert len(json.loads((out / "backtest.json").read_text())["commits"]) >= 2

    second = _backtest(out)
    _, err = second.communicate(timeout=600)
    assert second.returncode == 0, err
    assert err.count("(kept,") == len(kept)
    for name, (mtime, text) in kept.items():
        row = out / "commits" / name / "row.json"
        assert (row.stat().st_mtime_ns, row.read_text()) == (mtime, text)
    assert all(p.stat().st_mtime_ns == mtime for p, mtime in runs_before.items())

    doc = json.loads((out / "backtest.json").read_text())
    rows = doc["commits"]
    assert len(rows) == 6 and doc["runs"] == 12
    assert [r["date"][:10] for r in rows] == sorted(r["date"][:10] for r in rows)
    by_subject = {r["subject"]: r for r in rows}
    regression = by_subject["AGENTS.md: CI runs the tests"]
    assert regression["verdict"] == "fail"
    assert regression["blocking"] == ["bug-tax-rounding: required_command_missing"]
    assert [r["subject"] for r in rows if r["verdict"] == "fail"] == ["AGENTS.md: CI runs the tests"]
    mixed = [r for r in rows if r["mode"] == "hold-code"]
    assert [r["code_files"] for r in mixed] == [["docs/guide.md"], ["CHANGELOG.md"]]
    assert by_subject["Merge branch claude-rules"]["instruction_files"] == ["CLAUDE.md"]
    assert all(r["runs"] == 2 and r["success_delta"] is not None for r in rows)
    markdown = (out / "backtest.md").read_text()
    assert "```mermaid\nxychart-beta" in markdown and "x-axis [" in markdown
    assert markdown.count("\n| 2026-01-") == 6
    assert "| ❌ fail | " in markdown and "bug-tax-rounding: required\\_command\\_missing" in markdown
