"""validate-tasks: checks must fail on the starting tree and pass with the reference solution."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from instruction_gate import demo_repo
from instruction_gate.cli import main

CHECK = ["python", "-c", "import shop; assert shop.VALUE == 2, f'VALUE is {shop.VALUE}'"]
FIX = textwrap.dedent("""\
    diff --git a/src/shop/__init__.py b/src/shop/__init__.py
    --- a/src/shop/__init__.py
    +++ b/src/shop/__init__.py
    @@ -1 +1 @@
    -VALUE = 1
    +VALUE = 2
    """)
WRONG_FIX = FIX.replace("+VALUE = 2", "+VALUE = 3")


def _suite(git_repo, tasks: list[dict], defaults: dict | None = None) -> str:
    files = {"AGENTS.md": "Run the checks.\n", "src/shop/__init__.py": "VALUE = 1\n",
             "evals/fix.patch": FIX, "evals/wrong.patch": WRONG_FIX}
    for t in tasks:
        t.setdefault("prompt_file", f"evals/{t['id']}.md")
        t.setdefault("kind", "bug_fix")
        files[t["prompt_file"]] = "Set VALUE to 2.\n"
    manifest = {"schema_version": 1, "repeats": 1, "instruction_paths": ["AGENTS.md"],
                "defaults": {"check_env": {"PYTHONPATH": "{workspace}/src"}, **(defaults or {})}, "tasks": tasks}
    files["evals/manifest.json"] = json.dumps(manifest)
    return git_repo.commit(files, "suite")


def _validate(git_repo, capsys, *extra: str, base_arm: bool = False) -> tuple[int, dict[str, dict], str]:
    """validate-tasks; the base-arm runs only when asked (these tests are about the checks)."""
    out = git_repo.path.parent / "validation.json"
    code = main(["validate-tasks", "--repo", str(git_repo.path), "--manifest", str(git_repo.path / "evals/manifest.json"),
                 "--json", str(out), *extra, *([] if base_arm else ["--no-base-arm"])])
    captured = capsys.readouterr()
    rows = {t["task_id"]: t for t in json.loads(out.read_text())["tasks"]} if out.exists() else {}
    return code, rows, captured.out + captured.err


def test_valid_vacuous_broken_and_declared_tasks(git_repo, capsys):
    _suite(git_repo, [
        {"id": "valid", "checks": [CHECK], "reference_solution": "evals/fix.patch"},
        {"id": "vacuous", "checks": [["python", "-c", "pass"]], "reference_solution": "evals/fix.patch"},
        {"id": "broken", "checks": [CHECK], "reference_solution": "evals/wrong.patch"},
        {"id": "control", "checks": [["python", "-c", "import shop"]], "checks_pass_at_start": True},
        {"id": "control-fails", "checks": [CHECK], "checks_pass_at_start": True},
        {"id": "no-solution", "checks": [CHECK]},
    ])
    code, rows, table = _validate(git_repo, capsys)
    assert code == 1, table
    assert {k: v["status"] for k, v in rows.items()} == {
        "valid": "valid", "vacuous": "vacuous", "broken": "broken", "control": "valid",
        "control-fails": "broken", "no-solution": "unverified"}
    assert "AssertionError: VALUE is 1" in rows["valid"]["tail"]  # why the starting tree fails
    assert "checks pass on the starting tree" in rows["vacuous"]["reason"]
    assert rows["broken"]["reason"].startswith("with the reference solution, `python -c import shop;")
    assert "AssertionError: VALUE is 3" in rows["broken"]["tail"]
    assert "declares checks_pass_at_start" in rows["control-fails"]["reason"]
    assert table.startswith("## Task validation: 2 of 6 task(s) valid")
    assert "| broken | ❌ broken |" in table


def test_checks_importing_an_installed_copy_are_vacuous(git_repo, tmp_path, capsys):
    # A copy of the project installed into the project's environment.
    _suite(git_repo, [{"id": "t", "checks": [CHECK], "reference_solution": "evals/fix.patch"}],
           defaults={"check_env": {"PROJECT": "x"}})
    env_dir = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], check=True)
    site = next(env_dir.glob("lib/python*/site-packages"))
    (site / "shop").mkdir()
    (site / "shop" / "__init__.py").write_text("VALUE = 2\n")
    code, rows, _ = _validate(git_repo, capsys, "--check-env-dir", str(env_dir))
    assert code == 1 and rows["t"]["status"] == "vacuous"
    assert rows["t"]["reason"].startswith(f"checks import shop from {site.resolve() / 'shop' / '__init__.py'}, "
                                          "outside the validation workspace")


def test_an_editable_install_of_the_checkout_is_out_of_the_checks_reach(git_repo, tmp_path, capsys):
    # An editable install of a checkout: a .pth entry naming a directory the checks' sandbox does
    # not show, so the checks cannot import it (under --unisolated they would, silently).
    _suite(git_repo, [{"id": "t", "checks": [CHECK], "reference_solution": "evals/fix.patch"}],
           defaults={"check_env": {"PROJECT": "x"}})
    checkout = tmp_path / "ci-checkout" / "src"
    (checkout / "shop").mkdir(parents=True)
    (checkout / "shop" / "__init__.py").write_text("VALUE = 2\n")
    env_dir = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], check=True)
    site = next(env_dir.glob("lib/python*/site-packages"))
    (site / "_editable_shop.pth").write_text(f"{checkout}\n")
    code, rows, _ = _validate(git_repo, capsys, "--check-env-dir", str(env_dir))
    assert code == 1 and rows["t"]["status"] == "broken"
    assert "module-not-found" in rows["t"]["reason"]
    code, rows, _ = _validate(git_repo, capsys, "--check-env-dir", str(env_dir), "--unisolated")
    assert code == 1 and rows["t"]["status"] == "vacuous"
    assert rows["t"]["reason"].startswith(f"checks import shop from {checkout.resolve() / 'shop' / '__init__.py'}, "
                                          "outside the validation workspace")


def test_a_broken_check_environment_is_named_in_the_reason(git_repo, capsys):
    missing = ["python", "-c", "import httpx"]
    _suite(git_repo, [{"id": "t", "checks": [missing], "reference_solution": "evals/fix.patch"}])
    code, rows, _ = _validate(git_repo, capsys)
    assert code == 1 and rows["t"]["status"] == "broken"
    assert "the check environment looks broken (module-not-found:" in rows["t"]["reason"]


def test_the_example_suite_validates_clean(tmp_path, capsys):
    demo = demo_repo.build(tmp_path / "demo", demo_repo.resolve_candidate("benign"))
    out = tmp_path / "validation.json"
    code = main(["validate-tasks", "--repo", str(demo.path), "--manifest", str(demo.suite / "manifest.json"),
                 "--base", demo.base, "--json", str(out), "--no-base-arm"])
    table = capsys.readouterr().out
    assert code == 0, table
    rows = json.loads(out.read_text())["tasks"]
    assert len(rows) == 9 and {r["status"] for r in rows} == {"valid"}


def test_the_example_suite_sees_what_it_gates(tmp_path, capsys):
    # Two tasks of different shapes (a bug fix with a required pytest, a docs negative control).
    demo = demo_repo.build(tmp_path / "demo", demo_repo.resolve_candidate("benign"))
    out = tmp_path / "validation.json"
    code = main(["validate-tasks", "--repo", str(demo.path), "--manifest", str(demo.suite / "manifest.json"),
                 "--base", demo.base, "--json", str(out), "--jobs", "2",
                 "--tasks", "bug-tax-rounding", "docs-typo-negative-control"])
    table = capsys.readouterr().out
    assert code == 0, table
    arms = {r["task_id"]: r["base_arm"] for r in json.loads(out.read_text())["tasks"]}
    assert arms["bug-tax-rounding"]["blind"] == [] and "required_command:pytest" in arms["bug-tax-rounding"]["satisfied"]
    assert {"command": "python -m pytest -q", "exit_code": 0} in arms["bug-tax-rounding"]["commands"]


def test_unknown_task_and_missing_env_dir_are_usage_errors(git_repo, tmp_path, capsys):
    _suite(git_repo, [{"id": "t", "checks": [CHECK], "reference_solution": "evals/fix.patch"}])
    code, _, output = _validate(git_repo, capsys, "--tasks", "nope")
    assert code == 2 and "--tasks: unknown task ids ['nope']" in output
    code, _, output = _validate(git_repo, capsys, "--check-env-dir", str(tmp_path / "absent"))
    assert code == 2 and f"--check-env-dir: {tmp_path / 'absent'}: no such directory" in output
    assert not Path(git_repo.path.parent / "validation.json").exists()


def test_the_import_probe_hands_over_to_the_projects_own_sitecustomize(tmp_path):
    from instruction_gate.run.import_probe import ImportProbe

    probe = ImportProbe(tmp_path)
    own = tmp_path / "own"
    own.mkdir()
    (own / "sitecustomize.py").write_text("print('project sitecustomize ran')\n")
    for python_path in (None, str(own)):
        env = {"PATH": "/usr/bin:/bin", **probe.environment(tmp_path / "ws", ".", python_path)}
        done = subprocess.run([sys.executable, "-c", "print('check ran')"], env=env, capture_output=True, text=True)
        assert done.returncode == 0 and "Error in sitecustomize" not in done.stderr, done.stderr
        assert ("project sitecustomize ran" in done.stdout) == (python_path is not None)


def test_hidden_tests_are_laid_at_their_path_for_the_checks_only(git_repo, capsys):
    # The repository's visible test asserts the old value; the task's hidden copy (a name the
    # project's runner never collects) asserts the fixed one and replaces it for the checks.
    files = {"tests/test_value.py": "import shop\n\ndef test_value():\n    assert shop.VALUE == 1\n",
             "evals/hidden/test_value.py.hidden": "import shop\n\ndef test_value():\n    assert shop.VALUE == 2\n"}
    git_repo.commit(files, "tests")
    _suite(git_repo, [{"id": "t", "reference_solution": "evals/fix.patch",
                       "checks": [["python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_value.py::test_value"]],
                       "hidden_tests": {"tests/test_value.py": "evals/hidden/test_value.py.hidden"}}])
    code, rows, table = _validate(git_repo, capsys)
    assert code == 0, table
    assert rows["t"]["status"] == "valid"
    assert "assert 1 == 2" in rows["t"]["tail"]  # the hidden copy ran on the starting tree


def test_a_hidden_test_missing_at_the_base_is_named(git_repo, capsys):
    _suite(git_repo, [{"id": "t", "checks": [CHECK], "reference_solution": "evals/fix.patch",
                       "hidden_tests": {"tests/test_value.py": "evals/hidden/absent.py.hidden"}}])
    code, _, out = _validate(git_repo, capsys)
    assert code == 2
    assert "$.tasks[0].hidden_tests['tests/test_value.py']: evals/hidden/absent.py.hidden does not exist" in out


BLIND_AGENTS = "Run the tests: `python -m pytest -q`.\n"  # a command listed, never asked for at the end
SEEING_AGENTS = "Run the tests with `python -m pytest -q` before finishing.\n"
TEST_CHECK = ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_value.py"]


def _pytest_suite(git_repo, agents: str, importable: bool = True, **task) -> None:
    files = {"tests/test_value.py": "import shop\n\ndef test_value():\n    assert shop.VALUE == 2\n"}
    if importable:  # the project's own pytest finds src/ (the agent's commands get no check_env)
        files["pytest.ini"] = "[pytest]\npythonpath = src\n"
    git_repo.commit(files, "tests")
    _suite(git_repo, [{"id": "t", "checks": [TEST_CHECK], "reference_solution": "evals/fix.patch", **task}])
    git_repo.commit({"AGENTS.md": agents}, "instructions")


def test_a_required_command_the_base_arm_never_runs_makes_the_task_blind(git_repo, capsys):
    _pytest_suite(git_repo, BLIND_AGENTS, required_command_patterns=["pytest"])
    code, rows, table = _validate(git_repo, capsys, base_arm=True)
    assert code == 1, table
    assert rows["t"]["status"] == "blind"
    assert rows["t"]["reason"].startswith("rule required_command:pytest fails in the base run")
    assert rows["t"]["base_arm"]["commands"] == []
    assert "### Base arm" in table


def test_a_base_arm_that_runs_the_required_command_sees_the_edit(git_repo, capsys):
    _pytest_suite(git_repo, SEEING_AGENTS, required_command_patterns=["pytest"])
    code, rows, table = _validate(git_repo, capsys, base_arm=True)
    assert code == 0, table
    assert rows["t"]["status"] == "valid"
    assert rows["t"]["base_arm"]["commands"] == [{"command": "python -m pytest -q", "exit_code": 0}]
    assert rows["t"]["base_arm"]["satisfied"] == ["required_command:pytest"]


def test_a_required_command_that_cannot_collect_in_the_base_arm_makes_the_task_blind(git_repo, tmp_path, capsys):
    _pytest_suite(git_repo, SEEING_AGENTS, importable=False, required_command_patterns=["pytest"])
    code, rows, _ = _validate(git_repo, capsys, "--base-arm-out", str(tmp_path / "arm"), base_arm=True)
    assert (tmp_path / "arm" / "index.json").exists()  # the runs behind the verdict are kept when asked
    assert code == 1 and rows["t"]["status"] == "blind"
    assert "`python -m pytest -q` matched 'pytest' but did not complete (pytest exit 2" in rows["t"]["reason"]
    assert rows["t"]["base_arm"]["commands"] == [{"command": "python -m pytest -q", "exit_code": 2}]


def test_instructions_that_change_nothing_the_agent_does_make_the_task_blind(git_repo, capsys):
    _pytest_suite(git_repo, "Be kind to reviewers.\n")
    code, rows, table = _validate(git_repo, capsys, base_arm=True)
    assert code == 1, table
    assert rows["t"]["status"] == "blind"
    assert "the instruction files change nothing the agent does" in rows["t"]["reason"]
