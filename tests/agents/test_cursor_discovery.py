"""Cursor's discovery, from its documentation (not verified live): what loads at start, later, by scope."""

from __future__ import annotations

import json

from instruction_gate.agents.cursor.discovery import cursor_later, cursor_scoped, cursor_sources
from instruction_gate.agents.loading import LOADERS
from instruction_gate.cli import main


def _write(root, files):
    (root / ".git").mkdir(parents=True, exist_ok=True)
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)


RULES = {
    ".cursorrules": "legacy\n",
    "AGENTS.md": "root\n",
    "web/AGENTS.md": "web\n",
    ".cursor/rules/core.mdc": "---\nalwaysApply: true\n---\nAlways run `make lint`.\n",
    ".cursor/rules/ts.mdc": "---\nglobs: \"**/*.ts\"\n---\nts\n",
    ".cursor/rules/db.mdc": "---\ndescription: Database migrations\n---\ndb\n",
    ".cursor/rules/manual.mdc": "---\n---\nonly by name\n",
    "web/.cursor/rules/web.mdc": "---\nalwaysApply: true\n---\nweb rule\n",
    "Makefile": "lint:\n",
}


def test_start_later_and_scoped(tmp_path):
    _write(tmp_path, RULES)
    assert [f.path for f in cursor_sources(tmp_path, ".")] == [".cursorrules", "AGENTS.md", ".cursor/rules/core.mdc"]
    assert [f.path for f in cursor_later(tmp_path, ".", ["web/src/a.ts"])] == ["web/AGENTS.md",
                                                                                "web/.cursor/rules/web.mdc"]
    assert [f.path for f in cursor_sources(tmp_path, "web")][-2:] == ["web/AGENTS.md", "web/.cursor/rules/web.mdc"]
    assert sorted((r.path, r.activation) for r in cursor_scoped(tmp_path, ".")) == [
        (".cursor/rules/db.mdc", "model"), (".cursor/rules/ts.mdc", "files")]


def test_explain_says_it_follows_the_documentation_and_shows_each_scope(tmp_path, capsys):
    _write(tmp_path, RULES)
    assert "not verified live" in LOADERS["cursor"].label
    assert main(["explain", "--repo", str(tmp_path), "--agent", "cursor"]) == 0
    out = capsys.readouterr().out
    assert "Cursor (from its documentation, not verified live)" in out
    assert ".cursor/rules/ts.mdc  (loaded when the agent touches files matching `**/*.ts`)" in out
    assert ".cursor/rules/db.mdc  (may be loaded when the model judges it relevant (Database migrations))" in out
    assert "manual.mdc" not in out
    # The always-applied rule's directive is read past its front matter; its commands run from the root.
    assert ".cursor/rules/core.mdc:4  run `make lint`: runs it in the repository root" in out
    assert main(["explain", "--repo", str(tmp_path), "--agent", "cursor", "--json"]) == 0
    chain = json.loads(capsys.readouterr().out)["chains"][0]
    assert {r["path"]: r["activation"] for r in chain["scoped"]} == {".cursor/rules/db.mdc": "model",
                                                                     ".cursor/rules/ts.mdc": "files"}
