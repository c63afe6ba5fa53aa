"""The check environment: check_env/check_path and --check-env-dir reach checks (and the env dir the
agent's commands), never the harness; bad values are refused with the field named (exit 2)."""

from __future__ import annotations

import json
import os
import sys

from tests.fixtures.runner_cli import evaluate, make_adapter, problem_lines, record, validate
from tests.runner.suite import build_suite_repo, manifest, task

# The interpreter by absolute path: a pyenv shim found on PATH would put its own directory first.
#: Checks run in a sandbox of their own (nothing outside the workspace is writable): what they
#: saw comes back through their stdout tail in the run record.
DUMP_CHECK = [sys.executable, "-c", "import json, os; keys = ('PROJECT_MODE', 'VIRTUAL_ENV', 'PYTHONPATH', 'PATH', "
              "'FOO_API_KEY', 'HOME', 'GITHUB_ENV'); print(json.dumps({k: os.environ[k] for k in keys if k in os.environ}))"]


def _env_dir(tmp_path):
    env_dir = tmp_path / "project-env"
    (env_dir / "bin").mkdir(parents=True)
    tool = env_dir / "bin" / "projtool"
    tool.write_text("#!/bin/sh\necho project tool\n")
    tool.chmod(0o755)
    return env_dir


def test_check_settings_reach_checks_and_the_env_dir_the_agent_never_the_harness(git_repo, tmp_path):
    dump = tmp_path / "dump"
    dump.mkdir()
    checks = [DUMP_CHECK, ["projtool"]]
    settings = {"check_env": {"PYTHONPATH": "{workspace}/src",
                              "PROJECT_MODE": "ci"},
                "check_path": ["tools/bin"]}
    base, candidate = build_suite_repo(git_repo, [task("t1", checks=checks, **settings)])
    adapter = make_adapter(tmp_path, f"""
        json.dump(dict(adapter=dict(os.environ), agent=request["agent_env"]),
                  open(os.path.join({str(dump)!r}, "adapter-" + request["variant"] + ".json"), "w"))
    """)
    env_dir = _env_dir(tmp_path)
    out = tmp_path / "out"
    result = evaluate(git_repo, base, candidate, out, adapter, "--check-env-dir", str(env_dir),
                      "--sandbox-writable", str(dump),  # the adapter's own dump, outside its sandbox
                      env={"FOO_API_KEY": "sk-never-in-checks-1234", "GITHUB_ENV": str(tmp_path / "github-env")})
    assert result.returncode == 0, result.stderr

    check = json.loads(record(out, "t1", 0, "candidate")["checks"][0]["stdout_tail"])
    assert check["PROJECT_MODE"] == "ci" and check["VIRTUAL_ENV"] == str(env_dir)
    workspace = check["PYTHONPATH"][: -len("/src")]
    assert check["PYTHONPATH"].endswith("/src") and os.path.basename(workspace) == "val"
    path = check["PATH"].split(os.pathsep)
    assert path[:2] == [f"{workspace}/tools/bin", str(env_dir / "bin")]
    assert "FOO_API_KEY" not in check and "GITHUB_ENV" not in check
    assert check["HOME"] != os.environ.get("HOME") and "check-home" in check["HOME"]
    assert record(out, "t1", 0, "candidate")["checks"][1]["stdout_tail"] == "project tool\n"

    for variant in ("base", "candidate"):
        dumped = json.loads((dump / f"adapter-{variant}.json").read_text())
        agent, harness = dumped["agent"], dumped["adapter"]
        assert agent["PATH"].split(os.pathsep)[0] == str(env_dir / "bin") and agent["VIRTUAL_ENV"] == str(env_dir)
        assert "PROJECT_MODE" not in agent
        # The adapter is harness: neither the check settings nor the project's environment reach it.
        assert "PROJECT_MODE" not in harness and str(env_dir) not in harness["PATH"]
        assert "VIRTUAL_ENV" not in harness or harness["VIRTUAL_ENV"] != str(env_dir)


def test_a_missing_env_dir_is_exit_2_naming_the_flag(git_repo, tmp_path):
    base, candidate = build_suite_repo(git_repo, [task("t1")])
    adapter = make_adapter(tmp_path)
    result = evaluate(git_repo, base, candidate, tmp_path / "out", adapter, "--check-env-dir", str(tmp_path / "nope"))
    assert result.returncode == 2
    assert f"--check-env-dir: {tmp_path / 'nope'}: no such directory" in result.stderr
    assert "Traceback" not in result.stderr


def test_secret_named_variables_and_path_in_check_env_are_refused(git_repo):
    settings = {"check_env": {"OPENAI_API_KEY": "x", "GIT_DIR": "/tmp", "PATH": "/bin"}, "check_path": ["../up"]}
    base, candidate = build_suite_repo(git_repo, [task("t1", **settings)])
    result = validate(git_repo, base, candidate)
    assert result.returncode == 2
    lines = problem_lines(result.stderr)
    assert "evals/manifest.json::$.tasks[0].check_env.OPENAI_API_KEY: named like a secret; secrets never reach " \
           "checks (see instruction_gate/secrets.py)" in lines
    assert any(line.startswith("evals/manifest.json::$.tasks[0].check_env.GIT_DIR:") for line in lines)
    assert "evals/manifest.json::$.tasks[0].check_env.PATH: set PATH entries with check_path" in lines
    assert "evals/manifest.json::$.tasks[0].check_path[0]: '../up' must not contain '..'" in lines


def test_a_path_entry_holding_a_changed_instruction_file_is_refused(git_repo, tmp_path):
    defaults = {**manifest([])["defaults"], "check_path": ["."]}
    base, candidate = build_suite_repo(git_repo, [task("t1")], defaults=defaults)
    adapter = make_adapter(tmp_path)
    result = evaluate(git_repo, base, candidate, tmp_path / "out", adapter)
    assert result.returncode == 2
    assert "evals/manifest.json::$.defaults.check_path[0]: '.' holds AGENTS.md, which the candidate changes" \
        in problem_lines(result.stderr)
    result = validate(git_repo, base, candidate)
    assert result.returncode == 2 and "holds AGENTS.md" in result.stderr


def test_env_dir_placeholder_without_the_flag_is_refused(git_repo, tmp_path):
    base, candidate = build_suite_repo(git_repo, [task("t1", check_path=["{env_dir}/extra"])])
    result = evaluate(git_repo, base, candidate, tmp_path / "out", make_adapter(tmp_path))
    assert result.returncode == 2
    assert "evals/manifest.json::$.tasks[0].check_path[0]: uses {env_dir} but no --check-env-dir was given" \
        in problem_lines(result.stderr)


def test_the_agent_cannot_write_the_check_environment_even_under_a_writable_directory(git_repo, tmp_path):
    # The env dir lies inside a directory shared read-write (a package cache): its interpreter
    # and site-packages must stay read-only, or the agent could plant what the checks then run.
    shared = tmp_path / "cache"
    env_dir = shared / "project-env"
    (env_dir / "bin").mkdir(parents=True)
    (env_dir / "lib").mkdir()
    tool = env_dir / "bin" / "projtool"
    tool.write_text("#!/bin/sh\nexit 1\n")  # the project's check: fails until the task is done
    tool.chmod(0o755)
    base, candidate = build_suite_repo(git_repo, [task("t1", checks=[["projtool"]])])
    adapter = make_adapter(tmp_path, f"""
        results = {{}}
        env = request["agent_env"]["VIRTUAL_ENV"]
        for target in (os.path.join(env, "bin", "projtool"), os.path.join(env, "lib", "sitecustomize.py")):
            try:
                with open(target, "w") as handle:
                    handle.write("#!/bin/sh\\nexit 0\\n")
                os.chmod(target, 0o755)
                results[target] = "written"
            except OSError as exc:
                results[target] = exc.strerror
        open(os.path.join({str(shared)!r}, "attempt-" + request["variant"] + ".json"), "w").write(json.dumps(results))
    """)
    out = tmp_path / "out"
    result = evaluate(git_repo, base, candidate, out, adapter, "--check-env-dir", str(env_dir),
                      "--sandbox-writable", str(shared))
    assert result.returncode in (0, 1), result.stderr
    for variant in ("base", "candidate"):
        attempts = json.loads((shared / f"attempt-{variant}.json").read_text())
        assert attempts and set(attempts.values()) == {"Read-only file system"}, attempts
    assert tool.read_text() == "#!/bin/sh\nexit 1\n" and os.listdir(env_dir / "lib") == []
    assert record(out, "t1", 0, "candidate")["checks"][0]["exit_code"] == 1  # the project's tool, not a planted one
