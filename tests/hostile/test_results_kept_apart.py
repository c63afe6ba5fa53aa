"""Class: results are never lost or mixed. One runner per --out (a lock), --resume only of the
same evaluation, and no output path that would overwrite an input."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from instruction_gate.cli import main
from instruction_gate.run.out_lock import LOCK_NAME
from tests.conftest import REPO_ROOT
from tests.fixtures.runner_cli import MANIFEST, evaluate, make_adapter, wait_for
from tests.runner.suite import build_suite_repo, task


def test_a_second_runner_on_one_out_is_refused_naming_the_holder(git_repo, tmp_path):
    base, candidate = build_suite_repo(git_repo, [task("t1")])
    gate = tmp_path / "release"
    slow = make_adapter(tmp_path, f"""
        import pathlib
        while not pathlib.Path({str(gate)!r}).exists():
            time.sleep(0.05)
    """)
    out = tmp_path / "out"
    first = subprocess.Popen(
        [sys.executable, str(REPO_ROOT / "runner.py"), "--repo", str(git_repo.path), "--manifest", MANIFEST,
         "--base", base, "--candidate", candidate, "--out", str(out), "--adapter", str(slow)],
        cwd=git_repo.path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert wait_for(lambda: (out / "index.json").exists())
        second = evaluate(git_repo, base, candidate, out, slow, "--resume")
        assert second.returncode == 2
        assert f"in use by another evaluation (pid {first.pid} " in second.stderr
        assert "Traceback" not in second.stderr
    finally:
        gate.write_text("go")
        first.communicate(timeout=60)
    assert first.returncode == 0
    # A holder that finishes removes its lock file: the directory keeps only the records.
    assert not (out / LOCK_NAME).exists()
    assert evaluate(git_repo, base, candidate, out, slow, "--resume").returncode == 0


def test_a_lock_file_left_by_a_dead_process_does_not_block(git_repo, tmp_path):
    base, candidate = build_suite_repo(git_repo, [task("t1")])
    out = tmp_path / "out"
    out.mkdir()
    (out / LOCK_NAME).write_text("pid 999999 on elsewhere since 2020-01-01T00:00:00Z\n")
    result = evaluate(git_repo, base, candidate, out, make_adapter(tmp_path))
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("changed", ["candidate", "base", "manifest"])
def test_resume_refuses_another_evaluation(git_repo, tmp_path, changed):
    base, candidate = build_suite_repo(git_repo, [task("t1")])
    adapter = make_adapter(tmp_path)
    out = tmp_path / "out"
    assert evaluate(git_repo, base, candidate, out, adapter).returncode == 0
    before = (out / "index.json").read_text()
    other = git_repo.commit({"AGENTS.md": "Run `pytest -x` before finishing.\n"}, "another candidate")
    if changed == "candidate":
        args = (base, other)
    elif changed == "base":
        args = (candidate, other)
    else:
        (git_repo.path / MANIFEST).write_text((git_repo.path / MANIFEST).read_text() + "\n")
        args = (base, candidate)
    resumed = evaluate(git_repo, *args, out, adapter, "--resume")
    assert resumed.returncode == 2, resumed.stderr
    field = {"candidate": "candidate_sha", "base": "base_sha", "manifest": "manifest_sha256"}[changed]
    assert f"index.json::$.{field} is " in resumed.stderr and "use a fresh --out directory" in resumed.stderr
    assert (out / "index.json").read_text() == before  # the earlier evaluation is untouched


def _index(directory, runs=None):
    directory.mkdir(parents=True, exist_ok=True)
    runs = runs if runs is not None else [
        {"task_id": "t", "repeat": 0, "variant": v, "valid": True, "resolved": True, "hard_failures": []}
        for v in ("base", "candidate")]
    (directory / "index.json").write_text(json.dumps({"schema_version": 1, "runs": runs}))
    return directory / "index.json"


OVERWRITES = {
    "summary beside the index": lambda out, pol: (["--summary", str(out / "index.md")], "would overwrite the input"),
    "json is the index": lambda out, pol: (["--summary", str(out / "s.md"), "--json", str(out / "index.json")],
                                           "would overwrite the input"),
    "summary is the policy": lambda out, pol: (["--summary", str(pol)], "would overwrite the input"),
    "json is the policy": lambda out, pol: (["--summary", str(out / "s.md"), "--json", str(pol)],
                                            "would overwrite the input"),
    "summary and json the same": lambda out, pol: (["--summary", str(out / "s.md"), "--json", str(out / "s.md")],
                                                   "the same file as --summary"),
    "summary is a directory": lambda out, pol: (["--summary", str(out)], "is a directory"),
    "summary under a file": lambda out, pol: (["--summary", str(pol / "x.md")], "is not a directory"),
}


@pytest.mark.parametrize("case", OVERWRITES.values(), ids=OVERWRITES.keys())
def test_compare_never_overwrites_an_input(tmp_path, capsys, case):
    out = tmp_path / "out"
    index = _index(out)
    policy = tmp_path / "policy.json"
    policy.write_text("{}")
    args, expected = case(out, policy)
    before = {p: p.read_bytes() for p in (index, policy)}
    code = main(["compare", "--results", str(out), "--policy", str(policy), *args])
    err = capsys.readouterr().err
    assert code == 2 and expected in err and "Traceback" not in err
    assert {p: p.read_bytes() for p in before} == before


@pytest.mark.parametrize("flag", ["--markdown", "--sarif", "--json"])
def test_lint_outputs_never_overwrite_its_policy(git_repo, tmp_path, capsys, flag):
    git_repo.commit({"AGENTS.md": "Always run tests.\n"}, "base")
    policy = tmp_path / "policy.json"
    policy.write_text("{}")
    code = main(["lint", "--repo", str(git_repo.path), "--policy", str(policy), flag, str(policy)])
    assert code == 2 and "would overwrite the input" in capsys.readouterr().err
    assert policy.read_text() == "{}"


def test_the_lock_leaves_nothing_behind_and_a_failed_start_no_empty_directory(tmp_path):
    from instruction_gate.errors import ConfigError
    from instruction_gate.run import out_lock

    out = tmp_path / "new" / "out"
    with pytest.raises(ConfigError, match="in use by another evaluation"):
        with out_lock.hold(out):
            assert (out / LOCK_NAME).is_file()
            with out_lock.hold(out):  # a second holder of the same directory
                pass
    assert not out.exists()  # made by the lock, nothing written: removed
    existing = tmp_path / "existing"
    existing.mkdir()
    (existing / "notes.txt").write_text("mine\n")
    for _ in range(3):  # released and taken again, each time over a fresh file
        with out_lock.hold(existing):
            (existing / "index.json").write_text("{}\n")
    assert sorted(p.name for p in existing.iterdir()) == ["index.json", "notes.txt"]
