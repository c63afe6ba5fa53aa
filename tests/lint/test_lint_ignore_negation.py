"""A negated .gitignore rule keeps a directory: paths under it that no commit holds are stale."""

from __future__ import annotations

from tests.lint.test_lint_rules import findings


def _missing(tmp_path, files: dict[str, str]) -> list[str]:
    return sorted(f.message.split("`")[1] for f in findings(tmp_path, files, "IG002"))


def test_a_deleted_directory_kept_by_a_negated_rule_is_reported(tmp_path):
    files = {".gitignore": "*.json\n!docs/docs.json\n",
             "AGENTS.md": "Edit pages under `docs/` and list them in `docs/docs.json`.\nSee `docs/guide/intro.md`.\n"}
    assert _missing(tmp_path, files) == ["docs/", "docs/docs.json", "docs/guide/intro.md"]


def test_an_ignore_rule_reaching_into_a_directory_still_hides_it(tmp_path):
    files = {".gitignore": "/cache/data/\n!cache/data/keep.txt\n", "AGENTS.md": "Local files go in `cache/`.\n"}
    assert _missing(tmp_path, files) == []
