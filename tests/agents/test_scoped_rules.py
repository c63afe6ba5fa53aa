"""Path-scoped rule files: front matter read (bad YAML tolerated), activation, pattern matching."""

from __future__ import annotations

from instruction_gate.agents.scoped_rules import blank_front_matter, matches, read_rule


def test_copilot_apply_to_is_split_at_top_level_commas_and_braces_expand():
    rule = read_rule(".github/instructions/web.instructions.md",
                     b'---\napplyTo: "src/**/*.ts, **/*.{js,jsx}"\n---\nUse strict mode.\n', "copilot")
    assert rule.activation == "files" and rule.patterns == ("src/**/*.ts", "**/*.{js,jsx}")
    assert [p for p in ("src/a/b.ts", "lib/c.jsx", "d.js", "e.py", "src/f.tsx") if matches(rule, p)] == [
        "src/a/b.ts", "lib/c.jsx", "d.js"]
    assert "`src/**/*.ts`" in rule.how


def test_a_copilot_file_without_apply_to_or_matching_everything_loads_at_start():
    # As the pinned Copilot CLI does (checked live by its adapter's tests), not as GitHub documents it.
    rule = read_rule(".github/instructions/x.instructions.md", b"---\ndescription: docs\n---\nbody\n", "copilot")
    assert rule.activation == "always" and not matches(rule, "anything.md")
    assert read_rule("x.instructions.md", b"no front matter\n", "copilot").activation == "always"
    assert read_rule("x.instructions.md", b"---\napplyTo: '**/*'\n---\n", "copilot").activation == "always"


def test_cursor_activations_and_unquoted_globs():
    always = read_rule(".cursor/rules/a.mdc", b"---\nalwaysApply: true\n---\nx\n", "cursor")
    model = read_rule(".cursor/rules/b.mdc", b"---\ndescription: Migrations\n---\nx\n", "cursor")
    manual = read_rule(".cursor/rules/c.mdc", b"---\n---\nx\n", "cursor")
    # Cursor writes `globs: *.ts` unquoted: not YAML (an alias), read line by line, and said so.
    loose = read_rule(".cursor/rules/d.mdc", b"---\nglobs: *.ts\nalwaysApply: false\n---\nx\n", "cursor")
    assert (always.activation, model.activation, manual.activation, loose.activation) == (
        "always", "model", "manual", "files")
    assert loose.problem.startswith("front matter is not valid YAML") and matches(loose, "pkg/x.ts")
    stringy = read_rule(".cursor/rules/e.mdc", b'---\nalwaysApply: "true"\n---\nx\n', "cursor")
    assert stringy.activation == "manual" and "not a boolean" in stringy.problem


def test_nested_rules_match_only_below_their_folder_and_lists_are_read():
    rule = read_rule("web/.cursor/rules/w.mdc", b"---\nglobs:\n  - src/**\n---\nx\n", "cursor", base="web")
    assert matches(rule, "web/src/a.ts") and not matches(rule, "src/a.ts")
    claude = read_rule(".claude/rules/py.md", b'---\npaths:\n  - "api/**/*.py"\n---\nx\n', "claude")
    assert claude.activation == "files" and matches(claude, "api/v1/x.py") and not matches(claude, "web/x.ts")


def test_hostile_front_matter_never_raises():
    for data in (b"---\n[unclosed\n---\n", b"---\n- a\n- b\n---\n", b"---\napplyTo: 3\n---\n",
                 b"---\napplyTo: '" + b"{a," * 40 + b"'\n---\n", b"\xff\xfe---\n"):
        rule = read_rule("x.instructions.md", data, "copilot")
        assert rule.activation in ("files", "always")
        matches(rule, "a/b.c")


def test_front_matter_is_blanked_keeping_lines_and_offsets():
    text = "---\nglobs: x\n---\nAlways run `make`.\n"
    blanked = blank_front_matter(text)
    assert len(blanked) == len(text) and blanked.splitlines()[3] == "Always run `make`."
    assert "globs" not in blanked and blank_front_matter("plain\n") == "plain\n"


def test_known_formats_are_instruction_files_and_the_contract_names_a_forgotten_one():
    from instruction_gate import globs
    from instruction_gate.agents.loading import DEFAULT_INSTRUCTION_PATHS, is_instruction_file
    from instruction_gate.suite.contract import _known_format, mixed_message
    known = [".github/copilot-instructions.md", ".github/instructions/a/py.instructions.md", ".cursor/rules/x.mdc",
             "web/.cursor/rules/y.mdc", ".cursorrules", ".claude/rules/r.md", ".claude/skills/s/SKILL.md",
             "pkg/AGENTS.md", "CLAUDE.md", "GEMINI.md"]
    assert all(is_instruction_file(p) and globs.matches_any(p, DEFAULT_INSTRUCTION_PATHS) for p in known)
    assert not any(is_instruction_file(p) for p in ("src/x.py", "docs/rules.md", ".github/workflows/ci.yml"))
    assert "add it to instruction_paths, e.g. '**/.github/copilot-instructions.md'" in \
        _known_format(".github/copilot-instructions.md")
    assert _known_format("src/x.py") == ""
    assert mixed_message(["AGENTS.md"], [".cursor/rules/x.mdc", "src/x.py"]).endswith(
        "note: .cursor/rules/x.mdc is an instruction file agents load by themselves, outside instruction_paths: "
        "add the format there")
