"""Steps scoped to one kind of tests, change or argument, and tables of required checks."""

import pytest

from instruction_gate.reference_agent.directives import parse


def kinds(text: str) -> list[tuple[str, str | None]]:
    return [(d.kind, d.argument) for d in parse(text, "AGENTS.md")]


@pytest.mark.parametrize("text", [
    "- Run `rake test` for unit tests only.\n",  # a part of the suite
    "- Run `rake example:minimal` for a specific example.\n",
    "- Run all conformance tests with `cargo coverage` or `just conformance`.\n",  # one kind of tests
    "## Browser Tests\n\n```bash\n# Run all browser tests\nphp artisan test tests/Browser/\n```\n",
    "### Parser Changes\n\n1. Ensure existing tests pass\n",  # the steps of one kind of change
    "- Build with `nox -s build`.\n",  # how a thing is built, not a step
    "- Check modules with `go mod tidy`.\n",
    "Install the source version with the upgrade script:\n\n```bash\nbash upgrade.sh v4.1\n```\n",
])
def test_scoped_forms_give_no_step(text):
    assert [k for k in kinds(text) if k[0] in ("run", "test_command", "verify")] == []


@pytest.mark.parametrize(("text", "expected"), [
    ("- Run `make lint` or `make check` before committing.\n", [("run", "make lint")]),  # one command, two ways
    ("- Use `artisan make:test --pest X` instead of `artisan make:test --pest Feature/X`.\n", []),  # arguments
    ("- Use `git push --force-with-lease` rather than `git push --force`.\n", [("forbid_command", "git push --force")]),
    ("- Use `cargo check` instead of `cargo build`.\n", [("forbid_command", "cargo build")]),
    ("## Every change\n\n1. After your change, run `make receipt`.\n", [("run", "make receipt")]),
    ("## Testing\n\nTests live alongside the source.\n\n```bash\npnpm test   # All tests\n```\n",
     [("test_command", "pnpm test")]),
    ("```bash\n./gradlew apiCheck   # Check API (run before committing)\n./gradlew apiDump\n```\n",
     [("run", "./gradlew apiCheck")]),
    ("## Boundaries (avoid editing/committing)\n\n- Runtime or generated dirs: `_build/`, `deps/`.\n",
     [("protect_path", "_build/"), ("protect_path", "deps/")]),
])
def test_scoped_forms_and_their_neighbours(text, expected):
    assert kinds(text) == expected


def test_a_table_of_required_gates_gives_its_rows():
    text = ("**All required before PR is merge-ready:**\n\n| Gate | Command | Notes |\n|---|---|---|\n"
            "| Tests pass | `go test -race ./...` | Race detection |\n| Lint | `golangci-lint run` | |\n"
            "| Benchmarks | `go test -bench=.` | Required for optimizations |\n")
    assert kinds(text) == [("test_command", "go test -race ./..."), ("verify", None), ("run", "golangci-lint run")]
    lines = [d.line for d in parse(text, "AGENTS.md")]
    assert lines == [5, 5, 6]


def test_a_table_without_words_requiring_it_gives_nothing():
    text = "| Task | Command |\n|---|---|\n| Tests | `go test ./...` |\n| Docs | `make docs` |\n"
    assert kinds(text) == []


@pytest.mark.parametrize("text", [
    "- Run locally with `./build/bin/app -c conf/app.conf`\n",  # starting the program, not a check
    "- **Linter**: static analysis\n  - Run it with: `./gradlew lint`\n",
    "- Run `./gradlew apiCheck` before committing public API changes\n",  # one kind of change
    "Run `tool list` to see the plugins; run `tool update` to refresh.\n",
    # an item opening with a condition: its later sentences are under it
    "- If you change the schema, regenerate with `make gen`. Run `make check` first to catch errors.\n",
    # a purpose before ";" holds for the clause after it
    "- Use Valgrind for ownership changes; follow `docs/memory.md`.\n",
    "## Code generation\n\n- Remember to run `pnpm typecheck` to make sure the types agree.\n",
    "## Running tests\n\n#### Test with MySQL\n```bash\n./gradlew test_mysql\n```\n",
    "- Run `tool labels` to mark the stale issues.\n",  # a purpose that checks nothing of the change
    "- Always run `./x combine` to combine the reports.\n",
    '- "Refactor X" → "Ensure tests pass before and after"\n',  # a quoted example of a goal
])
def test_occasions_said_around_the_command_give_no_step(text):
    assert kinds(text) == []


@pytest.mark.parametrize(("text", "expected"), [
    # a condition every submitted change meets carries nothing across the ";"
    ("If you do open a PR: reference the issue; run `make check` and report results.\n", [("run", "make check")]),
    ("- Before committing your changes, run `make lint`.\n", [("run", "make lint")]),
    ("- Run the tests with `make test`.\n", [("test_command", "make test")]),
    ("- Run `make lint` to catch errors before pushing.\n", [("run", "make lint")]),  # a check's purpose
    ("- Run `npm ci` to install dependencies.\n", [("run", "npm ci")]),
    ("- Run `pnpm format` to auto-format the entire repo.\n", [("run", "pnpm format")]),
    # the purpose is the first "to" after the command, not a later one ("to apply it to the database")
    ("- Then run `make migrate` to apply it to the database.\n", [("run", "make migrate")]),
    ("## Running tests\n\n#### Quick test\n```bash\n./gradlew test\n```\n", [("test_command", "./gradlew test")]),
])
def test_every_change_forms_keep_their_step(text, expected):
    assert kinds(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("- Don't modify `phpstan.neon` ignore lists or `ecs.php` skip lists to silence a warning.\n", []),
    ("- Don't touch files under `config/` with code-style rewrites.\n", []),  # one manner of editing
    ("- Never edit `uv.lock` manually.\n", [("protect_path", "uv.lock")]),
    ("- Do not modify `CHANGELOG.md` in PRs.\n", [("protect_path", "CHANGELOG.md")]),
])
def test_a_way_or_manner_of_editing_protects_no_path(text, expected):
    assert kinds(text) == expected
