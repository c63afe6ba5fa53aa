"""Finishing steps and the test suite named by shape: forms a new batch of real files used."""

import pytest

from instruction_gate.reference_agent.directives import parse


def kinds(text: str) -> list[tuple[str, str | None]]:
    return [(d.kind, d.argument) for d in parse(text, "AGENTS.md")]


def test_presenting_final_changes_is_finishing_and_a_block_of_checks_names_the_suite():
    text = ("Before presenting final changes or submitting a pull request, run each of the\nfollowing commands "
            "and ensure they succeed:\n\n```bash\nmake audit\nmake lint\nmake test\n```\n")
    assert kinds(text) == [("verify", None), ("run", "make audit"), ("run", "make lint"), ("test_command", "make test")]


@pytest.mark.parametrize(("sentence", "expected"), [
    ("After any code change, run `make check` and fix what it reports.", [("run", "make check")]),
    ("Before contributing, read [CONTRIBUTING.md](CONTRIBUTING.md).", [("read", "CONTRIBUTING.md")]),
    ("`pnpm vitest run` - Run all tests with Vitest.", [("test_command", "pnpm vitest run")]),
    ("Run `bundle exec rake` and ensure it passes before pushing.", [("run", "bundle exec rake"), ("verify", None)]),
    ("Always run `make test` before handoff.", [("test_command", "make test"), ("verify", None)]),
])
def test_finishing_forms(sentence, expected):
    assert kinds(f"- {sentence}\n") == expected


def test_a_step_shaped_like_the_suite_yields_to_a_named_test_command():
    text = "- Run the tests with `CI=1 npm test`.\n- Always run `pytest`.\n- Then run `CI=1 npm test` at the end.\n"
    assert kinds(text) == [("test_command", "CI=1 npm test"), ("run", "pytest"), ("verify", None)]


@pytest.mark.parametrize("text", [
    "Run tests:\n```bash\n./gradlew :module-name:jvmTest\n```\n",  # a placeholder to fill in
    "- Don't change `.gitignore` to fix this.\n",  # a way not to solve one problem
    "> > Read more: [CONTRIBUTING.md](CONTRIBUTING.md)\n",  # a pointer for the curious
    "- Run `test -f go.work || go work init`.\n",  # `test` here is the shell's file test, and a chain
])
def test_forms_that_are_not_directives(text):
    assert [k for k in kinds(text) if k[0] in ("test_command", "protect_path", "read")] == []


@pytest.mark.parametrize(("text", "expected"), [
    # tests named as what the patch does are no order to run them
    ("- Before handoff, verify that the patch tests the required behavior.\n", []),
    ("- Before handoff, make sure the tests pass.\n", [("verify", None)]),
    # a hedge before the document leaves the choice to the reader; after it, the named document is read
    ("- Read the relevant package docs or `README.md`.\n", []),
    ("- At the end of every run, re-read `AGENTS.md` and the relevant skill files.\n", [("read", "AGENTS.md")]),
    # an import on its own line does not swallow the sentence under it
    ("@README.md\nRun `make fmt` before committing.\n", [("run", "make fmt")]),
])
def test_verify_reads_and_imports(text, expected):
    assert kinds(text) == expected


def test_a_forbidden_operations_label_bans_the_commands_its_items_list():
    text = ("**Strictly Forbidden Git Operations**:\n- **NO force pushes**: `git push --force`, `git push -f`\n"
            "- **NO history rewrites**: `git reset --hard`\n- **NO author overrides**: Always use the default user\n")
    assert kinds(text) == [("forbid_command", "git push --force"), ("forbid_command", "git push -f"),
                           ("forbid_command", "git reset --hard")]


def test_a_list_of_commands_before_creating_a_pull_request_in_any_part_is_every_change():
    text = ("When you modify code in any package, run the following commands in that package's directory before "
            "creating a pull request:\n\n- `make format` – run code formatters\n- `make lint` – run the linter\n"
            "- `make test` – execute the test suite\n- `make bench` – for benchmarks only\n")
    assert kinds(text) == [("run", "make format"), ("run", "make lint"), ("test_command", "make test"), ("verify", None)]


@pytest.mark.parametrize(("text", "expected"), [
    ("7. Run `make precommit` each time before considering the work complete.\n", [("run", "make precommit")]),
    ("When submitting a PR, you **MUST** read [`TEMPLATE.md`](./.github/TEMPLATE.md) and fill it out.\n",
     [("read", "TEMPLATE.md")]),  # the link's text and target are one document
    ("**DO NOT** submit a PR without running the full test suite.\n", [("verify", None)]),
    ("Before handoff, run `scripts/verify.sh` unless the change is documentation only.\n",
     [("run", "scripts/verify.sh")]),
    ("## Quality gates\n\nMatch what `composer check-all` runs:\n\n```bash\ncomposer cs   # read-only\n"
     "vendor/bin/phpunit\n```\n", [("run", "composer cs"), ("test_command", "vendor/bin/phpunit")]),
])
def test_finishing_forms_of_the_eighth_batch(text, expected):
    assert kinds(text) == expected


@pytest.mark.parametrize("time", ["before marking work ready", "before marking the task as complete",
                                  "before calling it done", "before requesting review",
                                  "before marking the PR ready for review"])
def test_the_words_that_say_work_is_over_are_the_time_of_finishing(time):
    text = f"Run `make format`, `make typecheck`, and `make tests` {time}.\n"
    assert kinds(text) == [("test_command", "make tests"), ("run", "make format"), ("run", "make typecheck"),
                           ("verify", None)]
    assert kinds("Run `make docs` before marking a release as published.\n") == []  # one kind of work


@pytest.mark.parametrize("text", [
    "Before handoff, run `scripts/verify.sh` unless the build is broken.\n",  # another exception: conditional
    "When you modify code in `libs/core`, run `make lint`.\n",  # one part, not any
])
def test_exceptions_and_parts_other_than_any_change_stay_conditions(text):
    assert kinds(text) == []


def test_a_test_label_keeps_its_suite_before_an_aside_naming_one_test():
    text = "- **Test**: `task test` or `go test ./...` (run single test:\n  `go test ./internal/x -run TestY`)\n"
    assert kinds(text) == [("test_command", "task test")]
    assert kinds("- **Test**: `task test` (only on Linux)\n") == []  # a situation is no aside


def test_a_setup_label_over_a_block_gives_its_installing_lines():
    text = "**Setup:**\n```bash\nuv venv --python 3.11\nsource .venv/bin/activate\nuv sync\n```\n"
    assert kinds(text) == [("run", "uv sync")]
