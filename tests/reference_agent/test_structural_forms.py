"""The grammar's general forms, structure first: what a heading makes of its block, what a lead's
condition makes of its list, requirements stated as requirements, purposes that make a command
situational, and lists of documents to read first. Each class with texts written for it."""

from __future__ import annotations

import pytest

from instruction_gate.reference_agent.directives import parse
from instruction_gate.reference_agent.headings import heading_class, is_topic


def _found(text: str) -> list[tuple[str, str | None]]:
    return [(d.kind, d.argument) for d in parse(text, "AGENTS.md")]


@pytest.mark.parametrize("title, expected", [
    ("Build and check", "steps"), ("Build & Test", "steps"), ("lint, test and build", "steps"),
    ("Testing and verification", "steps"), ("2. Verification", "steps"), ("Quality checks", "steps"),
    ("Pre-commit checks", "steps"), ("Before committing", "steps"), ("Before opening a pull request", "steps"),
    ("Build and test (Rust)", "steps"),
    ("Common commands", "reference"), ("Useful Commands", "reference"), ("Quick reference", "reference"),
    ("Cheat sheet", "reference"), ("Commands", "reference"),
    # commands named by their job: neither steps nor a list to pick from, so the sentences under it still speak
    ("Build and test commands", None), ("Development commands", None),
    ("Build", None), ("Testing", None), ("Architecture", None), ("Checking out the code", None),
])
def test_heading_classes(title, expected):
    assert heading_class(title) == expected


def test_a_block_under_a_routine_heading_is_every_changes_steps():
    text = "# Widget\n\n## Build and check\n\n```sh\nzig build\nzig build test\nzig fmt --check src\n```\n"
    assert _found(text) == [("run", "zig build"), ("test_command", "zig build test"), ("run", "zig fmt --check src")]


def test_a_routine_block_with_anything_but_plain_commands_is_left_alone():
    placeholder = "## Build and test\n\n```sh\nzig build\nzig build test -Dfilter=<name>\n```\n"
    server = "## Build and test\n\n```sh\nzig build\nzig build run -- serve\n```\n"
    commented = "## Verification\n\n```sh\nzig build       # debug\nzig build -Doptimize=ReleaseFast\n```\n"
    assert [_found(t) for t in (placeholder, server, commented)] == [[], [], []]


def test_a_reference_heading_orders_nothing():
    listed = "## Useful commands\n\n```sh\nzig build docs\nzig build bench\n```\n"
    nested = "## Common commands\n\n### Build and check\n\n```sh\nzig build\nzig build lint\n```\n"
    items = "## Common commands\n\n- Run `zig build docs` to see the docs.\n- Run `zig build lint`.\n"
    assert [_found(t) for t in (listed, nested, items)] == [[], [], []]
    insisting = "## Common commands\n\n- Always run `zig build lint` before committing.\n"
    led = "## Common commands\n\nRun these before committing:\n\n- `zig build lint`\n"
    assert _found(insisting) == [("run", "zig build lint")] == _found(led)


def test_a_lead_whose_condition_lists_the_projects_areas_covers_every_change():
    block = ("When modifying core functionality, commands, or documentation, run the following commands:\n\n"
             "```bash\nnpm run lint\nnpm test\n```\n")
    listed = ("If you change library code or its tests, run these:\n\n- `npm run lint`\n- `npm test`\n")
    assert _found(block) == [("run", "npm run lint"), ("test_command", "npm test")]
    assert _found(listed) == [("run", "npm run lint"), ("test_command", "npm test")]


def test_a_lead_for_one_situation_is_not_every_change():
    one_area = "When modifying the query planner, run the following commands:\n\n```bash\nnpm run plan-check\n```\n"
    docs_and_examples = "When changing documentation or examples, run these:\n\n- `npm run docs`\n"
    assert _found(one_area) == [] and _found(docs_and_examples) == []


def test_a_requirement_stated_as_one_names_its_command():
    assert _found("Race condition testing is required (`make race`).") == [("run", "make race")]
    assert _found("Formatting is mandatory: `cargo fmt --all`") == [("run", "cargo fmt --all")]
    assert _found("- After editing code, run the project-specific lint and type-check commands (`make lint-all`).") == [
        ("run", "make lint-all")]
    # an example of the kind, a requirement for one occasion: abstain
    assert _found("Run the linters (e.g. `make lint`).") == []
    assert _found("Integration testing is required (`make it`) before a release.") == []


def test_a_one_situation_fix_is_not_an_every_task_step():
    assert _found("Run `./gradlew spotlessApply` to fix Kotlin formatting issues.") == []
    assert _found("Use `ruff check --fix` to auto-fix any lint errors.") == []
    assert _found("Run `./gradlew spotlessCheck` to verify formatting.") == [("run", "./gradlew spotlessCheck")]


def test_documents_listed_under_a_read_first_lead_are_read():
    heading = "## Read before changing code\n\n- [Design](docs/design.md)\n- [Errors](docs/errors.md)\n"
    paragraph = "Please read these before making changes:\n\n- `docs/style.md`\n- [Testing](docs/testing.md)\n"
    required = "**Required reading:**\n\n- [Layout](docs/layout.md)\n"
    assert _found(heading) == [("read", "docs/design.md"), ("read", "docs/errors.md")]
    assert _found(paragraph) == [("read", "docs/style.md"), ("read", "docs/testing.md")]
    assert _found(required) == [("read", "docs/layout.md")]


def test_other_document_lists_are_not_orders_to_read():
    further = "## Further reading\n\n- [History](docs/history.md)\n"
    situational = "When working on the parser, read:\n\n- [Parser notes](docs/parser.md)\n"
    assert _found(further) == [] and _found(situational) == []


def test_a_prohibition_with_a_later_occasion_is_no_blanket_ban():
    assert _found("Do not delete files from `fixtures/` after regenerating the snapshots.") == []
    assert _found("Never run `make clean` while a build is running.") == []
    assert _found("Do not edit `schema.json` unless explicitly asked.") == [("protect_path", "schema.json")]
    assert _found("Never run `git push --force`.") == [("forbid_command", "git push --force")]


@pytest.mark.parametrize("title, topic", [
    ("Database migrations", True), ("Docker images", True), ("Releasing a version", True), ("Benchmarks", True),
    ("Development workflow", False), ("Testing", False), ("Rust", False), ("Code style", False),
    ("Before you push", False), ("Working in this repo", False), ("Frontend (React)", False),
])
def test_topic_titles(title, topic):
    assert is_topic(title) is topic


def test_a_bare_order_under_a_topic_section_is_that_topics():
    topic = "# Widget\n\n## Database migrations\n\n- Run `make migrate-up`.\n"
    routine = "# Widget\n\n## Development workflow\n\n- Run `make lint`.\n"
    insisting = "# Widget\n\n## Database migrations\n\n- Always run `make schema-check` before committing.\n"
    title_only = "# Widget\n\n- Run `make lint`.\n"
    assert _found(topic) == []
    assert _found(routine) == _found(title_only) == [("run", "make lint")]
    assert _found(insisting) == [("run", "make schema-check")]
