"""Custom rules: authored cases of every shipped module run here; loading is from the base commit only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from instruction_gate.errors import ConfigError
from instruction_gate.rules import custom, suite
from tests.conftest import REPO_ROOT

SUITE_PREFIX = "evals/instructions/"


def shipped_modules() -> list[str]:
    """Custom rule modules the example manifest references, as project paths."""
    data = json.loads((REPO_ROOT / "manifest.json").read_text())
    return sorted(p.removeprefix(SUITE_PREFIX) for p in suite.module_paths(data))


def test_the_example_suite_ships_a_custom_rule():
    assert shipped_modules() == ["tasks/rules/module_docstring.py"]


@pytest.mark.parametrize("path", shipped_modules())
def test_authored_cases_pass(path):
    loaded = custom.load(path, (REPO_ROOT / path).read_text())
    assert custom.module_problems(loaded, "manifest.json") == []
    expects = [case["expect"] for case in loaded.module.CASES]
    assert {"satisfied", "violated", "inapplicable"} <= set(expects)
    for case in loaded.module.CASES:
        assert custom.run_case(loaded, case)[0] == case["expect"], case["name"]


GOOD = '''
from instruction_gate.rules import Outcome, Target, Verdict
CATEGORY = "tests"
EVIDENCE_TYPE = "differential"
def precondition(bundle, params):
    return [Target(p, p) for p in bundle.edited() if p.startswith("src/")]
def postcondition(bundle, target, params):
    ok = any(p.startswith("tests/") for p in bundle.edited())
    return Verdict(Outcome.SATISFIED if ok else Outcome.VIOLATED, "" if ok else "no test changed")
CASES = [
    {"name": "s", "expect": "satisfied", "bundle": {"edited_files": ["src/a.py", "tests/test_a.py"]}},
    {"name": "v", "expect": "violated", "bundle": {"edited_files": ["src/a.py"]}},
    {"name": "i", "expect": "inapplicable", "bundle": {"edited_files": ["docs/a.md"]}},
]
'''


def _manifest(module: str = "evals/rules/tests_with_code.py") -> dict:
    return {"schema_version": 1, "repeats": 1, "instruction_paths": ["AGENTS.md"],
            "tasks": [{"id": "t", "kind": "k", "prompt_file": "p.md", "checks": [],
                       "rules": [{"id": "tests-with-code", "kind": "custom", "module": module}]}]}


def test_compiled_custom_rule_reads_only_through_the_given_reader():
    asked = []

    def read(path):
        asked.append(path)
        return GOOD

    rules = suite.compile_rules(_manifest(), read, "m.json")
    assert asked == ["evals/rules/tests_with_code.py"]
    [rule] = rules["t"]
    assert (rule.info.kind, rule.info.category, rule.info.evidence_type.value) == ("custom", "tests", "differential")


@pytest.mark.parametrize("source,message", [
    (GOOD.replace('"expect": "inapplicable"', '"expect": "satisfied"'), "CASES lacks a case expecting inapplicable"),
    (GOOD.replace('"expect": "violated"', '"expect": "satisfied"').replace('"name": "s"', '"name": "s2"'),
     "lacks a case expecting violated"),
    (GOOD.replace('["src/a.py"]}', '["src/a.py", "tests/x.py"]}'), "case 'v' expected violated, got satisfied"),
    (GOOD.replace('CATEGORY = "tests"', 'CATEGORY = "misc"'), "CATEGORY 'misc' is not a known category"),
    ("raise RuntimeError('boom')", "cannot load custom rule: RuntimeError: boom"),
])
def test_broken_modules_are_configuration_errors(source, message):
    with pytest.raises(ConfigError) as caught:
        suite.compile_rules(_manifest(), lambda path: source, "m.json")
    assert any(message in p for p in caught.value.problems), caught.value.problems
    assert all(p.startswith("m.json::") for p in caught.value.problems)


def test_a_rule_that_raises_at_run_time_is_undetermined_not_a_crash():
    source = GOOD.replace("ok = any(", "ok = 1 / 0 if 'boom' in bundle.edited() else any(")
    [rule] = suite.compile_rules(_manifest(), lambda path: source, "m.json")["t"]
    from instruction_gate.rules import RunBundle, evaluate
    result = evaluate(rule, RunBundle(edited_files=("src/a.py", "boom")))
    assert result.outcome.value == "undetermined" and "ZeroDivisionError" in result.evidence[0]


@pytest.mark.parametrize("module,message", [
    ("AGENTS.md", "matches instruction_paths, which the candidate controls"),
    ("../outside.py", "must be a path inside the repository"),
])
def test_module_paths_the_candidate_could_control_are_refused(module, message):
    problems = suite.manifest_problems(_manifest(module), "m.json")
    assert any(message in p for p in problems), problems


def test_custom_rules_load_from_the_base_commit_not_the_candidate(git_repo, tmp_path):
    """The candidate edits the module (outside instruction_paths, so the contract refuses it anyway);
    what loads is always the base commit's text."""
    from instruction_gate.suite.prepare import check_all, compile_checked
    manifest = _manifest()
    base = git_repo.commit({"AGENTS.md": "a\n", "p.md": "x\n", "evals/rules/tests_with_code.py": GOOD,
                            "evals/manifest.json": json.dumps(manifest)}, "base")
    candidate = git_repo.commit({"AGENTS.md": "b\n"}, "candidate")
    (git_repo.path / "evals/rules/tests_with_code.py").write_text("raise SystemExit('candidate code ran')")
    checked = check_all(git_repo.path, git_repo.path / "evals/manifest.json", base, candidate)
    rules = compile_checked(checked)
    assert rules["t"][0].source.module.CASES[0]["name"] == "s"
    assert Path(git_repo.path / "evals/rules/tests_with_code.py").read_text().startswith("raise")
