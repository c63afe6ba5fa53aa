"""The check environment's plan: which files decide it, its epoch key, the plugins pytest needs."""

from __future__ import annotations

from instruction_gate.run import project_env


def test_the_plan_keys_on_the_dependency_files_at_the_base_not_the_working_tree(git_repo):
    git_repo.commit({"pyproject.toml": "[project]\nname = 'p'\n", "tests/requirements.txt": "pytest\n",
                     "docs/requirements.txt": "sphinx\n", "src/p/__init__.py": ""}, "project")
    plan = project_env.plan(git_repo.path, "HEAD")
    assert plan.tooling == "pyproject" and plan.files == ("pyproject.toml", "tests/requirements.txt")
    (git_repo.path / "pyproject.toml").write_text("[project]\nname = 'changed'\n")  # uncommitted: ignored
    assert project_env.plan(git_repo.path, "HEAD").key == plan.key
    git_repo.commit({"pyproject.toml": "[project]\nname = 'p'\n", "src/p/__init__.py": "X = 1\n"}, "code only")
    assert project_env.plan(git_repo.path, "HEAD").key == plan.key  # same dependency epoch
    git_repo.commit({"tests/requirements.txt": "pytest\nhypothesis\n"}, "deps")
    assert project_env.plan(git_repo.path, "HEAD").key != plan.key


def test_a_lock_decides_the_tooling(git_repo):
    git_repo.commit({"pyproject.toml": "[project]\nname = 'p'\n", "uv.lock": "version = 1\n"}, "locked")
    assert project_env.plan(git_repo.path, "HEAD").tooling == "uv-lock"


def test_plugins_the_pytest_configuration_names_are_installed(tmp_path):
    (tmp_path / "pytest.ini").write_text("[pytest]\naddopts = -rsx --cov=pkg -n 2\n")
    (tmp_path / "pyproject.toml").write_text("[tool.pytest.ini_options]\nasyncio_mode = 'auto'\n")
    assert sorted(p for p in project_env.plugins_named(tmp_path) if p) == ["pytest-asyncio", "pytest-cov", "pytest-xdist"]
    (tmp_path / "pytest.ini").write_text("[pytest]\naddopts = -q\n")
    (tmp_path / "pyproject.toml").unlink()
    assert project_env.plugins_named(tmp_path) == []
