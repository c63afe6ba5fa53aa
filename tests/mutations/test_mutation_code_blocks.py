"""No mutation operator edits inside a code example or empties a file, and the contradiction
operator inverts only whole clauses. Code blocks come in every CommonMark form here: fences of
backticks and tildes, longer fences holding shorter ones, fences nested in list items, indented
blocks, and a drawn directory tree."""

from __future__ import annotations

import pytest

from instruction_gate.lint.codeblocks import code_blocks, not_commands
from instruction_gate.mutations.edits import contradiction, stale_command, truncate_tail
from instruction_gate.mutations.operators import OPERATORS, generate
from instruction_gate.mutations.structure import delete_rule

TREE = ("```\n.claude-plugin/\n└── marketplace.json          # registry\n\nplugins/\n├── elixir/\n"
        "│   ├── scripts/\n│   │   └── post-edit.sh\n└── core/\n```\n")
PYTHON = "```python\n# Always run the linter\nimport subprocess\nsubprocess.run(['make', 'test'])\n```\n"
TILDES = "~~~~ts\n~~~\nNever commit `dist/`.\n~~~\nconst x = 1;\n~~~~\n"
LONG_FENCE = "````markdown\n```bash\nmake lint\n```\n- Always use `tox -e py311`.\n````\n"
INDENTED = "    # Never push to main\n    Run `scripts/release.sh` now.\n    python scripts/release.py\n"
NESTED = "      ```rust\n      // Always use `cargo fmt`.\n      fn main() {}\n      ```\n"
EXAMPLES = [TREE, PYTHON, TILDES, LONG_FENCE, INDENTED, NESTED]

DOC = f"""# Guide

Intro. Run `make test` before finishing.

## Layout

{TREE}
Use `scripts/check.sh` for linting.

## Code

- Always run `make test` before committing.
- Never edit `plugins/` by hand.

{PYTHON}
{TILDES}
Keep functions small. Avoid globals.

{LONG_FENCE}
## Release

Release notes follow.

{INDENTED}
- Publish with care:

{NESTED}
- Never push to `main`.

```bash
make test
scripts/check.sh
```
"""


def _examples_intact(mutated: str, deleted: tuple[int, int] | None) -> list[str]:
    """The code examples of DOC that the mutant broke: each must be there as written, or gone
    whole with a deleted section."""
    broken = []
    for example in EXAMPLES:
        if example in mutated:
            continue
        start = DOC.index(example)
        if deleted is None or not deleted[0] <= start < start + len(example) <= deleted[1]:
            broken.append(example)
    return broken


def _deleted_span(mutated: str) -> tuple[int, int] | None:
    """The one span of DOC a deleting mutant removed (common prefix and suffix)."""
    prefix = next((i for i, (a, b) in enumerate(zip(DOC, mutated)) if a != b), min(len(DOC), len(mutated)))
    suffix = 0
    while suffix < len(mutated) - prefix and DOC[-1 - suffix] == mutated[-1 - suffix]:
        suffix += 1
    return (prefix, len(DOC) - suffix) if len(mutated) < len(DOC) else None


def test_no_operator_edits_inside_any_kind_of_code_example():
    mutants = generate({"AGENTS.md": DOC.encode()}, list(OPERATORS))
    assert {m.operator for m in mutants} >= {"truncate", "stale-command", "contradiction", "delete-section",
                                             "delete-rule"}
    for mutant in mutants:
        mutated = mutant.changes["AGENTS.md"].decode()
        assert mutated.strip(), mutant.id
        deleted = _deleted_span(mutated) if mutant.operator in ("delete-section", "truncate") else None
        assert not _examples_intact(mutated, deleted), mutant.id
        if mutant.operator == "truncate":
            assert mutated.count("```") % 2 == 0 and mutated.count("~~~") % 2 == 0, mutant.id  # no half block


def test_stale_command_leaves_a_drawn_tree_alone_but_renames_commands_in_shell_blocks():
    mutants = {m.id: m for m in stale_command({"AGENTS.md": DOC.encode()})}
    assert "stale-command:AGENTS.md:path:.claude-plugin/" not in mutants
    check = mutants["stale-command:AGENTS.md:path:scripts/check.sh"].changes["AGENTS.md"].decode()
    assert "```bash\nmake test\nscripts/renamed-check.sh\n```" in check and TREE in check
    assert "scripts/post-edit.sh" not in {m.split(":", 3)[-1] for m in mutants}


def test_code_blocks_in_every_commonmark_form():
    found = {DOC[b.start:b.end] for b in code_blocks(DOC)}
    assert set(EXAMPLES) <= found and "```bash\nmake test\nscripts/check.sh\n```\n" in found
    listed = "- Item\n\n    continues the item, not code\n\nPara.\n\n    code\n"
    assert [listed[b.start:b.end] for b in code_blocks(listed)] == ["    code\n"]
    bash_line = DOC.splitlines().index("scripts/check.sh") + 1
    tree_line = DOC.splitlines().index(".claude-plugin/") + 1
    assert tree_line in not_commands(DOC) and bash_line not in not_commands(DOC)


def test_truncate_in_the_middle_never_cuts_a_code_block_in_half():
    doc = "# T\n\n- Run `make test`.\n\n```bash\n" + "make lint\n" * 40 + "```\n\n- Never push.\n"
    (mutant,) = truncate_tail({"AGENTS.md": doc.encode()})
    assert mutant.changes["AGENTS.md"].decode() == "# T\n\n- Run `make test`.\n\n"


def test_delete_rule_never_splits_an_inline_code_span():
    doc = '# R\n\nCommit with `git commit -m "Fix it. Add tests"` always. Run `make test` first.\n'
    kept = sorted(m.changes["AGENTS.md"].decode() for m in delete_rule({"AGENTS.md": doc.encode()}))
    assert kept == ['# R\n\nCommit with `git commit -m "Fix it. Add tests"` always. \n',
                    "# R\n\nRun `make test` first.\n"]


def test_delete_rule_keeps_the_line_break_before_a_fence_and_takes_an_items_children():
    """Deleting a paragraph's last sentence keeps its line break (else the fence below stops
    opening); deleting an item takes its indented children (else they become indented code)."""
    doc = ("# R\n\nEach part has tests. Run them from the root:\n```bash\nmake test\n```\n\n"
           "- Do NOT edit `README.md`; it is generated.\n    - Edit `README.src.md`.\n\n"
           "      Then run `make readme`.\n- Keep it short.\n")
    mutants = {m.line: m.changes["AGENTS.md"].decode() for m in delete_rule({"AGENTS.md": doc.encode()})}
    assert "tests. \n```bash\nmake test\n```" in mutants[3]
    assert [b.language for b in code_blocks(mutants[3])] == ["bash"]
    assert mutants[8].endswith("```\n\n- Keep it short.\n") and code_blocks(mutants[8])[1:] == ()
    assert mutants[9].endswith("it is generated.\n- Keep it short.\n")


def test_no_operator_mutant_empties_a_file():
    docs = ("Run `make test`.\n", "```bash\nmake test\n```\n\nAlways run `make test`.\n", "# Rules\n\nNever push.\n")
    for doc in docs:
        for mutant in generate({"AGENTS.md": doc.encode()}):
            assert all((data or b"").strip() for data in mutant.changes.values()), mutant.id


@pytest.mark.parametrize("line, fragment", [
    ("- Mark tasks as `completed` IMMEDIATELY after finishing (don't batch)\n", "batch"),
    ("- Commit often (never squash) and push.\n", "squash"),
    ("- Say \"never give up\" to yourself.\n", "give up"),
    ("- Always run these:\n", "run these"),
    ("- Always run `make lint` and `make test\n", "make lint"),
    ("Renaming a public API is a decision a maintainer makes, and should generally be\navoided.\n", "avoided"),
    ("- ONLY use uv, NEVER pip\n", "pip"),
    ("- `# pragma: no cover` means the line is never executed.\n", "executed"),
    ("- Public APIs must always have docstrings.\n", "docstrings"),
    ("- Format: `uv run ruff format .`\n", "ruff format"),
    ("- Commit messages should be concise.\n", "concise"),
    ("- Release notes and tags remain owned by the release workflow.\n", "owned"),
    ("Mark it `strict-no-cover`. Use for lines covered on one platform only.\n", "lines covered"),
])
def test_contradiction_skips_a_directive_that_is_no_whole_clause(line, fragment):
    """A directive inside parentheses or quotes, with an unpaired backtick, introducing what
    follows, after a subject or a description of its own, under a label, or whose verb is a noun
    inverts into no grammatical rule (or a broader one): no mutant for it."""
    inserted = [m.description for m in contradiction({"AGENTS.md": ("# Rules\n\n" + line).encode()})]
    assert not [d for d in inserted if fragment in d], inserted


def test_contradiction_inverts_a_whole_clause_into_a_grammatical_rule():
    doc = ("# Rules\n\n- Always run `make test` (the fast suite) before pushing.\n- Docs: never edit `dist/`.\n\n"
           "Ranges read [start, end( here. Never skip `make lint`.\n")
    inserted = sorted(m.description.split('"')[1] for m in contradiction({"AGENTS.md": doc.encode()}))
    assert inserted == ["- Always edit `dist/`.", "- Never run `make test` (the fast suite) before pushing.",
                        "Always skip `make lint`."]  # what an earlier sentence leaves open does not count


def test_contradiction_inverts_emphasised_gerund_and_conjoined_rules_into_sentences():
    """Emphasis closing around a rule stays outside the opposite, a rule about a gerund takes
    "Prefer"/"Avoid", and a conjunction handed to the next rule is dropped."""
    doc = ("# Rules\n\n- **Always use `logger.exception()` when catching exceptions**\n\n"
           "Avoid adding new `# noqa` comments.\n\n- Prefer keyword arguments, but do not rely on it.\n")
    inserted = sorted(m.description.split('"')[1] for m in contradiction({"AGENTS.md": doc.encode()}))
    assert inserted == ["- Never prefer keyword arguments.",
                        "- Never use `logger.exception()` when catching exceptions.",
                        "Prefer adding new `# noqa` comments."]
