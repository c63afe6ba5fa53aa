"""The lint and `explain` on repositories whose only instructions are Copilot's, Cursor's or path-scoped rules."""

from __future__ import annotations

from instruction_gate.lint.engine import context, lint
from instruction_gate.lint.policy import LintPolicy
from instruction_gate.lint.tree import DirTree


def _write(root, files):
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)


def _findings(root):
    return [(f.rule_id, f.path, f.line) for f in lint(context(DirTree(root), LintPolicy()))]


def test_a_missing_directory_named_in_copilot_instructions_is_reported(tmp_path):
    _write(tmp_path, {".github/copilot-instructions.md": "The API lives in `services/api/`; docs in `docs/`.\n",
                      "docs/x.md": "d\n"})
    assert _findings(tmp_path) == [("IG002", ".github/copilot-instructions.md", 1)]


def test_scoped_rules_front_matter_and_patterns_are_checked(tmp_path):
    _write(tmp_path, {
        ".github/instructions/none.instructions.md": "---\ndescription: x\n---\nUse tabs.\n",
        ".github/instructions/py.instructions.md": "---\napplyTo: \"**/*.py\"\n---\nUse pytest.\n",
        ".cursor/rules/ts.mdc": "---\nglobs: *.ts\n---\nts\n",
        "src/a.ts": "", "src/b.py": ""})
    assert _findings(tmp_path) == [("IG013", ".cursor/rules/ts.mdc", 1),
                                   ("IG013", ".github/instructions/none.instructions.md", 1)]
    _write(tmp_path, {".github/instructions/py.instructions.md": "---\napplyTo: \"lib/**/*.rs\"\n---\nUse pytest.\n"})
    assert ("IG013", ".github/instructions/py.instructions.md", 1) in _findings(tmp_path)


def test_contradictions_across_scoped_rules_that_load_together(tmp_path):
    _write(tmp_path, {".cursor/rules/a.mdc": "---\nglobs: \"**/*.ts\"\n---\nAlways use strict mode.\n",
                      ".cursor/rules/b.mdc": "---\nglobs: \"src/**\"\n---\nNever use strict mode.\n",
                      "src/a.ts": ""})
    found = [f for f in lint(context(DirTree(tmp_path), LintPolicy())) if f.rule_id == "IG006"]
    assert [(f.path, f.line) for f in found] == [(".cursor/rules/b.mdc", 4)]
    assert '"Never use strict mode" contradicts "Always use strict mode" (.cursor/rules/a.mdc:4)' in found[0].message


def test_explain_on_a_repository_with_only_copilot_files(tmp_path, capsys):
    from instruction_gate.cli import main
    _write(tmp_path, {".github/copilot-instructions.md": "Run `make test` before finishing.\nNever run `git push`.\n",
                      ".github/instructions/py.instructions.md": "---\napplyTo: \"**/*.py\"\n---\nUse pytest.\n",
                      "Makefile": "test:\n\ttrue\n"})
    (tmp_path / ".git").mkdir()
    assert main(["explain", "--repo", str(tmp_path), "--agent", "copilot"]) == 0
    out = capsys.readouterr().out
    assert ".github/copilot-instructions.md  " in out
    assert ".github/instructions/py.instructions.md  (loaded when the agent touches files matching `**/*.py`)" in out
    assert ".github/copilot-instructions.md:2  never run `git push`: never runs matching commands" in out
    assert "test command `make test`: runs it at the end when asked to verify, in the repository root" in out
    # Under the default agents (Codex and Claude Code) nothing loads: explain says where to look.
    assert main(["explain", "--repo", str(tmp_path)]) == 0
    assert "None of these agents loads the repository's instruction files (.github/copilot-instructions.md, " \
           ".github/instructions/py.instructions.md): try --agent all" in capsys.readouterr().out


def test_a_cursor_rules_file_where_a_folder_belongs_is_reported(tmp_path):
    _write(tmp_path, {"AGENTS.md": "# Rules\n", ".cursor/rules": "Follow AGENTS.md.\n"})
    assert _findings(tmp_path) == [("IG013", ".cursor/rules", 1)]


def test_an_instruction_folder_linked_out_of_the_repository_is_reported(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "all.instructions.md").write_text("---\napplyTo: '**'\n---\nRun `make x`.\n")
    root = tmp_path / "repo"
    _write(root, {"AGENTS.md": "Rules.\n"})
    (root / ".github").mkdir()
    (root / ".github" / "instructions").symlink_to(outside)
    (root / ".cursor").mkdir()
    (root / ".cursor" / "rules").symlink_to("../.github")  # inside the repository: linted where it is
    found = [(rule, path) for rule, path, _ in _findings(root)]
    assert ("IG003", ".github/instructions") in found
    assert ("IG003", ".cursor/rules") not in found
