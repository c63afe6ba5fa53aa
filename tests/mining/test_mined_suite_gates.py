"""A mined suite gates: deleting the test instruction fails, a benign rewording passes, and the
summary says the prompts are not reviewed yet."""

from __future__ import annotations

import json
from pathlib import Path

from instruction_gate.cli import main
from instruction_gate.run.base_arm import REFERENCE_ADAPTER
from tests.mining import history_repo

POLICY = Path(__file__).resolve().parents[2] / "policy.json"


def _gate(repo, base: str, candidate: str, tmp_path, name: str) -> tuple[int, str, dict]:
    out, summary = tmp_path / f"runs-{name}", tmp_path / f"{name}.md"
    assert main(["evaluate", "--repo", str(repo.path), "--manifest", str(repo.path / "evals/instructions/manifest.json"),
                 "--base", base, "--candidate", candidate, "--out", str(out), "--adapter", str(REFERENCE_ADAPTER)]) in (0, 1)  # 1: a candidate regression
    code = main(["compare", "--results", str(out), "--policy", str(POLICY), "--summary", str(summary),
                 "--json", str(tmp_path / f"{name}.json")])
    return code, summary.read_text(), json.loads((tmp_path / f"{name}.json").read_text())


def test_deleting_the_test_instruction_fails_and_a_rewording_passes(git_repo, tmp_path, capsys):
    history_repo.build(git_repo)
    assert main(["mine", "--repo", str(git_repo.path)]) == 0
    base = git_repo.commit(message="mined suite")
    agents = (git_repo.path / "AGENTS.md").read_text()
    dropped = git_repo.commit({"AGENTS.md": agents.replace(
        "Run the tests with `python -m pytest -q` before finishing.\n\n", "")}, "AGENTS: shorter")
    git_repo.git("checkout", "-q", base)
    reworded = git_repo.commit({"AGENTS.md": agents.replace("Run the tests with", "Please run the tests with")},
                               "AGENTS: wording")
    capsys.readouterr()

    code, summary, data = _gate(git_repo, base, dropped, tmp_path, "dropped")
    assert code == 1, summary
    assert "required_command_missing" in summary and "AGENTS.md:3" in summary  # the line the gate enforces
    code, summary, data = _gate(git_repo, base, reworded, tmp_path, "reworded")
    assert code == 0, summary
    assert any("written from commit messages are not reviewed yet" in w for w in data["warnings"])
