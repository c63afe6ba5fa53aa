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
