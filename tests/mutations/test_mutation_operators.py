"""Each mutation operator: it breaks the rule it names (violated), leaves everything else as it
was (satisfied), and makes no mutant where it does not apply (not applicable)."""

from __future__ import annotations

import re
import subprocess

import pytest

from instruction_gate.errors import ConfigError
from instruction_gate.lint import markdown
from instruction_gate.lint.directives import contradicts, directives
from instruction_gate.lint.references import references
from instruction_gate.mutations.edits import contradiction, stale_command, truncate_tail
from instruction_gate.mutations.operators import OPERATORS, generate, sample
from instruction_gate.mutations.overrides import swap_overrides
from instruction_gate.mutations.patches import patch_mutants
from instruction_gate.mutations.structure import delete_rule, delete_section

AGENTS = """# Guide

Intro for humans. Run `make test` before finishing.

## Testing
- Always run `make test` before committing.
- Use `scripts/check.sh` for linting.

## Boundaries
- Never push to `main`.
  Ask a maintainer instead.
"""
PLAIN = "Just a description of the project, nothing to obey.\n"
FILES = {"AGENTS.md": AGENTS.encode()}


def text(mutant, path="AGENTS.md") -> str:
    return mutant.changes[path].decode()


def test_delete_rule_removes_exactly_one_rule_each():
    mutants = list(delete_rule(FILES))
    assert [m.line for m in mutants] == [3, 6, 7, 10]
    never = next(m for m in mutants if m.line == 10)
    assert "Never push" not in text(never) and "Ask a maintainer" not in text(never)  # the whole item
    assert text(never) == AGENTS.replace("- Never push to `main`.\n  Ask a maintainer instead.\n", "")
    assert never.rule == "Never push to `main`. Ask a maintainer instead."
    prose = next(m for m in mutants if m.line == 3)
    assert "Intro for humans." in text(prose) and "Run `make test` before finishing" not in text(prose)


def test_delete_rule_not_applicable_without_rules():
    assert list(delete_rule({"AGENTS.md": PLAIN.encode()})) == []


def test_delete_rule_leaves_descriptions_and_headings_alone():
    """Only text that says what to do is a rule: deleting a description breaks nothing a task
    could depend on, so its mutant would only pad the list of survivors."""
    doc = ("# Layout\n\n`vendor/` holds vendored third-party code. Run `make test` first.\n\n"
           "- `vendor/` holds vendored third-party code.\n"
           "- `docs/` is the manual. Do not edit `docs/api` by hand.\n"
           "- [ ] Ask before deleting files.\n"
           "1. Tests should be fast.\n\n"
           "## Always lint\nThe API lives in `src/`.\n")
    mutants = list(delete_rule({"AGENTS.md": doc.encode()}))
    assert [(m.line, m.rule) for m in mutants] == [
        (3, "Run `make test` first."),
        (6, "`docs/` is the manual. Do not edit `docs/api` by hand."),  # a description with a rule in it
        (7, "[ ] Ask before deleting files."),
        (8, "Tests should be fast."),
    ]
    assert "`vendor/` holds vendored third-party code. \n" in text(mutants[0])


def test_delete_section_removes_heading_and_body_only():
    mutants = {m.line: m for m in delete_section(FILES)}
    assert set(mutants) == {1, 5, 9}
    testing = text(mutants[5])
    assert "## Testing" not in testing and "make test` before committing" not in testing
    assert "## Boundaries" in testing and "Intro for humans" in testing
    assert "2 rule(s)" in mutants[5].description


def test_delete_section_not_applicable_without_headings():
    assert list(delete_section({"AGENTS.md": b"- Always run tests.\n"})) == []


def test_truncate_at_an_agent_cap_cuts_only_longer_files():
    big = b"# Big file here\n" + b"- Never skip it\n" * 2600  # 16-byte lines, 41 KiB: the cap cuts at a line start
    mutants = list(truncate_tail({"AGENTS.md": big, "small/AGENTS.md": b"- tiny\n"}, offset=32 * 1024))
    assert [m.path for m in mutants] == ["AGENTS.md"]
    assert mutants[0].changes["AGENTS.md"] == big[:32 * 1024]
    assert mutants[0].rule == "Never skip it"  # the first rule lost


def test_truncate_without_offset_cuts_at_a_line_start_in_the_middle():
    (mutant,) = truncate_tail(FILES)
    kept = text(mutant)
    assert AGENTS.startswith(kept) and kept.endswith("\n") and len(AGENTS) // 2 <= len(kept) < len(AGENTS)
    assert mutant.rule in AGENTS


def test_truncate_not_applicable_when_under_the_offset():
    assert list(truncate_tail(FILES, offset=10_000)) == []


def test_stale_command_renames_every_occurrence_in_its_file():
    mutants = {m.id: m for m in stale_command(FILES)}
    make = mutants["stale-command:AGENTS.md:make:test"]
    assert text(make).count("make renamed-test") == 2 and "`make test`" not in text(make)
    assert [r.name for r in references(text(make)) if r.kind == "make"] == ["renamed-test", "renamed-test"]
    script = mutants["stale-command:AGENTS.md:path:scripts/check.sh"]
    assert "`scripts/renamed-check.sh`" in text(script) and "make test`" in text(script)


def test_stale_command_no_longer_matches_the_original_command_pattern():
    """A task requiring `make test` (a regular-expression search over the commands run) must not
    be satisfied by the renamed command: the rename may not keep the original name as a prefix."""
    files = {"AGENTS.md": (AGENTS + "- Run `tox -e py311` and read `docs/`.\n").encode()}
    mutants = {m.id: m for m in stale_command(files)}
    patterns = {"make:test": r"make test", "path:scripts/check.sh": r"scripts/check\.sh",
                "tox:py311": r"tox -e py311", "path:docs/": r"(^|\s)docs/"}
    for key, pattern in patterns.items():
        mutated = text(mutants[f"stale-command:AGENTS.md:{key}"])
        commands = [code for line in mutated.splitlines() for _, code in markdown.code_spans(line)]
        assert not [c for c in commands if re.search(pattern, c)], key
    assert "`tox -e renamed-py311`" in text(mutants["stale-command:AGENTS.md:tox:py311"])
    assert "`renamed-docs/`" in text(mutants["stale-command:AGENTS.md:path:docs/"])


def test_stale_command_not_applicable_without_commands():
    assert list(stale_command({"AGENTS.md": PLAIN.encode()})) == []


def test_contradiction_inserts_the_opposite_rule_next_to_the_original():
    mutants = {m.line: m for m in contradiction(FILES)}
    assert set(mutants) == {3, 6, 7, 10}  # imperatives ("Run ...", "Use ...") are rules too
    assert "finishing.\nNever run `make test` before finishing.\n" in text(mutants[3])
    assert "- Never use `scripts/check.sh` for linting.\n" in text(mutants[7])
    always = text(mutants[6])
    assert "- Always run `make test` before committing.\n- Never run `make test` before committing.\n" in always
    found = directives(always)
    assert any(contradicts(a, b) for a in found for b in found)
    never = text(mutants[10])
    assert "  Ask a maintainer instead.\n- Always push to `main`.\n" in never  # after the whole item


def test_contradiction_not_applicable_without_directives():
    assert list(contradiction({"AGENTS.md": PLAIN.encode()})) == []


def test_swap_overrides_exchanges_the_pair():
    files = {"svc/AGENTS.override.md": b"- strict\n", "svc/AGENTS.md": b"- lax\n", "AGENTS.md": b"- root\n"}
    (mutant,) = swap_overrides(files)
    assert mutant.changes == {"svc/AGENTS.override.md": b"- lax\n", "svc/AGENTS.md": b"- strict\n"}


def test_swap_overrides_not_applicable_to_a_lone_override():
    assert list(swap_overrides({"svc/AGENTS.override.md": b"- strict\n", "AGENTS.md": b"- root\n"})) == []


def _patch(tmp_path, old: str, new: str) -> str:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "AGENTS.md").write_text(old)
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "AGENTS.md").write_text(new)
    diff = subprocess.run(["git", "diff", "--no-index", "a/AGENTS.md", "b/AGENTS.md"], cwd=tmp_path,
                          capture_output=True, text=True).stdout
    return diff.replace("a/a/AGENTS.md", "a/AGENTS.md").replace("b/b/AGENTS.md", "b/AGENTS.md")


def test_patch_file_mutant_applies_to_base_files(tmp_path):
    patch = tmp_path / "drop-never.patch"
    patch.write_text(_patch(tmp_path, AGENTS, AGENTS.replace("- Never push to `main`.\n", "")))
    (mutant,) = patch_mutants(FILES, [patch])
    assert mutant.id == "patch:drop-never.patch" and "Never push" in mutant.rule
    assert text(mutant) == AGENTS.replace("- Never push to `main`.\n", "")


def test_patch_that_does_not_apply_is_a_configuration_error(tmp_path):
    patch = tmp_path / "stale.patch"
    patch.write_text(_patch(tmp_path, "other\n", "content\n"))
    with pytest.raises(ConfigError, match="does not apply"):
        list(patch_mutants(FILES, [patch]))


def test_generate_skips_equivalent_mutants_and_unknown_operators():
    files = {"AGENTS.md": AGENTS.encode(), "svc/AGENTS.override.md": b"- x\n", "svc/AGENTS.md": b"- x\n"}
    mutants = generate(files)
    assert not any(m.operator == "swap-overrides" for m in mutants)  # identical pair: nothing to swap
    assert len({m.id for m in mutants}) == len(mutants)
    assert {m.operator for m in mutants} == set(OPERATORS) - {"swap-overrides"}
    with pytest.raises(ConfigError, match="choose from"):
        generate(files, ["no-such-operator"])


def test_max_mutants_takes_patches_first_then_every_operator_in_turn(tmp_path):
    patch = tmp_path / "drop-never.patch"
    patch.write_text(_patch(tmp_path, AGENTS, AGENTS.replace("- Never push to `main`.\n", "")))
    files = {"AGENTS.md": AGENTS.encode(), "svc/AGENTS.md": AGENTS.replace("Guide", "Service").encode()}
    mutants = generate(files, OPERATORS, [patch])
    chosen = sample(mutants, 6)
    assert chosen[0].operator == "patch"
    assert {m.operator for m in chosen} == {"patch", "truncate", "stale-command", "contradiction", "delete-section",
                                            "delete-rule"}  # no swap-overrides: nothing to swap here
    assert [m.id for m in chosen] == [m.id for m in mutants if m in chosen]  # generation order kept
    assert [m.id for m in sample(mutants, 6)] == [m.id for m in chosen]  # deterministic
    second_round = [m for m in sample(mutants, 11) if m not in chosen]
    assert {m.operator for m in second_round} == {"truncate", "stale-command", "contradiction", "delete-section",
                                                  "delete-rule"}
    # Within an operator: first AGENTS.md, then the other file, then further down AGENTS.md (7, not the next rule on 6).
    rules = [m for m in sample(mutants, 16) if m.operator == "delete-rule"]
    assert [(m.path, m.line) for m in rules] == [("AGENTS.md", 3), ("AGENTS.md", 7), ("svc/AGENTS.md", 3)]
    assert sample(mutants, None) == mutants and sample(mutants, 999) == mutants


def test_max_mutants_alternates_files_across_operators():
    override = "# Service\n\n- Always run `make svc-test` first.\n- Never edit `gen/`.\n\n## Deploy\n- Use `make deploy`.\n"
    files = {"AGENTS.md": AGENTS.encode(), "svc/AGENTS.override.md": override.encode()}
    mutants = generate(files)
    chosen = sample(mutants, 5)
    per_file = [sum(m.path == path for m in chosen) for path in sorted(files)]
    assert sorted(per_file) == [2, 3]  # both files, as evenly as 5 allows
    assert len({m.operator for m in chosen}) == 5  # still one of each operator
    assert [m.id for m in sample(mutants, 5)] == [m.id for m in chosen]  # deterministic


def test_delete_section_never_deletes_a_whole_file():
    """A title heading over everything is the file, not a section: its mutant deletes only the
    title's own text, and a file that is one section (under a title or not) has no delete-section
    mutant at all: what would be left is headings, no instruction."""
    by_line = {m.line: m for m in delete_section(FILES)}
    title = text(by_line[1])
    assert title.strip() and "Intro for humans" not in title and "# Guide" not in title
    assert title.startswith("## Testing") and "## Boundaries" in title
    assert "introduction" in by_line[1].description
    one_section = {"AGENTS.md": b"# Rules\n\n- Always run `make test`.\n- Never push to `main`.\n"}
    assert list(delete_section(one_section)) == []
    only_subsection = {"AGENTS.md": b"# Rules\n\n## Tests\n- Always run `make test`.\n"}
    assert list(delete_section(only_subsection)) == []  # the title alone left is no instructions
    nested = {"AGENTS.md": b"# Rules\n\n## All\n\n### Tests\n\n- Run `make test`.\n\n### Lint\n\nRun `make lint`.\n"}
    assert [m.line for m in delete_section(nested)] == [5, 9]  # each subsection, never "All"
    for files in (FILES, one_section, only_subsection, nested):
        for mutant in generate(files):
            assert all(data.strip() for data in mutant.changes.values()), mutant.id


def test_contradiction_skips_actions_made_only_of_code():
    doc = "# Naming\n\n- Test names: always `test_elicit_form_decline`.\n- Never `test_x`.\n- Always run `make lint`.\n"
    mutants = list(contradiction({"AGENTS.md": doc.encode()}))
    assert [m.line for m in mutants] == [5]
    assert "- Never run `make lint`.\n" in text(mutants[0])


def test_contradiction_keeps_a_list_whole_when_the_directive_is_on_a_continuation_line():
    doc = ("# Rules\n\n1. Keep changes small.\n   Always run `make test` before pushing.\n"
           "2. Write docs.\n    - Never edit `vendor/`\n      by hand.\n")
    mutants = {m.line: m for m in contradiction({"AGENTS.md": doc.encode()})}
    first = text(mutants[4])
    assert "before pushing.\n1. Never run `make test` before pushing.\n2. Write docs." in first
    blocks = markdown.blocks(first)
    assert [b.kind for b in blocks].count("item") == 4  # the inserted line is an item of its own
    nested = text(mutants[6])
    assert "      by hand.\n    - Always edit `vendor/` by hand.\n" in nested or \
        "      by hand.\n    - Always edit `vendor/`\n" in nested


def test_operators_none_means_patch_files_only(tmp_path):
    patch = tmp_path / "p.patch"
    patch.write_text("--- a/AGENTS.md\n+++ b/AGENTS.md\n@@ -1,3 +1,3 @@\n-# Guide\n+# Handbook\n \n Intro for humans. Run `make test` before finishing.\n")
    mutants = generate(FILES, ["none"], [patch])
    assert [m.operator for m in mutants] == ["patch"]
    with pytest.raises(ConfigError, match="none"):
        generate(FILES, ["none", "truncate"])


def test_no_operator_edits_inside_a_code_example():
    doc = ("# Rules\n\n- Always run `make test` before committing.\n\n"
           "```python\nimport subprocess\nsubprocess.run(['make', 'test'])  # make test\n```\n\n"
           "```bash\nmake test\n```\n")
    example = "```python\nimport subprocess\nsubprocess.run(['make', 'test'])  # make test\n```\n"
    mutants = generate({"AGENTS.md": doc.encode()})
    assert mutants and all(example in text(m) for m in mutants if m.operator != "truncate")
    stale = [m for m in mutants if m.operator == "stale-command"]
    assert stale and "```bash\nmake renamed-test\n```" in text(stale[0])


def test_a_large_file_makes_one_edit_per_rule_over_one_shared_text():
    """Generation stays linear: every mutant of a file refers to the one decoded text and holds
    only its splice; its bytes are built on demand and equal the base minus that one rule."""
    lines = [f"- Always run `make check-{i}` before you commit.\n" for i in range(400)]
    data = ("# Rules\n\n" + "".join(lines)).encode()
    mutants = [m for m in generate({"AGENTS.md": data}, ["delete-rule"])]
    assert len(mutants) == 400
    shared = {id(m.edits["AGENTS.md"].text) for m in mutants}
    assert len(shared) == 1
    for mutant in mutants[::37]:
        removed = mutant.line - 3  # rules start on line 3
        expected = "# Rules\n\n" + "".join(lines[:removed] + lines[removed + 1:])
        assert text(mutant) == expected


def test_a_file_over_the_read_cap_is_left_to_patch_files(tmp_path):
    from instruction_gate.mutations.operators import oversized
    from instruction_gate.untrusted import INSTRUCTION_CAP_BYTES
    huge = b"# Rules\n\n" + b"- Always run `make test`.\n" * (INSTRUCTION_CAP_BYTES // 26 + 10)
    files = {"AGENTS.md": huge, "svc/AGENTS.md": b"# Svc\n\n- Always run `make svc`.\n"}
    assert oversized(files) == {"AGENTS.md": len(huge)}
    made = generate(files, OPERATORS)
    assert made and {m.path for m in made} == {"svc/AGENTS.md"}
