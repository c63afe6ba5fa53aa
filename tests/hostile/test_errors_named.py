"""Class: every command's input problems go through the one error handler: a message naming
the file, field or path, exit 2 (configuration) or 3 (could not evaluate), never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from instruction_gate.cli import main
from tests.conftest import REPO_ROOT
from tests.fixtures.runner_cli import MANIFEST, evaluate, make_adapter, validate
from tests.runner.suite import build_suite_repo, task


def _compare_inputs(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    runs = [{"task_id": "t", "repeat": 0, "variant": v, "valid": True, "resolved": True, "hard_failures": []}
            for v in ("base", "candidate")]
    (out / "index.json").write_text(json.dumps({"schema_version": 1, "runs": runs}))
    (tmp_path / "policy.json").write_text("{}")
    return out / "index.json", tmp_path / "policy.json"


COMPARE_CASES = {
    "summary under a file": (lambda t: ["--summary", str(t / "policy.json" / "s.md")], 2, "is not a directory"),
    "summary in /proc": (lambda t: ["--summary", "/proc/version/s.md"], 2, "/proc/version"),
    "results a FIFO": (lambda t: (os.mkfifo(t / "fifo"), ["--results", str(t / "fifo")])[1], 2, "not a regular file"),
    "results /dev/zero": (lambda t: ["--results", "/dev/zero"], 2, "/dev/zero: not a regular file"),
    "results missing": (lambda t: ["--results", str(t / "nothing")], 3, "no such results file"),
    "results not JSON": (lambda t: ((t / "x.json").write_bytes(b"\xff\x00"), ["--results", str(t / "x.json")])[1],
                         2, "x.json::$: not UTF-8"),
    "results deeply nested": (lambda t: ((t / "d.json").write_text("[" * 100_000 + "]" * 100_000),
                                         ["--results", str(t / "d.json")])[1], 2, "d.json::$: "),
    "policy a directory": (lambda t: ["--policy", str(t)], 2, "is a directory"),
    "policy a FIFO": (lambda t: (os.mkfifo(t / "pfifo"), ["--policy", str(t / "pfifo")])[1], 2, "not a regular file"),
}


@pytest.mark.parametrize("case", COMPARE_CASES.values(), ids=COMPARE_CASES.keys())
def test_compare_input_problems(tmp_path, capsys, case):
    make_args, code, expected = case
    index, policy = _compare_inputs(tmp_path)
    args = {"--results": str(index), "--policy": str(policy), "--summary": str(tmp_path / "s" / "summary.md")}
    extra = make_args(tmp_path)
    args.update(dict(zip(extra[::2], extra[1::2])))
    result = main(["compare", *[x for pair in args.items() for x in pair]])
    err = capsys.readouterr().err
    assert result == code, err
    assert expected in err and "Traceback" not in err


@pytest.mark.parametrize("where", ["directory", "missing directory", "under a file", "proc"])
def test_an_unwritable_job_summary_keeps_the_verdict(tmp_path, capsys, monkeypatch, where):
    index, policy = _compare_inputs(tmp_path)
    target = {"directory": tmp_path, "missing directory": tmp_path / "no" / "summary",
              "under a file": policy / "summary", "proc": "/proc/version/summary"}[where]
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(target))
    code = main(["compare", "--results", str(index), "--policy", str(policy), "--summary", str(tmp_path / "s.md")])
    err = capsys.readouterr().err
    assert code == 0  # the PASS stands
    assert "warning: GITHUB_STEP_SUMMARY" in err and (tmp_path / "s.md").is_file()


def test_an_out_that_is_a_file_is_refused(git_repo, tmp_path):
    base, candidate = build_suite_repo(git_repo, [task("t1")])
    out = tmp_path / "out"
    out.write_text("a file")
    result = evaluate(git_repo, base, candidate, out, make_adapter(tmp_path))
    assert result.returncode == 2 and f"--out {out}: exists and is not a directory" in result.stderr
    assert out.read_text() == "a file"


@pytest.mark.parametrize("task_id, expected", [
    ("t" * 300, "is too long"),
    ("t1\n", "does not match"),
    ("../up", "does not match"),
    ("-rf", "does not match"),
])
def test_task_ids_that_cannot_be_directory_names(git_repo, task_id, expected):
    base, candidate = build_suite_repo(git_repo, [task("t1")])
    path = git_repo.path / MANIFEST
    data = json.loads(path.read_text())
    data["tasks"][0]["id"] = task_id
    path.write_text(json.dumps(data))
    result = validate(git_repo, base, candidate)
    assert result.returncode == 2 and "$.tasks[0].id" in result.stderr and expected in result.stderr
    assert "Traceback" not in result.stderr


def test_a_check_program_not_on_path_is_refused_before_any_run(git_repo, tmp_path):
    base, candidate = build_suite_repo(git_repo, [task("t1", checks=[["no-such-checker-xyz", "--all"]])])
    log = tmp_path / "ran"
    adapter = make_adapter(tmp_path, f"open({str(log)!r}, 'a').write('x')")
    result = evaluate(git_repo, base, candidate, tmp_path / "out", adapter)
    assert result.returncode == 2, result.stderr
    assert "$.tasks[0].checks[0][0]: no-such-checker-xyz is not an executable on the checks' PATH" in result.stderr
    assert not log.exists()


def _mutate(repo, *args, cwd=None):
    return subprocess.run([sys.executable, str(REPO_ROOT / "mutate.py"), "--repo", str(repo.path), *args],
                          cwd=cwd or repo.path, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("score", ["2", "-0.1", "nan", "lots"])
def test_mutate_min_score_is_refused_up_front(git_repo, tmp_path, score):
    base, _ = build_suite_repo(git_repo, [task("t1")])
    result = _mutate(git_repo, "--manifest", MANIFEST, "--base", base, "--out", str(tmp_path / "m"),
                     "--adapter", str(make_adapter(tmp_path)), "--min-score", score)
    assert result.returncode == 2 and "--min-score" in result.stderr and "between 0 and 1" in result.stderr
    assert not (tmp_path / "m").exists()


def test_mutate_manifest_outside_the_repository_leaves_nothing_behind(git_repo, tmp_path):
    base, _ = build_suite_repo(git_repo, [task("t1")])
    outside = tmp_path / "elsewhere" / "manifest.json"
    outside.parent.mkdir()
    outside.write_text((git_repo.path / MANIFEST).read_text())
    temp = tmp_path / "temp"
    temp.mkdir()
    result = subprocess.run(
        [sys.executable, str(REPO_ROOT / "mutate.py"), "--repo", str(git_repo.path), "--manifest", str(outside),
         "--base", base, "--out", str(tmp_path / "m"), "--adapter", str(make_adapter(tmp_path)),
         "--operators", "delete-rule", "--temp-dir", str(temp)],
        cwd=git_repo.path, capture_output=True, text=True, timeout=120, env={**os.environ, "TMPDIR": str(temp)})
    assert result.returncode == 2, result.stderr
    assert "must lie inside the repository" in result.stderr and "Traceback" not in result.stderr
    assert list(temp.iterdir()) == []


def test_an_os_error_escaping_a_command_is_exit_3_naming_the_path(monkeypatch, capsys, tmp_path):
    from instruction_gate.commands import compare

    def broken(args):
        raise OSError(28, "No space left on device", str(tmp_path / "x"))
    monkeypatch.setattr(compare, "run", broken)
    index, policy = _compare_inputs(tmp_path)
    code = main(["compare", "--results", str(index), "--policy", str(policy), "--summary", str(tmp_path / "s.md")])
    assert code == 3 and f"{tmp_path / 'x'}: No space left on device" in capsys.readouterr().err


def test_repeats_flag_is_bounded_like_the_manifest(git_repo, tmp_path):
    base, candidate = build_suite_repo(git_repo, [task("t1")])
    result = evaluate(git_repo, base, candidate, tmp_path / "out", make_adapter(tmp_path), "--repeats", "1000000000")
    assert result.returncode == 2 and "--repeats: must be at most 100" in result.stderr


@pytest.mark.parametrize("argv, flag", [
    (["mutate", "--repo", ".", "--manifest", "m.json", "--base", "HEAD", "--adapter", "x", "--out", ""], "--out"),
    (["explain", "--revision="], "--revision"),
    (["lint", "--json", ""], "--json"),
])
def test_an_empty_option_value_is_refused_not_taken_as_the_current_directory(tmp_path, monkeypatch, capsys, argv, flag):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    assert f"{flag}: an empty value" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []  # nothing written where `Path("")` would have pointed
