"""Leads that give a list or a block its meaning, and times that are one kind of work."""

import pytest

from instruction_gate.reference_agent.directives import parse


def kinds(text: str) -> list[tuple[str, str | None]]:
    return [(d.kind, d.argument) for d in parse(text, "AGENTS.md")]


def test_a_run_lead_makes_its_command_items_steps_and_the_suite_the_test_command():
    text = "At a minimum, from `docs/` run:\n\n- `bundle install`\n- `bundle exec rake lint`\n- `bundle exec rake test`\n"
    assert kinds(text) == [("run", "bundle install"), ("run", "bundle exec rake lint"),
                           ("test_command", "bundle exec rake test")]


def test_a_conditional_run_lead_gives_no_steps():
    assert kinds("Also run these when docs content changes:\n\n- `make docs`\n") == []


@pytest.mark.parametrize(("text", "expected"), [
    ("- **Test all**: `composer test` or `vendor/bin/pest`\n", [("test_command", "composer test")]),
    ("- `just test` - Tests everything (Rust + Node.js)\n", [("test_command", "just test")]),
    ("**Test all:**\n\n```sh\ndotnet test\n```\n", [("test_command", "dotnet test")]),
    ("Most importantly, run `./bin/lgtm` to verify any file edits before prompting for input.\n", [("run", "./bin/lgtm")]),
    ("- Run `make vet` before finalizing changes.\n", [("run", "make vet")]),
])
def test_labels_and_leads(text, expected):
    assert kinds(text) == expected


def test_never_edit_these_files_ending_with_a_full_stop_protects_each_item():
    text = ("MANDATORY: NEVER edit these files directly.\n\n- `src/binding.cjs` - auto-generated\n"
            "- `rollup/*` - Git submodule for test fixtures\n")
    assert kinds(text) == [("protect_path", "src/binding.cjs"), ("protect_path", "rollup/*")]


@pytest.mark.parametrize("text", [
    "- Path manipulation: read `docs/paths.md` before composing paths.\n",  # a time that is one kind of work
    "- Run `just --list` before using `npm` or `cargo` directly.\n",
])
def test_before_one_kind_of_work_is_a_situation(text):
    assert kinds(text) == []


def test_before_starting_or_changing_code_is_every_task():
    assert kinds("- Read `CONTRIBUTING.md` before changing code.\n") == [("read", "CONTRIBUTING.md")]
    assert kinds("- Before starting any task, read `docs/rules.md`.\n") == [("read", "docs/rules.md")]


@pytest.mark.parametrize(("text", "expected"), [
    # a heading that is the occasion of its list: its command items are steps, the suite the test command
    ("## Before Every Commit\n\n1. `yarn format`\n2. `yarn test`\n3. NEVER push on `develop`\n",
     [("run", "yarn format"), ("test_command", "yarn test"), ("verify", None)]),
    ("### Pre-commit checklist\n\n- `make lint`\n", [("run", "make lint")]),
    ("## Committing changes\n\n- `make lint`\n", []),  # a heading that describes leads nothing
    ("## Before committing\n\nSome background first.\n\n- `make lint`\n", []),  # a paragraph between: its own lead
    # a purpose every change has, over a block
    ("To ensure your code adheres to the style guide, run:\n\n```bash\npnpm run lint\n```\n", [("run", "pnpm run lint")]),
    ("To check the docs render, run:\n\n```bash\nmake docs\n```\n", []),  # one occasion's
    ("To set up the environment and build the project:\n\n```bash\npnpm install\npnpm run compile\n```\n",
     [("run", "pnpm install")]),  # the installing lines, as under a set-up heading
    # a comment naming what kind of dependencies a line installs
    ("# Commands\n\n```bash\nuv sync   # Install all dev dependencies\nuv run -s x.py  # Run a script\n```\n",
     [("run", "uv sync")]),
    # a test label with what the suite is, in brackets
    ("- Tests: `deno task test` (all tests, parallel).\n", [("test_command", "deno task test")]),
])
def test_headings_purposes_comments_and_labels_that_lead(text, expected):
    assert kinds(text) == expected
