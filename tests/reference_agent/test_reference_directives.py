import pytest

from instruction_gate.reference_agent.directives import parse


def kinds(text: str) -> list[tuple[str, str | None]]:
    return [(d.kind, d.argument) for d in parse(text, "AGENTS.md")]


@pytest.mark.parametrize(("sentence", "expected"), [
    ("Run the tests with `python -m pytest -q` before finishing.",
     [("test_command", "python -m pytest -q"), ("verify", None)]),
    ("Test command: run `make check` for the tests.", [("test_command", "make check")]),
    ("Always run `ruff check .` after editing.", [("run", "ruff check .")]),
    ("Use `ruff format` to format code.", [("run", "ruff format")]),
    ("Never run `npm test` or `npm ci` here.", [("forbid_command", "npm test"), ("forbid_command", "npm ci")]),
    ("Do not edit `src/billing/**`; it is generated.", [("protect_path", "src/billing/**")]),
    ("Ask for approval before running `make db:migrate`.", [("approve_command", "make db:migrate")]),
    ("Ask for permission before editing `migrations/**`.", [("approve_edit", "migrations/**")]),
    ("Read `CONTRIBUTING.md` before changing code.", [("read", "CONTRIBUTING.md")]),
    ("Follow docs/STYLE.md for naming.", [("read", "docs/STYLE.md")]),
    ("Run the tests before finishing.", [("verify", None)]),
])
def test_each_directive_form(sentence, expected):
    assert kinds(f"- {sentence}\n") == expected


@pytest.mark.parametrize("sentence", [
    "Use `pathlib` instead of `os.path`.",  # "use" without "to/for" is style advice, not a command
    "Money is always a `Decimal` (never a `float`).",
    "Tests never touch the network.",
    "See README.md for an overview.",
    "- Never run `pip ins",  # a file cut off mid-directive yields nothing, not half a command
])
def test_prose_is_not_a_directive(sentence):
    assert kinds(sentence) == []


def test_negation_never_turns_into_a_command():
    assert kinds("Do not run the tests with `pytest -x`.") == [("forbid_command", "pytest -x")]


def test_one_directive_per_clause():
    text = "Never run `pytest` directly; run `make test` before finishing."
    assert kinds(text) == [("forbid_command", "pytest"), ("run", "make test")]


def test_fenced_code_is_ignored_and_lines_are_recorded():
    text = "# Rules\n```sh\nrun `rm -rf /`\n```\n- Run `make lint`.\n"
    directives = parse(text, "services/x/AGENTS.md")
    assert [(d.kind, d.argument, d.line, d.source) for d in directives] == [
        ("run", "make lint", 5, "services/x/AGENTS.md")]
