"""Mixed pull requests: refused by default, evaluated with the candidate's code held fixed under hold-code."""

from __future__ import annotations

import json
import subprocess

from instruction_gate.run.staging import build_stage
from instruction_gate.suite.prepare import check_all
from tests.holdcode.project import AGENTS, MANIFEST, build_base, gate, runner
from tests.runner.suite import COMPLETED, write_adapter

RENAMED = {"Makefile": "check:\n\t@echo tests ok\n", "AGENTS.md": AGENTS.replace("make test", "make check")}


def test_renamed_make_target_is_refused_by_default_naming_both_files(git_repo, tmp_path):
    base = build_base(git_repo)
    candidate = git_repo.commit(RENAMED, "rename make test to make check")
    result = runner(git_repo, "--base", base, "--candidate", candidate, "--out", str(tmp_path / "out"), "--validate-only")
    assert result.returncode == 2
    assert "it changes instruction files (AGENTS.md) and code (1 file" in result.stderr
    assert "  Makefile: not an instruction path" in result.stderr


def test_renamed_make_target_passes_with_the_code_held_fixed(git_repo, tmp_path):
    base = build_base(git_repo)
    candidate = git_repo.commit(RENAMED, "rename make test to make check")
    evaluated, compared = gate(git_repo, base, candidate, tmp_path / "out", "--mixed-changes", "hold-code")
    assert evaluated.returncode == 0, evaluated.stderr
    assert "1 non-instruction file held fixed: Makefile" in evaluated.stderr
    assert compared is not None and compared.returncode == 0, compared.stdout + compared.stderr
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["held_code"] == {"held_fixed": ["Makefile"], "not_evaluable": {}}
    assert "Non-instruction files held fixed (1): `Makefile`" in (tmp_path / "out" / "summary.md").read_text()
    tools = {v: [json.loads(line) for line in (tmp_path / "out" / "t1" / "repeat-0" / v / "events.jsonl").read_text().splitlines()]
             for v in ("base", "candidate")}
    ran = {v: [(e["command"], e["exit_code"]) for e in events if e.get("type") == "tool"] for v, events in tools.items()}
    # Both arms ran on the candidate's Makefile: the base arm's `make test` no longer exists there.
    assert ran == {"base": [("make test", 2)], "candidate": [("make check", 0)]}


def test_policy_file_chooses_hold_code(git_repo, tmp_path):
    base = build_base(git_repo)
    candidate = git_repo.commit(RENAMED, "rename")
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"contract": {"mixed_changes": "hold-code"}}))
    result = subprocess.run([*runner_argv(git_repo), "validate", "--repo", str(git_repo.path), "--manifest",
                             str(git_repo.path / MANIFEST), "--base", base, "--candidate", candidate, "--policy", str(policy)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "held fixed: Makefile" in result.stderr
    policy.write_text(json.dumps({"contract": {"mixed_changes": "merge"}}))
    result = subprocess.run([*runner_argv(git_repo), "validate", "--repo", str(git_repo.path), "--manifest",
                             str(git_repo.path / MANIFEST), "--base", base, "--candidate", candidate, "--policy", str(policy)],
                            capture_output=True, text=True)
    assert result.returncode == 2
    assert f"{policy}::$.contract.mixed_changes" in result.stderr


def runner_argv(repo):
    import sys
    return [sys.executable, "-m", "instruction_gate"]


def test_mixed_change_that_drops_the_test_command_fails_under_hold_code(git_repo, tmp_path):
    base = build_base(git_repo)
    candidate = git_repo.commit({"src/app.py": "VALUE = 1\nOTHER = 3\n", "Makefile": "test:\n\t@echo all tests ok\n",
                                 "AGENTS.md": "# Agents\n\nKeep functions small.\n"}, "refactor, shorter AGENTS.md")
    evaluated, compared = gate(git_repo, base, candidate, tmp_path / "out", "--mixed-changes", "hold-code")
    assert evaluated.returncode == 1, evaluated.stderr
    assert "required_command_missing" in evaluated.stderr
    assert compared is not None and compared.returncode == 1, compared.stdout
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["held_code"]["held_fixed"] == ["Makefile", "src/app.py"]
    assert {f["category"] for f in summary["hard_failures"] if f["blocking"]} == {"required_command_missing"}


def test_fixture_or_solution_that_no_longer_applies_makes_tasks_not_evaluable(git_repo, tmp_path):
    base = build_base(git_repo)
    # t1's reference solution edits `VALUE = 1`, t2's fixture edits `HELPER = "a"`: the candidate changed both.
    candidate = git_repo.commit({"src/app.py": "VALUE = 10\n", "src/util.py": 'HELPER = "b"\n',
                                 "AGENTS.md": AGENTS + "Keep functions small.\n"}, "code and instructions")
    evaluated, compared = gate(git_repo, base, candidate, tmp_path / "out", "--mixed-changes", "hold-code")
    assert evaluated.returncode == 3, evaluated.stderr
    index = json.loads((tmp_path / "out" / "index.json").read_text())
    reasons = index["not_evaluable"]
    assert sorted(reasons) == ["t1", "t2"]
    assert "reference solution does not apply" in reasons["t1"] and "src/app.py" in reasons["t1"]
    assert "fixture patch does not apply" in reasons["t2"] and "src/util.py" in reasons["t2"]
    assert all(r["failure_class"] == "infrastructure" for r in index["runs"])
    assert compared is not None and compared.returncode == 3
    markdown = (tmp_path / "out" / "summary.md").read_text()
    assert "Not evaluable with this pull request's code (not an agent failure)" in markdown
    assert "- `t2`: not evaluable with this pull request's code: fixture patch does not apply" in markdown


def _files(repo, tree: str, git_dir=None) -> dict[str, bytes]:
    """Every file of `tree` with its bytes; `git_dir` reads a stage (which borrows the repository's objects)."""
    where = ["git", f"--git-dir={git_dir or repo.path / '.git'}"]
    names = subprocess.run([*where, "ls-tree", "-r", "--name-only", "-z", tree], capture_output=True, check=True,
                           text=True).stdout.split("\0")
    return {n: subprocess.run([*where, "cat-file", "blob", f"{tree}:{n}"], capture_output=True, check=True).stdout
            for n in names if n}


def test_base_arm_is_candidate_code_with_merge_base_instructions_byte_for_byte(git_repo):
    fork = build_base(git_repo)
    git_repo.git("checkout", "-q", "-b", "pr")
    candidate = git_repo.commit({**RENAMED, "src/new.py": b"\x00binary\xff", "evals/tasks/t1/check.py": "import sys\n"},
                                "pr")
    git_repo.git("checkout", "-q", "main")
    base = git_repo.commit({"AGENTS.md": AGENTS + "Base moved on.\n", "src/app.py": "VALUE = 1  # main\n"}, "main moves")
    checked = check_all(git_repo.path, git_repo.path / MANIFEST, base, candidate, mixed_changes="hold-code")
    stage, problems = build_stage(checked)
    with stage:
        assert problems == {}
        arms = {v: _files(git_repo, stage.inputs[("t1", v)].tree, stage.git_dir) for v in ("base", "candidate")}
        expected = {n: b for n, b in _files(git_repo, candidate).items() if not n.startswith("evals/")}
        merge_base_agents = _files(git_repo, fork)["AGENTS.md"]
        assert arms["base"] == {**expected, "AGENTS.md": merge_base_agents}
        assert arms["candidate"] == expected
        # The checks see the base's suite, not the pull request's edit of t1's check.
        validation = _files(git_repo, stage.validation_tree(stage.inputs[("t1", "base")].tree), stage.git_dir)
        assert validation["evals/tasks/t1/check.py"] == _files(git_repo, base)["evals/tasks/t1/check.py"]


def test_harness_runs_nothing_of_the_pull_request_and_secrets_stay_put(git_repo, tmp_path):
    base = build_base(git_repo)
    marker = tmp_path / "executed"
    payload = f"import os, pathlib; pathlib.Path({str(marker)!r}).write_text(repr(dict(os.environ)))\n"
    dump = "import os, pathlib; pathlib.Path('env-dump.txt').write_text(repr(sorted(os.environ.items())))"
    candidate = git_repo.commit({
        **RENAMED, "Makefile": f"check:\n\tpython3 -c \"{dump}\"\n",
        "evals/tasks/t1/check.py": payload, "evals/tasks/t9/check.py": payload,
        "conftest.py": payload, ".gitattributes": "* filter=evil\n"}, "pr with code")
    git_repo.git("checkout", "-q", base)  # as in CI: the trusted base is checked out, the candidate only fetched
    git_repo.git("config", "filter.evil.clean", f"python3 -c \"{payload.strip()}\"")
    secret = "s3cr3t-value-never-leaves"
    env = {"DEPLOY_TOKEN": secret}
    # An adapter that runs nothing: whatever ran would be the harness's doing.
    quiet = write_adapter(tmp_path, COMPLETED)
    evaluated, _ = gate(git_repo, base, candidate, tmp_path / "quiet", "--mixed-changes", "hold-code",
                        adapter=str(quiet), env=env)
    assert evaluated.returncode == 0, evaluated.stderr
    assert not marker.exists()
    runs = json.loads((tmp_path / "quiet" / "index.json").read_text())["runs"]
    assert all(r["checks"] and r["checks"][0]["exit_code"] == 0 for r in runs)  # the base's check ran
    # The reference agent runs the pull request's `make check`, which dumps its environment into the workspace.
    evaluated, _ = gate(git_repo, base, candidate, tmp_path / "agent", "--mixed-changes", "hold-code", env=env)
    assert evaluated.returncode == 0, evaluated.stderr
    assert not marker.exists()
    dumped = (tmp_path / "agent" / "t1" / "repeat-0" / "candidate" / "patch.diff").read_text()
    assert "env-dump.txt" in dumped and "PATH" in dumped
    assert "DEPLOY_TOKEN" not in dumped  # scrubbed from the environment, not merely redacted afterwards
    for out in ("quiet", "agent"):
        for path in (tmp_path / out).rglob("*"):
            if path.is_file():
                assert secret not in path.read_text(errors="replace"), path
