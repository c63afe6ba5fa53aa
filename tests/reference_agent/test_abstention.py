"""Precision first: forms the grammar abstains on, because guessing them wrong is worse than missing them."""

import pytest

from instruction_gate.reference_agent.directives import parse


def kinds(text: str) -> list[tuple[str, str | None]]:
    return [(d.kind, d.argument) for d in parse(text, "AGENTS.md")]


@pytest.mark.parametrize("sentence", [
    # a condition anywhere in the clause, not only before the command or right after it
    "Run `make docs` and `make check` whenever the schema changes.",
    "Run `pnpm build` and then `pnpm e2e` only for UI work.",
    "Run `cargo xtask codegen` and commit the result in case the grammar moved.",
    # a hedge leaves the choice to the reader
    "Run the applicable checks: `pnpm docs:build`.",
    "Run `npm run lint` as needed.",
    "Run `make fmt` where appropriate.",
    "Consider running `cargo clippy` on large changes.",
    "Feel free to run `just bench`.",
    "Run `make generate` if necessary.",
])
def test_a_condition_or_hedge_anywhere_keeps_a_command_from_every_change(sentence):
    assert kinds(f"- {sentence}\n") == []


@pytest.mark.parametrize(("sentence", "expected"), [
    # conditions every change meets are no situation
    ("Use `make test` to validate when making any code/config changes.", [("test_command", "make test"), ("verify", None)]),
    ("Run `uv run prek` at the end of a task if you changed files in the repo.", [("run", "uv run prek")]),
    ("Always run `make lint` when you are done.", [("run", "make lint")]),
])
def test_conditions_every_change_meets_still_lead(sentence, expected):
    assert kinds(f"- {sentence}\n") == expected


def test_a_condition_on_one_part_of_the_tree_is_a_situation():
    assert kinds("- Run `make proto` when making code changes in `api/`.\n") == []


@pytest.mark.parametrize("tool", ["gofmt", "prettier", "ruff", "cargo", "python", "eslint", "cargo nextest", "uv run"])
def test_a_tool_named_alone_is_not_a_command(tool):
    assert kinds(f"- Use `{tool}` to format code.\n") == []
    assert kinds(f"- Always run `{tool}` before committing.\n") == []
    assert kinds(f"- Run tests with `{tool}`.\n") == []


@pytest.mark.parametrize("tool", ["make", "tox", "tsc", "cargo nextest run", "uv run mypy src"])
def test_a_tool_that_works_alone_is_still_run(tool):
    assert kinds(f"- Always run `{tool}` before committing.\n") == [("run", tool)]
    # the test runner alone is the test suite
    assert kinds("- Always run `pytest` before committing.\n") == [("test_command", "pytest"), ("verify", None)]


@pytest.mark.parametrize("sentence", [
    "Do not run `pnpm docs:translate` as routine verification.",
    "Never run `make clean` unless the build cache is corrupt.",
    "Do not use `git rebase` during a release freeze.",
])
def test_a_prohibition_with_an_exception_or_a_scope_bans_nothing(sentence):
    assert kinds(f"- {sentence}\n") == []


@pytest.mark.parametrize(("sentence", "expected"), [
    # the task does not ask, so "unless asked" leaves the ban standing
    ("Never change `global.json` unless explicitly asked to.", [("protect_path", "global.json")]),
    ("Do not run `git push` unless the user asks.", [("forbid_command", "git push")]),
])
def test_unless_asked_keeps_the_ban(sentence, expected):
    assert kinds(f"- {sentence}\n") == expected


def test_a_block_introduced_with_a_hedge_contributes_nothing():
    text = "Run the relevant checks:\n\n```bash\nmake lint\nmake test\n```\n"
    assert kinds(text) == []


def test_a_set_up_block_gives_only_the_steps_that_install():
    text = ("## Setup\n\n```bash\ngit clone https://example.invalid/x.git\ncp .env.example .env\nuv sync\n"
            "docker compose up -d\n./manage.py seed-demo-data\npnpm install\n```\n")
    assert kinds(text) == [("run", "uv sync"), ("run", "pnpm install")]


def test_a_block_under_a_lead_the_grammar_does_not_read_is_not_inferred_from_its_heading():
    text = "## Testing\n\n### Coverage\n\n- Generate a coverage report:\n\n  ```bash\n  pnpm test:coverage\n  ```\n"
    assert kinds(text) == []
    assert kinds("## Testing\n\n```bash\npnpm test\n```\n") == [("test_command", "pnpm test")]


def test_a_lead_saying_where_the_block_runs_still_lets_the_heading_speak():
    text = "## Running tests\n\nFrom the repo root:\n\n```bash\npnpm test   # all\n```\n"
    assert kinds(text) == [("test_command", "pnpm test")]


def test_tests_named_as_what_a_check_catches_do_not_make_it_the_test_command():
    text = "- Run this early to catch type errors in packages, tests, and examples:\n  ```bash\n  pnpm -r build-check\n  ```\n"
    assert ("test_command", "pnpm -r build-check") not in kinds(text)
    assert kinds("Run the unit tests:\n\n```bash\npnpm test\n```\n") == [("test_command", "pnpm test")]


def test_a_pronoun_deep_in_a_long_item_does_not_point_back_at_its_opening_path():
    long_item = ("- `docs/`: the documentation source. Write plain English. Translated pages under `docs/ja` are "
                 "generated; do not edit them manually.\n")
    assert kinds(long_item) == []
    assert kinds("- `vendor/`: third-party code. Do not modify these.\n") == [("protect_path", "vendor/")]


def test_only_as_a_description_is_no_condition():
    assert kinds("- Run `make format` (applies fixes) and `make lint` (checks only).\n") == [
        ("run", "make format"), ("run", "make lint")]


@pytest.mark.parametrize(("text", "expected"), [
    ("- **Always** run `make lint` before committing.\n", [("run", "make lint")]),
    ("- Do **not** edit `dist/`.\n", [("protect_path", "dist/")]),
    ("- Do *NOT* run `npm publish`.\n", [("forbid_command", "npm publish")]),
    ("- _Never_ run `git push --force`.\n", [("forbid_command", "git push --force")]),
    ("Run `make fmt` **before** committing.\n", [("run", "make fmt")]),
    ("- **Always\n  run** `make lint` before committing.\n", [("run", "make lint")]),
])
def test_emphasis_does_not_hide_the_words(text, expected):
    assert kinds(text) == expected


def test_an_emphasised_label_still_names_a_command_rather_than_orders_it():
    assert kinds("- **Run in development:** `npm run start`\n") == []


def test_the_text_shown_has_no_emphasis_markers_and_keeps_its_line():
    directives = parse("# Rules\n\nIntro.\n\n- Keep it short and\n  **never** run `git push`.\n", "AGENTS.md")
    assert [(d.kind, d.line, d.text) for d in directives] == [("forbid_command", 6, "never run `git push`.")]


@pytest.mark.parametrize(("text", "expected"), [
    # after "should not" / "do not" the next word is the verb, not a program named bare
    ("- **Server and client test fixtures should not mix.** Use the server client.", []),
    ("Steps must not mix.", []),
    ("Never npm, yarn or jest.", [("forbid_command", "npm"), ("forbid_command", "yarn"), ("forbid_command", "jest")]),
    # changes of one kind to a file, not the file
    ("Do not commit `uv.lock` or `pyproject.toml` changes created only for temporary downgrade work.", []),
    ("Don't commit `poetry.lock` changes made by the local resolver.", []),
    ("Do not commit `deno.lock` changes.", [("protect_path", "deno.lock")]),
    # a look at the user's own set-up, not a check of the change
    ("- use `prefect config view` to check your current profile", []),
    ("Run `node --version` to verify which version is installed.", []),
    ("Run `make check` to check the change.", [("run", "make check")]),
    # a generic word standing for a path: a form to fill in, never the test command
    ("Run affected tests after changes: `uv run pytest tests/module/`", []),
    ("Run the tests with `pytest tests/path.py`.", []),
])
def test_held_out_9_forms_that_are_no_directive(text, expected):
    assert kinds(text) == expected
