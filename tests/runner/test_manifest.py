"""Manifest validation through the CLI: schema, semantics, exact error lines, nothing evaluated."""

from __future__ import annotations

import json
import re

import yaml

from instruction_gate.schemas import schema_problems
from tests.conftest import REPO_ROOT
from tests.fixtures.runner_cli import MANIFEST, evaluate, problem_lines, validate
from tests.runner.suite import COMPLETED, build_suite_repo, manifest, task, write_adapter

#: A manifest written in the design's format: every field its example uses, with our own tasks.
DESIGN_FORMAT = REPO_ROOT / "tests" / "fixtures" / "design_format_manifest.json"


def reference_manifest() -> dict:
    return json.loads(DESIGN_FORMAT.read_text(encoding="utf-8"))


def rewrite_manifest(repo, data, name: str = MANIFEST) -> None:
    """Change the manifest in the working tree only (the runner reads it from there)."""
    target = repo.path / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(data, indent=2) if name.endswith(".json") else yaml.safe_dump(data))


def manifest_problems(repo, data) -> list[str]:
    """Validate a one-task suite whose manifest on disk is `data`; assert exit 2; the problem lines."""
    base, candidate = build_suite_repo(repo, [task("t1")])
    rewrite_manifest(repo, data)
    result = validate(repo, base, candidate)
    assert result.returncode == 2, result.stderr
    return problem_lines(result.stderr)


def test_reference_manifest_passes_the_schema_unchanged():
    assert schema_problems("manifest", reference_manifest(), "manifest.json") == []


def test_reference_manifest_validates_against_a_repository_holding_its_files(git_repo):
    data = reference_manifest()
    files = {"ci/agent-evals/manifest.json": json.dumps(data, indent=2), "AGENTS.md": "root\n",
             "CLAUDE.md": "claude\n", "apps/api/AGENTS.override.md": "api\n", "apps/api/README.md": "api\n"}
    for t in data["tasks"]:
        files[t["prompt_file"]] = f"prompt {t['id']}\n"
        if t.get("fixture_patch"):
            files[t["fixture_patch"]] = ""
        for argv in t["checks"]:
            if argv[0] == "python" and argv[1].endswith(".py"):  # check scripts kept in the suite
                files[argv[1]] = "print('ok')\n"
    base = git_repo.commit(files, "base")
    candidate = git_repo.commit({"CLAUDE.md": "claude, changed\n"}, "candidate")
    result = validate(git_repo, base, candidate, manifest="ci/agent-evals/manifest.json")
    assert result.returncode == 0, result.stderr
    assert "static contract ok: 3 tasks" in result.stderr
    assert "CLAUDE.md" in result.stderr


def test_unknown_keys_are_errors_with_exact_paths(git_repo):
    data = manifest([task("t1", checkz=[["true"]])], surprise=True)
    data["defaults"]["timeout_secs"] = 3
    assert manifest_problems(git_repo, data) == [
        "evals/manifest.json::$: Additional properties are not allowed ('surprise' was unexpected)",
        "evals/manifest.json::$.defaults: Additional properties are not allowed ('timeout_secs' was unexpected)",
        "evals/manifest.json::$.tasks[0]: Additional properties are not allowed ('checkz' was unexpected)",
    ]


def test_type_errors_name_the_json_path(git_repo):
    assert manifest_problems(git_repo, manifest([task("t1", checks="pytest")])) == [
        "evals/manifest.json::$.tasks[0].checks: 'pytest' is not of type 'array'"]


def test_semantic_problems_are_all_reported_at_once(git_repo):
    base, candidate = build_suite_repo(git_repo, [task("t1"), task("t2")])
    tasks = [task("t1", required_command_patterns=["pytest", "("]),
             task("t1", prompt_file="../outside/prompt.md"),
             task("t3", prompt_file="/etc/passwd", fixture_patch="evals/../../x.patch")]
    rewrite_manifest(git_repo, manifest(tasks))
    result = validate(git_repo, base, candidate)
    assert result.returncode == 2
    assert "invalid manifest (5 problems)" in result.stderr
    assert problem_lines(result.stderr) == [
        "evals/manifest.json::$.tasks[0].required_command_patterns[1]: invalid regex '(': "
        "missing ), unterminated subpattern at position 0",
        "evals/manifest.json::$.tasks[1].id: duplicate task id 't1' (also $.tasks[0])",
        "evals/manifest.json::$.tasks[1].prompt_file: '../outside/prompt.md' must stay inside the repository (no '..')",
        "evals/manifest.json::$.tasks[2].prompt_file: '/etc/passwd' must be relative to the repository root",
        "evals/manifest.json::$.tasks[2].fixture_patch: 'evals/../../x.patch' must stay inside the repository (no '..')",
    ]


def test_unsafe_instruction_path_is_refused(git_repo):
    data = manifest([task("t1")], instruction_paths=["AGENTS.md", "../AGENTS.md"])
    assert manifest_problems(git_repo, data) == [
        "evals/manifest.json::$.instruction_paths[1]: '../AGENTS.md' must stay inside the repository (no '..')"]


def test_yaml_manifest_is_accepted_and_evaluated(git_repo, tmp_path):
    base, candidate = build_suite_repo(git_repo, [task("t1")])
    rewrite_manifest(git_repo, manifest([task("t1")]), name="evals/manifest.yaml")
    assert validate(git_repo, base, candidate, manifest="evals/manifest.yaml").returncode == 0
    adapter = write_adapter(tmp_path, COMPLETED)
    result = evaluate(git_repo, base, candidate, tmp_path / "out", adapter, manifest="evals/manifest.yaml")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "out" / "t1" / "repeat-0" / "candidate" / "run.json").exists()


def test_invalid_json_is_a_configuration_error(git_repo):
    base, candidate = build_suite_repo(git_repo, [task("t1")])
    (git_repo.path / MANIFEST).write_text('{"schema_version": 1,')
    result = validate(git_repo, base, candidate)
    assert result.returncode == 2
    assert re.search(r"evals/manifest\.json::\$: not valid JSON", result.stderr)


def test_files_missing_at_the_base_commit_stop_everything(git_repo, tmp_path):
    base, candidate = build_suite_repo(git_repo, [task("t1")])
    # Present in the working tree, but not committed at the base: the suite must come from the base.
    tasks = [task("t1", fixture_patch="evals/tasks/t1/fixture.patch", cwd="pkg"), task("t2")]
    rewrite_manifest(git_repo, manifest(tasks))
    git_repo.write({"evals/tasks/t2/prompt.md": "uncommitted\n"})
    counter = tmp_path / "invocations"
    adapter = write_adapter(tmp_path, f"open({str(counter)!r}, 'a').write('x')\n" + COMPLETED)
    out = tmp_path / "out"
    result = evaluate(git_repo, base, candidate, out, adapter)
    assert result.returncode == 2
    assert problem_lines(result.stderr) == [
        "evals/manifest.json::$.tasks[0].fixture_patch: evals/tasks/t1/fixture.patch does not exist at the base commit",
        "evals/manifest.json::$.tasks[0].cwd: directory pkg does not exist at the base commit",
        "evals/manifest.json::$.tasks[1].prompt_file: evals/tasks/t2/prompt.md does not exist at the base commit",
    ]
    assert not counter.exists()
    assert not (out / "index.json").exists()


def test_schema_and_semantic_problems_come_together_even_for_malformed_entries(git_repo):
    tasks = ["not a task", task("t1", prompt_file="/etc/passwd", turns="x", forbidden_command_patterns=[1, "("])]
    assert manifest_problems(git_repo, manifest(tasks)) == [
        "evals/manifest.json::$.tasks[0]: 'not a task' is not of type 'object'",
        "evals/manifest.json::$.tasks[1].forbidden_command_patterns[0]: 1 is not of type 'string'",
        "evals/manifest.json::$.tasks[1].turns: 'x' is not of type 'array'",
        "evals/manifest.json::$.tasks[1].prompt_file: '/etc/passwd' must be relative to the repository root",
        "evals/manifest.json::$.tasks[1].forbidden_command_patterns[1]: invalid regex '(': "
        "missing ), unterminated subpattern at position 0",
    ]
