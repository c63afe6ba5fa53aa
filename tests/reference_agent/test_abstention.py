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


@pytest.mark.parametrize("tool", ["gofmt", "prettier", "ruff", "cargo", "python", "eslint"])
def test_a_tool_named_alone_is_not_a_command(tool):
    assert kinds(f"- Use `{tool}` to format code.\n") == []
    assert kinds(f"- Always run `{tool}` before committing.\n") == []


@pytest.mark.parametrize("tool", ["pytest", "make", "tox", "tsc"])
def test_a_tool_that_works_alone_is_still_run(tool):
    assert kinds(f"- Always run `{tool}` before committing.\n") == [("run", tool)]


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
