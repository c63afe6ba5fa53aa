"""Every hard-failure category, each provoked alone by a test adapter, and `**` glob semantics."""

from __future__ import annotations

import pytest

from instruction_gate.run.gates import HARD_FAILURES
from tests.conftest import GitRepo, pinned_environment
from tests.fixtures.runner_cli import evaluate, make_adapter, records
from tests.runner.suite import build_suite_repo, task

#: Task id == category; the manifest fields that arm the gate.
TASKS = {
    "clean": {},
    "agent_not_completed": {},
    "tool_call_count_unavailable": {},
    "tool_call_cap_exceeded": {},
    "provider_cost_unavailable": {"max_provider_cost_usd": 1.0},
    "provider_cost_cap_exceeded": {"max_provider_cost_usd": 1.0},
    "patch_did_not_apply": {},
    "required_check_failed": {},
    "forbidden_file_edited": {},
    "check_files_changed": {},  # the evaluation's policy fails (rather than restores) steering files
    "required_command_missing": {"required_command_patterns": ["pytest", "ruff"]},
    "forbidden_command_observed": {"forbidden_command_patterns": ["terraform apply", "db:migrate"]},
    "required_policy_event_missing": {"required_events": ["approval_requested", "policy_opened"]},
    "instruction_source_missing": {"required_instruction_sources": ["AGENTS.md", "svc/AGENTS.override.md"]},
    "globs": {"forbidden_globs": ["src/**", "docs/*.md"]},
}

ADAPTER = """
    tid = request["task_id"]
    result = dict(type="result", status="completed", tool_calls=3, provider_cost_usd=0.5,
                  instruction_sources=["AGENTS.md", "svc/AGENTS.override.md"])
    if tid != "required_command_missing":
        emit(type="tool", command="python -m pytest -q && ruff check .")
    emit(type="policy", name="approval_requested")
    if tid != "required_policy_event_missing":
        emit(type="policy", name="policy_opened")
    def write(path, text="x\\n"):
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        open(path, "w").write(text)
    if tid == "agent_not_completed":
        result.update(status="failed", failure_reason="agent_error")
    elif tid == "tool_call_count_unavailable":
        del result["tool_calls"]
    elif tid == "tool_call_cap_exceeded":
        result["tool_calls"] = 11
    elif tid == "provider_cost_unavailable":
        result["provider_cost_usd"] = None
    elif tid == "provider_cost_cap_exceeded":
        result["provider_cost_usd"] = 1.25
    elif tid == "patch_did_not_apply":
        write("evals", "a file where the hidden suite needs a directory\\n")
    elif tid == "required_check_failed":
        os.remove("src/app.py")
    elif tid == "forbidden_file_edited":
        write(".github/workflows/nested/deep/ci.yml")
    elif tid == "check_files_changed":
        write("conftest.py", "# steers pytest\\n")
    elif tid == "forbidden_command_observed":
        emit(type="tool", command="cd infra && terraform apply -auto-approve")
    elif tid == "instruction_source_missing":
        result["instruction_sources"] = ["AGENTS.md"]
    elif tid == "globs":
        for path in ("srcx/a.py", "src/a/b/c.py", "docs/top.md", "docs/sub/x.md", ".github/workflowsx/y.yml"):
            write(path)
    emit(**result)
"""


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory):
    """One evaluation of all tasks (module scope: the autouse git identity is not active yet)."""
    tmp = tmp_path_factory.mktemp("hard-failures")
    with pinned_environment(tmp / "home"):
        repo = GitRepo(tmp / "repo")
        tasks = [task(tid, **fields) for tid, fields in TASKS.items()]
        base, candidate = build_suite_repo(repo, tasks, extra={"svc/AGENTS.override.md": "svc\n"})
        adapter = make_adapter(tmp, ADAPTER, result="")
        out = tmp / "out"
        policy = tmp / "policy.json"
        policy.write_text('{"check_files": "fail"}')
        result = evaluate(repo, base, candidate, out, adapter, "--policy", str(policy))
    assert result.returncode == 0, result.stderr
    return records(out)


def test_every_category_is_covered():
    assert set(HARD_FAILURES) <= set(TASKS)


def test_a_clean_run_has_no_hard_failure(evaluated):
    run = evaluated[("clean", 0, "candidate")]
    assert run["hard_failures"] == [] and run["resolved"] is True


@pytest.mark.parametrize("category", HARD_FAILURES)
def test_each_hard_failure_is_provoked_alone(evaluated, category):
    for variant in ("base", "candidate"):
        run = evaluated[(category, 0, variant)]
        assert run["hard_failures"] == [category]
        assert run["valid"] is True


def test_hard_failure_evidence_fields(evaluated):
    def run(tid):
        return evaluated[(tid, 0, "candidate")]
    assert run("agent_not_completed")["failure_reason"] == "failed: agent_error"
    assert run("agent_not_completed")["resolved"] is False
    assert run("tool_call_cap_exceeded")["tool_calls"] == 11
    assert run("provider_cost_cap_exceeded")["provider_cost_usd"] == 1.25
    assert run("patch_did_not_apply")["checks"] == [] and run("patch_did_not_apply")["resolved"] is False
    assert run("required_check_failed")["checks"][0]["exit_code"] == 1
    assert run("forbidden_file_edited")["forbidden_files"] == [".github/workflows/nested/deep/ci.yml"]
    assert run("check_files_changed")["check_files_changed"] == [
        {"path": "conftest.py", "kind": "test_config", "action": "left"}]
    assert run("required_command_missing")["missing_commands"] == ["pytest", "ruff"]
    assert run("forbidden_command_observed")["forbidden_commands"] == ["terraform apply"]
    assert run("required_policy_event_missing")["missing_events"] == ["policy_opened"]
    assert run("instruction_source_missing")["missing_instruction_sources"] == ["svc/AGENTS.override.md"]


def test_double_star_matches_any_depth_and_single_star_one_level(evaluated):
    run = evaluated[("globs", 0, "candidate")]
    assert run["forbidden_files"] == ["docs/top.md", "src/a/b/c.py"]
    assert run["hard_failures"] == ["forbidden_file_edited"]
    assert run["edited_files"] == [".github/workflowsx/y.yml", "docs/sub/x.md", "docs/top.md", "src/a/b/c.py",
                                   "srcx/a.py"]


def test_records_say_where_each_variants_instructions_state_a_command_rule(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    rules = task("t1", required_command_patterns=["pytest"], forbidden_command_patterns=["git push"])
    base, _ = build_suite_repo(repo, [rules], {"AGENTS.md": "# Rules\n\nNever git push.\nRun `pytest` before finishing.\n"})
    candidate = repo.commit({"AGENTS.md": "# Rules\n\nNever git push.\n"}, "drop the pytest rule")
    out = tmp_path / "out"
    result = evaluate(repo, base, candidate, out, make_adapter(tmp_path))
    assert result.returncode == 0, result.stderr  # no command ran: pytest is missing in both arms alike
    found = records(out)
    assert found[("t1", 0, "base")]["rule_sources"] == {"pytest": "AGENTS.md:4", "git push": "AGENTS.md:3"}
    assert found[("t1", 0, "candidate")]["rule_sources"] == {"git push": "AGENTS.md:3"}
