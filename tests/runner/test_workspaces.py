"""Workspaces: the agent sees no suite and no history, its whole patch is captured, checks are
the suite's own, and nothing is left behind (also when the runner is interrupted)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

from tests.conftest import REPO_ROOT
from tests.fixtures.runner_cli import alive, evaluate, make_adapter, record, survivors, wait_dead, wait_for
from tests.runner.suite import build_suite_repo, task

SOLUTION = "SOLUTION-MARKER-5f1c\n"
PROMPT_MARK = "PROMPT-MARKER-9a7e"


def suite_with_secrets(repo):
    """Suite with a reference solution, a hidden-paths glob and distinctive contents."""
    tasks = [task("t1", reference_solution="evals/tasks/t1/solution.patch")]
    extra = {"evals/tasks/t1/prompt.md": f"{PROMPT_MARK}\n", "evals/tasks/t1/solution.patch": SOLUTION,
             "ci/private/grader.py": "GRADER-MARKER-31b0\n"}
    return build_suite_repo(repo, tasks, extra=extra, hidden_paths=["ci/private/**"])


def test_agent_workspace_holds_no_suite_and_no_history(git_repo, tmp_path):
    base, candidate = suite_with_secrets(git_repo)
    dump = tmp_path / "reports"
    dump.mkdir()
    adapter = make_adapter(tmp_path, f"""
        root = request["repo_root"]
        files, contents = [], []
        for directory, _dirs, names in os.walk(root):
            for name in names:
                path = os.path.join(directory, name)
                files.append(os.path.relpath(path, root))
                if not os.path.islink(path):
                    contents.append(open(path, "rb").read().decode("latin-1"))
        def git(*args):
            return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout
        report = dict(files=files, contents=contents, log=git("log", "--all", "--oneline"),
                      objects=git("cat-file", "--batch-all-objects", "--batch-check"),
                      blobs=subprocess.run(["git", "cat-file", "--batch-all-objects", "--batch"], cwd=root,
                                           capture_output=True).stdout.decode("latin-1"),
                      status=git("status", "--porcelain", "--untracked-files=all"),
                      fsck=subprocess.run(["git", "fsck", "--full", "--no-dangling"], cwd=root,
                                          capture_output=True, text=True).returncode,
                      pack_objects=git("count-objects", "-v"))
        with open(os.path.join({str(dump)!r}, request["variant"] + ".json"), "w") as handle:
            json.dump(report, handle)
    """)
    out = tmp_path / "out"
    result = evaluate(git_repo, base, candidate, out, adapter)
    assert result.returncode == 0, result.stderr
    for variant in ("base", "candidate"):
        report = json.loads((dump / f"{variant}.json").read_text())
        visible = sorted(p for p in report["files"] if not p.startswith(".git/"))
        assert visible == ["AGENTS.md", "src/app.py"]
        assert len(report["log"].splitlines()) == 1
        assert report["status"] == ""
        assert report["fsck"] == 0  # every object of the input commit is there (own pack + common store)
        # The run's own pack holds only what differs from the common store, not a second copy of the tree.
        own = dict(line.split(": ") for line in report["pack_objects"].splitlines())
        assert int(own["in-pack"]) == 3  # input commit, its root tree, AGENTS.md
        everything = "".join(report["contents"]) + report["blobs"]
        for marker in (PROMPT_MARK, SOLUTION.strip(), "GRADER-MARKER-31b0", "HIDDEN = True", '"instruction_paths"'):
            assert marker not in everything, marker
        object_ids = {line.split()[0] for line in report["objects"].splitlines()}
        assert base not in object_ids and candidate not in object_ids
        assert record(out, "t1", 0, variant)["input_commit"] in object_ids
    # The variants differ only in their instruction files.
    base_report = json.loads((dump / "base.json").read_text())
    assert "Run `pytest` before finishing." in "".join(base_report["contents"])


def test_full_patch_is_captured_and_replayed_for_the_checks(git_repo, tmp_path):
    payload = bytes(range(256)) * 4
    check = ("import pathlib, sys; p = pathlib.Path; "
             f"ok = p('assets/blob.bin').read_bytes() == {payload!r} and not p('src/app.py').exists() "
             "and p('src/new.py').read_text() == 'NEW = 1\\n' and p('AGENTS.md').read_text().endswith('more\\n'); "
             "sys.exit(0 if ok else 1)")
    base, candidate = build_suite_repo(git_repo, [task("t1", checks=[["python", "-c", check]])])
    adapter = make_adapter(tmp_path, f"""
        os.makedirs("assets")
        open("assets/blob.bin", "wb").write({payload!r})
        os.remove("src/app.py")
        os.makedirs("src", exist_ok=True)
        open("src/new.py", "w").write("NEW = 1\\n")
        open("AGENTS.md", "a").write("more\\n")
    """)
    out = tmp_path / "out"
    result = evaluate(git_repo, base, candidate, out, adapter)
    assert result.returncode == 0, result.stderr
    run = record(out, "t1", 0, "candidate")
    assert run["resolved"] is True and run["hard_failures"] == []
    assert run["edited_files"] == ["AGENTS.md", "assets/blob.bin", "src/app.py", "src/new.py"]
    assert (run["diff_files"], run["diff_additions"], run["diff_deletions"]) == (4, 2, 1)
    patch = (out / "t1" / "repeat-0" / "candidate" / "patch.diff").read_text()
    assert "GIT binary patch" in patch
    assert "deleted file mode 100644" in patch and "new file mode 100644" in patch
    applied = subprocess.run(["git", "apply", "--check", "--binary", "-"], cwd=git_repo.path, input=patch.encode(),
                             capture_output=True)
    assert applied.returncode == 0, applied.stderr


def test_agent_cannot_tamper_with_the_suite_checks(git_repo, tmp_path):
    check = ["python", "evals/tasks/t1/check.py"]
    base, candidate = build_suite_repo(git_repo, [task("t1", checks=[check])], extra={
        "evals/tasks/t1/check.py": "import sys; sys.exit(0 if open('src/app.py').read() == 'VALUE = 2\\n' else 1)\n"})
    adapter = make_adapter(tmp_path, """
        os.makedirs("evals/tasks/t1", exist_ok=True)
        open("evals/tasks/t1/check.py", "w").write("print('forged')\\n")
        open("evals/tasks/t1/secret_check.py", "w").write("HIDDEN = False\\n")
        open("src/app.py", "w").write("VALUE = 3\\n")
    """)
    out = tmp_path / "out"
    evaluate(git_repo, base, candidate, out, adapter)
    run = record(out, "t1", 0, "candidate")
    assert run["hard_failures"] == ["required_check_failed"]
    assert run["checks"][0]["exit_code"] == 1 and "forged" not in run["checks"][0]["stdout_tail"]
    assert "evals/tasks/t1/check.py" in run["edited_files"]


def test_no_worktree_or_temporary_directory_is_left_behind(git_repo, tmp_path):
    base, candidate = build_suite_repo(git_repo, [task("t1"), task("t2")])
    temp = tmp_path / "temp"
    temp.mkdir()
    adapter = make_adapter(tmp_path, "open('src/x.py', 'w').write('x')")
    before = git_repo.git("worktree", "list")
    result = evaluate(git_repo, base, candidate, tmp_path / "out", adapter, "--temp-dir", str(temp), "--jobs", "2")
    assert result.returncode == 0, result.stderr
    assert git_repo.git("worktree", "list") == before
    assert len(before.splitlines()) == 1
    assert list(temp.iterdir()) == []
    assert git_repo.git("status", "--porcelain") == ""


def test_sigterm_mid_run_kills_the_adapter_and_cleans_up(git_repo, tmp_path):
    base, candidate = build_suite_repo(git_repo, [task("t1")])
    temp, pids = tmp_path / "temp", tmp_path / "reports"
    temp.mkdir()
    pids.mkdir()
    adapter = make_adapter(tmp_path, f"""
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", {str(pids)!r}])
        open(os.path.join({str(pids)!r}, "adapter"), "w").write(f"{{os.getpid()}} {{child.pid}}")
        time.sleep(60)
    """)
    before = git_repo.git("worktree", "list")
    runner = subprocess.Popen([sys.executable, str(REPO_ROOT / "runner.py"), "--repo", str(git_repo.path),
                               "--manifest", "evals/manifest.json", "--base", base, "--candidate", candidate,
                               "--out", str(tmp_path / "out"), "--adapter", str(adapter), "--temp-dir", str(temp),
                               "--sandbox-writable", str(pids)],
                              cwd=git_repo.path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert wait_for(lambda: (pids / "adapter").exists() and (pids / "adapter").read_text().count(" ") == 1)
        runner.send_signal(signal.SIGTERM)
        _, stderr = runner.communicate(timeout=30)
    finally:
        if runner.poll() is None:
            runner.kill()
    assert runner.returncode == 3, stderr
    assert "interrupted" in stderr
    assert wait_for(lambda: survivors(str(tmp_path)) == [], seconds=5)  # the adapter and its sleeper
    assert list(temp.iterdir()) == []
    assert git_repo.git("worktree", "list") == before
    # The interrupted run is no evidence about the instructions: it must not be recorded as finished.
    assert not (tmp_path / "out" / "t1" / "repeat-0" / "base" / "run.json").exists()


def test_agent_tree_clashing_with_suite_paths_is_patch_did_not_apply(git_repo, tmp_path):
    base, candidate = build_suite_repo(git_repo, [task("file-over-dir"), task("dir-over-file"), task("ok")])
    adapter = make_adapter(tmp_path, """
        if request["task_id"] == "file-over-dir":
            open("evals", "w").write("a file where the suite has a directory\\n")
        elif request["task_id"] == "dir-over-file":
            os.makedirs("evals/tasks/dir-over-file/secret_check.py")
            open("evals/tasks/dir-over-file/secret_check.py/x", "w").write("x\\n")
    """)
    out = tmp_path / "out"
    assert evaluate(git_repo, base, candidate, out, adapter).returncode == 0
    for task_id in ("file-over-dir", "dir-over-file"):
        run = record(out, task_id, 0, "candidate")
        assert run["hard_failures"] == ["patch_did_not_apply"] and run["checks"] == []
    assert record(out, "ok", 0, "candidate")["hard_failures"] == []


def test_repository_variables_of_the_runner_do_not_reach_agent_or_checks(git_repo, tmp_path):
    """Started from a git hook, the runner inherits GIT_DIR & co.; they would point the agent at the
    user's repository (history, suite) instead of its one-commit workspace."""
    check = ["python", "-c", "import os, sys; sys.exit(1 if any(k.startswith('GIT_DIR') for k in os.environ) else 0)"]
    base, candidate = build_suite_repo(git_repo, [task("t1", checks=[check])])
    adapter = make_adapter(tmp_path, """
        log = subprocess.run(["git", "log", "--all", "--oneline"], capture_output=True, text=True,
                             env=request["agent_env"]).stdout
        emit(type="probe", commits=len(log.splitlines()),
             leaked=sorted(k for k in request["agent_env"] if k in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE",
                                                                 "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES")))
    """)
    out = tmp_path / "out"
    user_git = str(git_repo.path / ".git")
    result = evaluate(git_repo, base, candidate, out, adapter, env={
        "GIT_DIR": user_git, "GIT_WORK_TREE": str(git_repo.path), "GIT_INDEX_FILE": user_git + "/index",
        "GIT_ALTERNATE_OBJECT_DIRECTORIES": user_git + "/objects"})
    assert result.returncode == 0, result.stderr
    run = record(out, "t1", 0, "candidate")
    probe = next(e for e in run["events"] if e["type"] == "probe")
    assert (probe["commits"], probe["leaked"]) == (1, [])
    assert run["hard_failures"] == []
