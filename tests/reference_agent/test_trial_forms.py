"""Forms a new user's trial met on real repositories, each a category."""

from pathlib import Path

import pytest

from instruction_gate.reference_agent.command_policy import refusal
from instruction_gate.reference_agent.directives import is_command, parse


def kinds(text: str) -> list[tuple[str, str | None]]:
    return [(d.kind, d.argument) for d in parse(text, "AGENTS.md")]


@pytest.mark.parametrize(("code", "command"), [
    ("tests/ci", False), ("src/app", False),  # a directory or module named alone
    ("bin/test", True), ("scripts/check", True), ("vendor/bin/phpunit", True), ("build/debug/unittest", True),
    ("./tests/ci", True), ("tools/format.js", True),
])
def test_a_path_named_alone_is_a_command_only_when_it_looks_like_a_script(code, command):
    assert is_command(code) is command


def test_each_line_of_a_paragraph_keeps_its_own_line_number():
    text = ("# Rules\n\nRun `python -m pytest -q` before finishing.\nRun `python -m pytest -q tests` before finishing.\n"
            "Run `make lint` before finishing.\n")
    assert [(d.argument, d.line) for d in parse(text, "AGENTS.md") if d.kind != "verify"] == [
        ("python -m pytest -q", 3), ("python -m pytest -q tests", 4), ("make lint", 5)]


def test_a_linked_command_in_a_contrast_is_still_the_command():
    text = "- Always use [`uv`](https://github.com/astral-sh/uv) instead of `pip`.\n"
    assert kinds(text) == [("forbid_command", "pip")]


def test_a_title_naming_an_example_project_is_no_section_of_examples():
    assert kinds("# Example shop\n\nRun `make test` before finishing.\n") == [("test_command", "make test"), ("verify", None)]
    assert kinds("# Shop\n\n## Examples\n\nRun `make test` before finishing.\n") == []


def test_a_set_up_heading_speaks_only_for_its_own_blocks():
    text = "# Local Setup\n\n## Helper Scripts\n\n```bash\n# Complete setup script\n./bin/setup.sh\n```\n"
    assert kinds(text) == []


def test_a_program_in_a_home_directory_is_refused():
    assert "home directory" in refusal(["~/bin/tool", "--now"], Path("/repo"), Path("/repo"))


@pytest.mark.parametrize("text", [
    "- Never run `git merge` directly on main - open a pull request instead.\n",
    "- Never use `git push --force` locally on shared branches.\n",
    "- Do not run `npm publish` manually in this folder's packages.\n",
])
def test_a_ban_scoped_to_a_place_after_an_adverb_is_no_blanket_ban(text):
    assert kinds(text) == []


@pytest.mark.parametrize("text", [
    "- Fix with `npm run lint:fix` for auto-fixable issues.\n",
    "- Fix formatting with `cargo fmt` for rustfmt errors.\n",
    "- Fix with `pnpm lint --fix` for ESLint problems.\n",
])
def test_a_remedy_for_one_kind_of_problem_is_no_step(text):
    assert [k for k in kinds(text) if k[0] == "run"] == []


@pytest.mark.parametrize(("text", "expected"), [
    ("- All code must pass `ruff check`, `ruff format --check`, and `mypy --strict`.\n",
     [("run", "ruff check"), ("run", "ruff format --check"), ("run", "mypy --strict")]),
    ("Every PR must pass `make lint` and `make typecheck`.\n", [("run", "make lint"), ("run", "make typecheck")]),
    ("Changes should pass `cargo clippy -- -D warnings`.\n", [("run", "cargo clippy -- -D warnings")]),
])
def test_checks_every_change_must_pass_are_run(text, expected):
    assert kinds(text) == expected


def test_checks_one_kind_of_change_must_pass_are_not_run():
    assert kinds("- Docs changes must pass `make docs-lint`.\n") == []
    assert kinds("- The CLI must pass `--strict` to the compiler.\n") == []


@pytest.mark.parametrize(("text", "expected"), [
    ("- Do not commit `src/pyfabric/_version.py`.\n", [("protect_path", "src/pyfabric/_version.py")]),
    ("- Never commit `.env.local` or `secrets/*.json`.\n", [("protect_path", ".env.local"), ("protect_path", "secrets/*.json")]),
    ("- Never commit directly to `main`.\n", []),  # a branch, not a path
    # directories of tool output, and the place they are in: the project's own commands fill them
    ("- Do not commit `.venv/`, `.cache/`, `out/`, or `__pycache__/` under `tests/e2e`.\n", []),
    ("- Never commit `coverage.xml` or `htmlcov/` in `reports/`.\n", [("protect_path", "coverage.xml")]),
])
def test_a_file_never_to_commit_is_protected(text, expected):
    assert kinds(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("- Stage files by name, not `git add -A` or `git add .`.\n",
     [("forbid_command", "git add -A"), ("forbid_command", "git add .")]),
    ("- Rebase onto the target branch, not `git merge origin/main`.\n", [("forbid_command", "git merge origin/main")]),
    ("- Tests live in `tests/`, not `test/`.\n", []),  # a description with a path, no order
    ("- The CLI reads its settings, not `npm config get`.\n", []),  # describes, not orders
])
def test_commands_an_order_replaces_are_banned(text, expected):
    assert kinds(text) == expected


@pytest.mark.parametrize("text", [
    "- No redundant `try`/`except` - don't catch errors already handled up the call stack.\n",
    "- Do not duplicate logic you could call make for.\n",
])
def test_a_verb_far_from_the_negation_bans_no_bare_program(text):
    assert kinds(text) == []


def test_a_block_line_commented_as_the_tests_is_the_test_command():
    assert kinds("## Testing\n\n```bash\npytest  # Run tests\n```\n") == [("test_command", "pytest")]
    assert kinds("## Commands\n\n```bash\nruff check .  # lint\nnpm test  # Run the tests\n```\n") == [
        ("test_command", "npm test")]


def test_a_block_of_a_programs_commands_for_testing_gives_its_setup_and_test_lines():
    text = ("Use standard `dotnet` commands for building, testing and restoring:\n\n"
            "```bash\ndotnet restore\ndotnet build\ndotnet test\n```\n")
    assert kinds(text) == [("run", "dotnet restore"), ("test_command", "dotnet test")]
    # for building only: no test job, so no lead
    assert kinds(text.replace("building, testing and restoring", "building")) == []
    assert kinds(text.replace("Use standard", "When debugging, use standard")) == []
