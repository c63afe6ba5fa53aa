"""Lint cases found on the ninth held-out split: paths through a symlinked directory, generic words
standing for a path, members' scripts in a JavaScript workspace, package managers named in prose
beside a link."""

from __future__ import annotations

import os

import pytest

from instruction_gate.lint.context import LintContext
from instruction_gate.lint.tree import DirTree, GitTree
from tests.lint.test_lint_rules import findings
from tests.conftest import GitRepo


def _missing(tmp_path, files: dict[str, str], rule: str = "IG002") -> list[str]:
    return [f.message.split("`")[1] for f in findings(tmp_path, files, rule)]


def test_a_path_through_a_symlinked_directory_exists_in_a_commit_and_on_disk(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    repo.commit({".agents/skills/e2e/SKILL.md": "x\n", "AGENTS.md": "# A\n"})
    repo.symlink(".claude/skills", "../.agents/skills")
    repo.symlink("loop", "loop")  # a link to itself ends the search
    repo.commit({})
    for tree in (GitTree(repo.path, "HEAD", "base"), DirTree(repo.path)):
        ctx = LintContext(tree=tree, texts={}, chains=[])
        assert ctx.exists(".claude/skills/e2e/SKILL.md"), type(tree).__name__
        assert not ctx.exists(".claude/skills/gone/SKILL.md")
        assert not ctx.exists("loop/x.md")


def test_the_lint_follows_a_linked_skills_directory(tmp_path):
    (tmp_path / ".agents/skills/e2e").mkdir(parents=True)
    (tmp_path / ".agents/skills/e2e/SKILL.md").write_text("x\n")
    (tmp_path / ".claude").mkdir()
    os.symlink("../.agents/skills", tmp_path / ".claude" / "skills")
    text = "Read `.claude/skills/e2e/SKILL.md` first.\nThen `.claude/skills/gone/SKILL.md`.\n"
    assert _missing(tmp_path, {"AGENTS.md": text}) == [".claude/skills/gone/SKILL.md"]


@pytest.mark.parametrize("name", ["tests/path.py", "tests/module/", "tests/path/test_file.py", "myagent.py",
                                  "src/my_project/x.py"])
def test_a_generic_word_for_a_path_is_a_form_to_fill_in(tmp_path, name):
    assert _missing(tmp_path, {"AGENTS.md": f"- Run one: `uv run pytest {name}`\n", "tests/a.py": ""}) == []


@pytest.mark.parametrize("name", ["tests/paths.py", "src/modules/", "mypy.ini", "tests/profile.py"])
def test_real_names_that_hold_a_generic_word_are_still_checked(tmp_path, name):
    assert _missing(tmp_path, {"AGENTS.md": f"- See `{name}`.\n", "tests/a.py": ""}) == [name]


def test_a_script_in_a_javascript_workspace_may_be_any_members(tmp_path):
    members = {"package.json": '{"scripts": {"lint": "eslint"}}', "pkg/a/package.json": '{"scripts": {"test": "jest"}}',
               "AGENTS.md": "```bash\n# From the project directory\npnpm test\npnpm run nothing\n```\n"}
    assert _missing(tmp_path / "ws", {**members, "pnpm-workspace.yaml": "packages: ['pkg/*']\n"}, "IG001") == [
        "nothing"]
    # no workspace: the root package.json is the one the command runs
    assert _missing(tmp_path / "single", members, "IG001") == ["test", "nothing"]


@pytest.mark.parametrize(("text", "reported"), [
    ("- [Volta](https://volta.sh/) for Node.js/Yarn/PNPM version management\n", []),
    ("roughly the role [verdaccio](https://verdaccio.org/) plays in the npm ecosystem.\n", []),
    ("Download [the model](https://models.acme.dev/m.bin) first.\n", ["models.acme.dev"]),
])
def test_a_package_manager_named_in_prose_fetches_no_link(tmp_path, text, reported):
    assert [f.message.split("`")[1] for f in findings(tmp_path, {"AGENTS.md": text}, "IG010")] == reported
