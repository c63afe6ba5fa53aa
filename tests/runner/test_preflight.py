"""Mistakes caught before anything is built: adapter, manifest path, output directory, base commit."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

from tests.fixtures.runner_cli import MANIFEST, evaluate, make_adapter, problem_lines, validate
from tests.runner.suite import build_suite_repo, manifest, task


def refused_before_building(result, out: Path, temp: Path) -> None:
    assert result.returncode == 2, result.stderr
    assert not (out / "index.json").exists()
    assert list(temp.iterdir()) == []  # no stage, no workspace


def refused_adapter(git_repo, tmp_path: Path, adapter: Path | str) -> str:
    """Evaluate a one-task suite with `adapter`; assert it is refused up front; return stderr."""
    base, candidate = build_suite_repo(git_repo, [task("t1")])
    out, temp = tmp_path / "out", tmp_path / "temp"
    temp.mkdir()
    result = evaluate(git_repo, base, candidate, out, adapter, "--temp-dir", str(temp))
    refused_before_building(result, out, temp)
    return result.stderr


def test_adapter_path_missing_from_the_current_directory_is_refused(git_repo, tmp_path):
    base, candidate = build_suite_repo(git_repo, [task("t1")])
    (git_repo.path / "tools").mkdir()
    make_adapter(git_repo.path / "tools")  # exists relative to the repository, not to where the runner starts
    elsewhere, out, temp = tmp_path / "elsewhere", tmp_path / "out", tmp_path / "temp"
    elsewhere.mkdir(), temp.mkdir()
    result = evaluate(git_repo, base, candidate, out, "tools/adapter", "--temp-dir", str(temp),
                      manifest=str(git_repo.path / MANIFEST), cwd=elsewhere)
    refused_before_building(result, out, temp)
    assert (f"adapter command 'tools/adapter': tools/adapter does not exist (looked for {elsewhere}/tools/adapter; "
            f"relative paths are resolved against the current directory {elsewhere}, not against --repo)") in result.stderr


def test_adapter_script_after_an_interpreter_is_checked_too(git_repo, tmp_path):
    stderr = refused_adapter(git_repo, tmp_path, "python adapters/missing.py")
    assert "adapter command 'python adapters/missing.py': adapters/missing.py does not exist" in stderr


def test_adapter_file_without_execute_permission_is_refused(git_repo, tmp_path):
    adapter = make_adapter(tmp_path)
    adapter.chmod(0o644)
    assert f"{adapter} is not an executable file" in refused_adapter(git_repo, tmp_path, adapter)


def test_bare_adapter_name_is_looked_up_on_the_adapters_path(git_repo, tmp_path):
    stderr = refused_adapter(git_repo, tmp_path, "no-such-agent-adapter --flag")
    interpreter_dir = str(Path(sys.executable).parent)
    assert (f"adapter command 'no-such-agent-adapter --flag': no-such-agent-adapter is not an executable on PATH "
            f"(searched {interpreter_dir}{os.pathsep}") in stderr


def test_interpreter_directory_counts_for_a_bare_adapter_name(git_repo, tmp_path):
    """`python` resolves through the interpreter's directory even when PATH has no `python`."""
    base, candidate = build_suite_repo(git_repo, [task("t1")])
    adapter = make_adapter(tmp_path)
    only_git = tmp_path / "bin"
    only_git.mkdir()
    (only_git / "git").symlink_to(shutil.which("git"))
    result = evaluate(git_repo, base, candidate, tmp_path / "out", f"python {adapter}", env={"PATH": str(only_git)})
    assert result.returncode == 0, result.stderr


def test_unreadable_relative_manifest_names_the_resolved_path_and_current_directory(git_repo, tmp_path):
    base, candidate = build_suite_repo(git_repo, [task("t1")])
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = validate(git_repo, base, candidate, manifest=MANIFEST, cwd=elsewhere)
    assert result.returncode == 2
    assert (f"{MANIFEST}: cannot read manifest (No such file or directory; looked for {elsewhere / MANIFEST}; "
            f"a relative --manifest is resolved against the current directory {elsewhere}, not against --repo)"
            ) in result.stderr


def test_manifest_edited_on_disk_warns_that_the_rest_of_the_suite_is_the_base_commits(git_repo):
    base, candidate = build_suite_repo(git_repo, [task("t1")])
    assert "warning:" not in validate(git_repo, base, candidate).stderr
    (git_repo.path / MANIFEST).write_text(json.dumps(manifest([task("t1")], repeats=3)))
    result = validate(git_repo, base, candidate)
    assert result.returncode == 0, result.stderr
    assert (f"warning: {MANIFEST} differs from its version at the base commit {base[:12]}: the manifest on disk is "
            "used, while prompts, checks and task files come from the base commit, so uncommitted edits to them "
            "are ignored") in result.stderr


def test_manifest_absent_from_the_base_commit_warns(git_repo, tmp_path):
    base, candidate = build_suite_repo(git_repo, [task("t1")])
    (git_repo.path / "evals/local.json").write_text((git_repo.path / MANIFEST).read_text())
    result = validate(git_repo, base, candidate, manifest="evals/local.json")
    assert result.returncode == 0, result.stderr
    assert f"warning: evals/local.json is not in the base commit {base[:12]}: the manifest on disk is used" in result.stderr
    outside = tmp_path / "manifest.json"  # outside the repository: no base version to compare with
    outside.write_text((git_repo.path / MANIFEST).read_text())
    assert "warning:" not in validate(git_repo, base, candidate, manifest=str(outside)).stderr


def test_output_directory_holding_an_evaluation_is_refused_without_resume(git_repo, tmp_path):
    base, candidate = build_suite_repo(git_repo, [task("t1")])
    adapter, out = make_adapter(tmp_path), tmp_path / "out"
    out.mkdir()  # an existing empty directory is fine
    assert evaluate(git_repo, base, candidate, out, adapter).returncode == 0
    index = (out / "index.json").read_bytes()
    again = evaluate(git_repo, base, candidate, out, adapter)
    assert again.returncode == 2
    assert (f"{out} already holds an evaluation (index.json): pass --resume to continue it, "
            "or use an empty directory") in again.stderr
    assert (out / "index.json").read_bytes() == index
    resumed = evaluate(git_repo, base, candidate, out, adapter, "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert "resume: 2 finished runs kept" in resumed.stderr


def test_check_programs_missing_at_the_base_commit_are_manifest_problems(git_repo):
    fixture = "evals/tasks/t3/fixture.patch"
    patch = ("diff --git a/scripts/made.sh b/scripts/made.sh\nnew file mode 100755\n--- /dev/null\n"
             "+++ b/scripts/made.sh\n@@ -0,0 +1 @@\n+exit 0\n")
    tasks = [task("t1", checks=[["scripts/check_cli.sh"], ["./scripts/present.sh"], ["python", "-m", "pytest"],
                                ["python", "scripts/x.py"], ["bash", "scripts/present.sh"], ["/bin/true"]]),
             task("t2", cwd="pkg", checks=[["python", "tools/run.py"], ["sh", "../scripts/present.sh"]]),
             task("t3", fixture_patch=fixture, checks=[["bash", "scripts/made.sh"], ["bash", "scripts/other.sh"]])]
    base, candidate = build_suite_repo(git_repo, tasks, extra={"scripts/present.sh": "exit 0\n", fixture: patch,
                                                               "pkg/README.md": "pkg\n"})
    result = validate(git_repo, base, candidate)
    assert result.returncode == 2
    assert problem_lines(result.stderr) == [
        f"{MANIFEST}::$.tasks[0].checks[0][0]: scripts/check_cli.sh does not exist at the base commit",
        f"{MANIFEST}::$.tasks[0].checks[3][1]: scripts/x.py does not exist at the base commit",
        f"{MANIFEST}::$.tasks[1].checks[0][1]: tools/run.py (from cwd pkg: pkg/tools/run.py) does not exist at the base commit",
        f"{MANIFEST}::$.tasks[2].checks[1][1]: scripts/other.sh does not exist at the base commit "
        "and the fixture patch does not create it",
    ]


def test_base_commit_without_the_suite_reports_that_one_cause(git_repo):
    before = git_repo.commit({"AGENTS.md": "rules\n", "src/app.py": "VALUE = 1\n"}, "project")
    _, candidate = build_suite_repo(git_repo, [task("t1"), task("t2")])
    result = validate(git_repo, before, candidate)
    assert result.returncode == 2
    assert (f"the base commit {before[:12]} does not contain the suite: no task's prompt file exists there "
            f"(nor {MANIFEST}); was the suite added after --base? Pass a base commit that has it") in result.stderr
    assert "not an instruction path" not in result.stderr
    assert len(problem_lines(result.stderr)) <= 4


def test_swapped_base_and_candidate_get_a_hint(git_repo):
    base, candidate = build_suite_repo(git_repo, [task("t1")])
    swapped = validate(git_repo, candidate, base)
    assert swapped.returncode == 2
    assert "base and candidate instruction files are byte-identical: nothing to evaluate" in swapped.stderr
    assert ("is --base/--candidate swapped? the candidate is an ancestor of the base "
            "(the base changes AGENTS.md since the candidate)") in swapped.stderr
    same = validate(git_repo, base, base)
    assert same.returncode == 2
    assert "swapped" not in same.stderr
