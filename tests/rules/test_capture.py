"""Created files and the agent's commits reach the rules through the runner, safely."""

from __future__ import annotations

import json

from tests.runner.suite import COMPLETED, build_suite_repo, run_cli, task, write_adapter

ADAPTER = '''
root = request["repo_root"]
open(os.path.join(root, "notes.txt"), "wb").write(b"one\\r\\ntwo\\r\\n")
os.symlink("/etc/hostname", os.path.join(root, "link.txt"))
emit(type="file_change", path="notes.txt", change="add")
env = dict(request["agent_env"], GIT_AUTHOR_NAME="a", GIT_AUTHOR_EMAIL="a@x", GIT_COMMITTER_NAME="a", GIT_COMMITTER_EMAIL="a@x")
subprocess.run(["git", "add", "notes.txt"], cwd=root, env=env, check=True)
subprocess.run(["git", "commit", "-q", "-m", "added notes, and a subject line that is far too long"], cwd=root, env=env, check=True)
emit(type="tool", command="git commit", exit_code=0)
''' + COMPLETED


def test_created_files_and_commits_are_judged(git_repo, tmp_path):
    rules = [{"id": "lf", "kind": "line_endings", "style": "lf"},
             {"id": "subject", "kind": "commit_message", "pattern": "^[A-Z]", "max_subject_length": 50},
             {"id": "no-secrets", "kind": "keyword_absent", "keywords": ["root:"]}]
    base, candidate = build_suite_repo(git_repo, [task("t1", rules=rules, checks=[["true"]])])
    adapter = write_adapter(tmp_path, ADAPTER)
    out = tmp_path / "out"
    completed = run_cli(git_repo, "--manifest", "evals/manifest.json", "--base", base, "--candidate", candidate,
                        "--out", str(out), "--adapter", str(adapter))
    assert completed.returncode in (0, 1), completed.stderr
    record = json.loads((out / "t1" / "repeat-0" / "base" / "run.json").read_text())
    outcomes = {r["id"]: r for r in record["rules"]}
    assert outcomes["lf"]["outcome"] == "violated" and outcomes["lf"]["evidence"] == ["notes.txt: 2 line endings are not lf"]
    assert outcomes["subject"]["outcome"] == "violated"
    assert "does not match" in outcomes["subject"]["evidence"][0]
    # The symlink was created but never followed: its target's content is not evidence.
    assert outcomes["no-secrets"]["outcome"] == "undetermined"
    assert outcomes["no-secrets"]["evidence"] == ["link.txt: missing evidence: file too large or unreadable"]
