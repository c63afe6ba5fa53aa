"""`changes`: the action's relevance check (which instruction files a candidate changes)."""

from __future__ import annotations

import json

from instruction_gate.cli import main

MANIFEST = {
    "schema_version": 1, "repeats": 1,
    "instruction_paths": ["AGENTS.md", "**/AGENTS.override.md"],
    "tasks": [{"id": "t", "kind": "bug_fix", "prompt_file": "evals/prompt.md", "checks": [["true"]]}],
}


def _setup(git_repo):
    base = git_repo.commit({"evals/manifest.json": json.dumps(MANIFEST), "evals/prompt.md": "do it",
                            "AGENTS.md": "a", "docs/AGENTS.md": "nested, not an instruction path",
                            "src/app.py": "x = 1"}, "base")
    return base, str(git_repo.path / "evals" / "manifest.json")


def _changes(git_repo, manifest, base, candidate, capsys):
    code = main(["changes", "--repo", str(git_repo.path), "--manifest", manifest, "--base", base, "--candidate", candidate])
    captured = capsys.readouterr()
    return code, captured.out.splitlines(), captured.err


def test_lists_only_changed_instruction_paths(git_repo, capsys):
    base, manifest = _setup(git_repo)
    candidate = git_repo.commit({"AGENTS.md": "b", "services/pay/AGENTS.override.md": "new",
                                 "docs/AGENTS.md": "changed", "src/app.py": "x = 2"}, "mixed")
    assert _changes(git_repo, manifest, base, candidate, capsys)[:2] == (0, ["AGENTS.md", "services/pay/AGENTS.override.md"])


def test_code_only_change_lists_nothing(git_repo, capsys):
    base, manifest = _setup(git_repo)
    candidate = git_repo.commit({"src/app.py": "x = 3"}, "code")
    assert _changes(git_repo, manifest, base, candidate, capsys)[:2] == (0, [])


def test_diffs_against_the_merge_base_not_the_moving_base(git_repo, capsys):
    base, manifest = _setup(git_repo)
    git_repo.git("checkout", "-q", "-b", "feature")
    candidate = git_repo.commit({"src/app.py": "x = 4"}, "feature change")
    git_repo.git("checkout", "-q", "main")
    moved_base = git_repo.commit({"AGENTS.md": "edited on main"}, "main moves on")
    assert _changes(git_repo, manifest, moved_base, candidate, capsys)[:2] == (0, [])


def test_unknown_candidate_is_a_usage_error(git_repo, capsys):
    base, manifest = _setup(git_repo)
    code, out, err = _changes(git_repo, manifest, base, "0" * 40, capsys)
    assert (code, out) == (2, [])
    assert "is the candidate commit fetched?" in err


def test_mixed_change_names_instruction_files_and_code_on_stderr(git_repo, capsys):
    base, manifest = _setup(git_repo)
    candidate = git_repo.commit({"AGENTS.md": "b", "src/app.py": "x = 2", "Makefile": "check:\n"}, "mixed")
    code, out, err = _changes(git_repo, manifest, base, candidate, capsys)
    assert (code, out) == (0, ["AGENTS.md"])
    assert "mixed change: instruction files AGENTS.md; code (2 files): Makefile, src/app.py." in err
    only = git_repo.commit({"AGENTS.md": "c"}, "instructions only")
    assert "mixed change" not in _changes(git_repo, manifest, candidate, only, capsys)[2]


def test_an_agent_loaded_file_outside_instruction_paths_is_named_not_evaluated(git_repo, capsys):
    base, manifest = _setup(git_repo)
    candidate = git_repo.commit({".github/copilot-instructions.md": "Run make test.", "src/app.py": "x = 4"}, "copilot")
    code, listed, err = _changes(git_repo, manifest, base, candidate, capsys)
    assert (code, listed) == (0, [])  # stdout still lists only what the gate evaluates
    assert "unwatched instruction files: .github/copilot-instructions.md is loaded by a known agent" in err
    assert "**/.github/copilot-instructions.md" in err and "src/app.py" not in err.split("unwatched")[1].split("\n")[0]
