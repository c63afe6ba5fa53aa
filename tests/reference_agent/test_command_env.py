"""`NAME=value cmd` prefixes and the directory a command runs in: the executor applies what the
policy allows, and `explain` reports exactly what the executor does."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from instruction_gate.cli import main
from instruction_gate.reference_agent.command_env import HARMLESS, prepare
from instruction_gate.reference_agent.executor import EXIT_REFUSED, execute

#: Variables that make a program load code, options or programs from elsewhere.
UNSAFE = ["PATH", "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONWARNINGS", "LD_PRELOAD", "LD_LIBRARY_PATH",
          "NODE_OPTIONS", "NODE_PATH", "PYTEST_ADDOPTS", "GIT_SSH_COMMAND", "GIT_EXTERNAL_DIFF", "BASH_ENV",
          "DYLD_INSERT_LIBRARIES", "HOME", "GOFLAGS", "RUSTC_WRAPPER", "PERL5OPT", "RUBYOPT", "JAVA_TOOL_OPTIONS"]


def test_no_variable_that_loads_code_is_on_the_list():
    assert not set(UNSAFE) & HARMLESS
    assert not [name for name in HARMLESS if name.endswith(("PATH", "PRELOAD", "OPTIONS", "OPTS")) or name.startswith("LD_")]


@pytest.mark.parametrize("name", UNSAFE)
def test_an_unsafe_prefix_refuses_the_whole_command_and_names_the_variable(tmp_path, name):
    invocation = prepare(f"{name}=/tmp/x python -m pytest -q", tmp_path, tmp_path)
    assert invocation.refused is not None and invocation.refused.startswith(f"{name}=")
    result = execute(f"{name}=/tmp/x python -m pytest -q", tmp_path, tmp_path, {}, 10)
    assert result.exit_code == EXIT_REFUSED and result.refused == invocation.refused


def test_a_harmless_prefix_is_applied_and_the_program_still_judged(tmp_path):
    invocation = prepare("CI=1 NO_COLOR= PYTHONWARNDEFAULTENCODING=1 pytest -q", tmp_path, tmp_path)
    assert invocation.argv == ("pytest", "-q") and invocation.refused is None
    assert invocation.env == {"CI": "1", "NO_COLOR": "", "PYTHONWARNDEFAULTENCODING": "1"}
    assert "given inline" in prepare("CI=1 python -c 'import os'", tmp_path, tmp_path).refused
    assert prepare("CI=1", tmp_path, tmp_path).refused == "only variable assignments, no command"


def test_the_executor_sets_the_variable_for_that_command_only(tmp_path):
    script = tmp_path / "show.py"
    script.write_text("import os, sys\nsys.exit(7 if os.environ.get('RUST_BACKTRACE') == 'full' else 3)\n")
    env = {"PATH": str(Path(sys.executable).parent)}
    assert execute("RUST_BACKTRACE=full python show.py", tmp_path, tmp_path, env, 30).exit_code == 7
    assert execute("python show.py", tmp_path, tmp_path, env, 30).exit_code == 3
    # Trusted instructions (`allow_any_command`): any variable applies.
    script.write_text("import os, sys\nsys.exit(5 if os.environ.get('PYTHONPATH') == 'lib' else 3)\n")
    assert execute("PYTHONPATH=lib python show.py", tmp_path, tmp_path, env, 30, allow_any=True).exit_code == 5


NESTED = ("# API\n\n- Run the tests with `CI=1 npm test` before finishing.\n- Always run `PYTHONPATH=/tmp pytest`.\n"
          "- Read `docs/testing.md`.\n")


def explained_json(capsys, repo: Path, cwd: str) -> dict[str, dict]:
    assert main(["explain", "--repo", str(repo), "--cwd", cwd, "--json"]) == 0
    return {d["argument"]: d for d in json.loads(capsys.readouterr().out)["directives"]}


def test_explain_shows_the_directory_and_the_variables_and_agrees_with_the_executor(git_repo, capsys):
    git_repo.commit({"AGENTS.md": "- Always run `make lint` after editing.\n",
                     "packages/api/AGENTS.md": NESTED, "packages/api/package.json": "{}\n",
                     "packages/api/docs/testing.md": "- Always run `ls` after editing.\n"}, "monorepo")
    repo = git_repo.path
    found = explained_json(capsys, repo, "packages/api")
    assert found["make lint"]["cwd"] == "." and found["make lint"]["outcome"] == "runs it in the repository root"
    assert found["CI=1 npm test"]["cwd"] == "packages/api"
    assert found["CI=1 npm test"]["outcome"] == "runs it at the end when asked to verify, in packages/api/ with CI=1"
    # A document a nested file names speaks for that file's directory, not for docs/.
    assert found["ls"]["cwd"] == "packages/api" and found["ls"]["outcome"] == "runs it in packages/api/"
    unsafe = found["PYTHONPATH=/tmp pytest"]["outcome"]
    assert unsafe.startswith("refused by the command policy: PYTHONPATH=")
    # What explain says is what the executor does.
    result = execute("PYTHONPATH=/tmp pytest", repo, repo / "packages/api", {}, 10)
    assert result.exit_code == EXIT_REFUSED and unsafe.endswith(result.refused)
    main(["explain", "--repo", str(repo), "--cwd", "packages/api"])
    assert "packages/api/AGENTS.md:3  test command `CI=1 npm test`: runs it at the end when asked to verify, " \
           "in packages/api/ with CI=1" in capsys.readouterr().out
