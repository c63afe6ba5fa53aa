"""The `lint` command: git revisions, differential findings, policy, outputs, exit codes."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import jsonschema

from instruction_gate.cli import main
from instruction_gate.lint.sarif import FINGERPRINT_KEY

REPO_ROOT = Path(__file__).resolve().parents[2]
BASE_FILES = {
    "Makefile": "test:\n\tpytest\n",
    "AGENTS.md": "# Rules\n\n- Run `make test` before committing.\n- See [old](docs/old.md).\n",
}


@lru_cache(maxsize=1)
def sarif_validator() -> jsonschema.Draft4Validator:
    schema = json.loads((REPO_ROOT / "schemas" / "sarif-2.1.0.schema.json").read_text())
    jsonschema.Draft4Validator.check_schema(schema)
    return jsonschema.Draft4Validator(schema)


def two_commits(git_repo, candidate_agents: str) -> tuple[str, str]:
    base = git_repo.commit(BASE_FILES, "base")
    candidate = git_repo.commit({"AGENTS.md": candidate_agents}, "candidate")
    git_repo.git("checkout", "-q", base)  # the candidate is read from objects, not the work tree
    return base, candidate


def test_only_findings_the_candidate_introduces_block(git_repo, tmp_path, capsys):
    base, candidate = two_commits(git_repo, BASE_FILES["AGENTS.md"] + "- Run `make lint` too.\n")
    out = tmp_path / "out"
    out.mkdir()
    code = main(["lint", "--repo", str(git_repo.path), "--base", base, "--candidate", candidate,
                 "--json", str(out / "lint.json"), "--sarif", str(out / "lint.sarif"), "--annotations"])
    assert code == 1
    data = json.loads((out / "lint.json").read_text())
    states = {(f["rule_id"], f["new"]) for f in data["findings"]}
    assert states == {("IG001", True), ("IG003", False)}  # the broken link was already in the base
    printed = capsys.readouterr().out
    assert "::error file=AGENTS.md,line=5,col=" in printed
    assert "IG003" not in "".join(line for line in printed.splitlines() if line.startswith("::"))


def test_sarif_is_valid_and_marks_baseline_state(git_repo, tmp_path):
    base, candidate = two_commits(git_repo, BASE_FILES["AGENTS.md"] + "- Run `make lint` too.\n")
    sarif_path = tmp_path / "lint.sarif"
    main(["lint", "--repo", str(git_repo.path), "--base", base, "--candidate", candidate, "--sarif", str(sarif_path)])
    log = json.loads(sarif_path.read_text())
    errors = sorted(sarif_validator().iter_errors(log), key=str)
    assert errors == []
    run = log["runs"][0]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]][:3] == ["IG001", "IG002", "IG003"]
    by_rule = {r["ruleId"]: r for r in run["results"]}
    assert by_rule["IG001"]["baselineState"] == "new" and by_rule["IG001"]["level"] == "error"
    assert by_rule["IG003"]["baselineState"] == "unchanged" and by_rule["IG003"]["level"] == "note"
    location = by_rule["IG001"]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "AGENTS.md" and location["region"]["startLine"] == 5
    assert FINGERPRINT_KEY in by_rule["IG001"]["partialFingerprints"]


def test_sarif_schema_rejects_a_broken_log():
    assert list(sarif_validator().iter_errors({"version": "2.1.0", "runs": [{"results": []}]}))


def test_moved_lines_are_not_new(git_repo):
    moved = "# Rules\n\nIntro paragraph.\n\n- See [old](docs/old.md).\n- Run `make test` before committing.\n"
    base, candidate = two_commits(git_repo, moved)
    assert main(["lint", "--repo", str(git_repo.path), "--base", base, "--candidate", candidate]) == 0


def test_policy_decides_which_rules_block(git_repo, tmp_path):
    base, candidate = two_commits(git_repo, BASE_FILES["AGENTS.md"] + "- Run `make lint` too.\n")
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"schema_version": 1, "lint": {"blocking_rules": ["IG007"]}}))
    args = ["lint", "--repo", str(git_repo.path), "--base", base, "--candidate", candidate, "--policy", str(policy)]
    assert main(args) == 0


def test_bad_input_exits_2(git_repo, tmp_path, capsys):
    base = git_repo.commit(BASE_FILES, "base")
    assert main(["lint", "--repo", str(git_repo.path), "--base", base, "--candidate", "no-such-ref"]) == 2
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"schema_version": 1, "lint": {"blocking_rules": ["IG999"]}}))
    assert main(["lint", "--repo", str(git_repo.path), "--policy", str(policy)]) == 2
    assert "$.lint.blocking_rules: unknown rule id 'IG999'" in capsys.readouterr().err
    policy.write_text(json.dumps({"schema_version": 1, "lint": {"allowed_hosts": "x"}}))
    assert main(["lint", "--repo", str(git_repo.path), "--policy", str(policy)]) == 2
    assert "$.lint.allowed_hosts" in capsys.readouterr().err


def test_working_directory_mode_without_base_treats_everything_as_new(git_repo, capsys):
    git_repo.commit(BASE_FILES, "base")
    assert main(["lint", "--repo", str(git_repo.path)]) == 1
    assert "| **new, blocking** | IG003 broken-link | `AGENTS.md:4` |" in capsys.readouterr().out


def test_file_names_cannot_break_out_of_the_markdown_table(tmp_path):
    import subprocess
    evil = tmp_path / "repo" / "x` | **PWNED** |\n\n# Injected <img src=x>"
    evil.mkdir(parents=True)
    (evil / "AGENTS.md").write_text("- See `gone/file.md`.\n")
    subprocess.run(["git", "init", "-q", str(tmp_path / "repo")], check=True)
    out = tmp_path / "lint.md"
    assert main(["lint", "--repo", str(tmp_path / "repo"), "--markdown", str(out)]) == 1
    text = out.read_text()
    rows = [line for line in text.splitlines() if line.startswith("|")]
    assert len(rows) == 3 and rows[2].count(" | ") == 3  # escaped pipes (\\|) do not split the row
    assert "\n# Injected" not in text and "&lt;img" in text  # no new block; HTML only inside code or escaped
