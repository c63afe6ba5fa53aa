"""Mutation operators on rule files with front matter: the rules mutate, the front matter never."""

from __future__ import annotations

from instruction_gate.mutations.operators import generate

RULE = (b'---\nglobs: "**/*.py"\nalwaysApply: false\n---\n# Python\n\n- Always run `make test`.\n'
        b"- Never run `pip install`.\n\n## Style\n\n- Use tabs.\n")
FRONT = b'---\nglobs: "**/*.py"\nalwaysApply: false\n---\n'


def test_every_operator_mutates_the_rules_and_keeps_the_front_matter():
    mutants = generate({".cursor/rules/py.mdc": RULE, ".github/instructions/a.instructions.md": RULE})
    assert {m.operator for m in mutants} == {"truncate", "stale-command", "contradiction", "delete-section",
                                             "delete-rule"}
    for mutant in mutants:
        for data in mutant.changes.values():
            assert data.startswith(FRONT), mutant.id
    # The front matter's `key: value` over `---` is no heading: only the two real sections are deleted.
    assert sorted(m.line for m in mutants if m.operator == "delete-section" and m.path.endswith(".mdc")) == [5, 10]
