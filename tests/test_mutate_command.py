"""The `mutate` command's input checks, a survivor's report and what each mutant's directory
keeps, with a tiny stand-in adapter."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from instruction_gate.cli import main
from instruction_gate.mutations.model import Mutant
from instruction_gate.mutations.operators import generate
from instruction_gate.mutations.report import KILLED, SURVIVED, MutationReport, Outcome, markdown, to_json

ADAPTER = """import json, sys
request = json.load(sys.stdin)
print(json.dumps({"type": "result", "status": "completed", "tool_calls": 0}))
"""


def small_suite(git_repo, tmp_path):
    manifest = {"schema_version": 1, "repeats": 1, "instruction_paths": ["AGENTS.md"],
                "tasks": [{"id": "t1", "kind": "bug_fix", "prompt_file": "suite/t1.md",
                           "checks": [[sys.executable, "-c", "pass"]]}]}
    base = git_repo.commit({"suite/manifest.json": json.dumps(manifest), "suite/t1.md": "Do it.\n",
                            "AGENTS.md": "# Rules\n\n- Always run the tests.\n- Never push.\n"}, "base")
    adapter = tmp_path / "adapter.py"
    adapter.write_text(ADAPTER)
    return base, git_repo.path / "suite" / "manifest.json", f"{sys.executable} {adapter}"


def test_a_suite_that_checks_nothing_lets_every_mutant_survive(git_repo, tmp_path, capsys):
    base, manifest, adapter = small_suite(git_repo, tmp_path)
    out = tmp_path / "out"
    code = main(["mutate", "--repo", str(git_repo.path), "--manifest", str(manifest), "--base", base,
                 "--out", str(out), "--adapter", adapter, "--operators", "delete-rule", "--min-score", "0.5"])
    report = json.loads((out / "mutation.json").read_text())
    assert report["control"]["status"] == "survived"
    assert [m["status"] for m in report["mutants"]] == ["survived", "survived"]
    assert [m["rule"] for m in report["mutants"]] == ["Always run the tests.", "Never push."]
    assert code == 1  # score 0 < --min-score 0.5
    assert "| `delete-rule:AGENTS.md:3` | survived |" in capsys.readouterr().out


def test_bad_inputs_exit_2(git_repo, tmp_path):
    base, manifest, adapter = small_suite(git_repo, tmp_path)
    common = ["mutate", "--repo", str(git_repo.path), "--manifest", str(manifest), "--out", str(tmp_path / "o"),
              "--adapter", adapter]
    assert main([*common, "--base", "no-such-commit"]) == 2
    assert main([*common, "--base", base, "--operators", "bogus"]) == 2
    assert main([*common, "--base", base, "--truncate-at", "lots"]) == 2
    assert main([*common, "--base", base, "--tasks", "nope"]) == 2
    missing_adapter = [*common[:-1], str(tmp_path / "no-such-adapter"), "--base", base]
    assert main(missing_adapter) == 2 and not (tmp_path / "o" / "control").exists()  # refused before any run


def test_markdown_names_what_survives():
    mutant = Mutant("delete-rule:AGENTS.md:4", "delete-rule", "deleted the rule on AGENTS.md:4",
                    "Never push | force", {"AGENTS.md": b""}, "AGENTS.md", 4)
    killed = Mutant("truncate:AGENTS.md:9", "truncate", "cut", "x", {"AGENTS.md": b""})
    report = MutationReport("a" * 40, Outcome(None, SURVIVED, "PASS", "a" * 40, "c"),
                            [Outcome(mutant, SURVIVED, "PASS", "b" * 40, "d"), Outcome(killed, KILLED, "FAIL", "c", "e")],
                            agent_runs=6, naive_agent_runs=12)
    text = markdown(report)
    assert "**1/2 killed** (50%)" in text and "Never push \\| force" in text and "naive cost" in text
    assert "[diff](d/mutant.diff)" in text and "[summary](e/summary.md)" in text
    assert to_json(report)["score"]["ratio"] == 0.5


def test_each_mutant_keeps_its_diff_and_summary_and_max_mutants_spans_operators(git_repo, tmp_path):
    base, manifest, adapter = small_suite(git_repo, tmp_path)
    out = tmp_path / "out"
    code = main(["mutate", "--repo", str(git_repo.path), "--manifest", str(manifest), "--base", base,
                 "--out", str(out), "--adapter", adapter, "--operators", "delete-rule", "truncate",
                 "--max-mutants", "2"])
    assert code == 0  # everything survives, but without --min-score mutate only reports
    report = json.loads((out / "mutation.json").read_text())
    assert [m["operator"] for m in report["mutants"]] == ["delete-rule", "truncate"]  # not two delete-rules
    base_text = (git_repo.path / "AGENTS.md").read_text()
    expected = {m.id: m.changes["AGENTS.md"] for m in generate({"AGENTS.md": base_text.encode()})}
    markdown_report = (out / "mutation.md").read_text()
    for mutant in report["mutants"]:
        folder = Path(mutant["results"])
        diff = (folder / "mutant.diff").read_text()
        assert diff.startswith("--- a/AGENTS.md\n+++ b/AGENTS.md\n")
        applied = tmp_path / "apply" / mutant["id"].replace(":", "_")
        applied.mkdir(parents=True)
        (applied / "AGENTS.md").write_text(base_text)
        subprocess.run(["git", "apply", "-"], input=diff, text=True, cwd=applied, check=True)
        assert (applied / "AGENTS.md").read_bytes() == expected[mutant["id"]]
        summary = (folder / "summary.md").read_text()
        assert summary.startswith("## ") and "instruction-gate" in summary
        link = f"{folder.relative_to(out).as_posix()}/mutant.diff"
        assert f"[diff]({link})" in markdown_report and (out / link).is_file()
    assert (out / "control" / "mutant.diff").read_text() == ""
    assert (out / "control" / "summary.md").is_file()


def test_help_states_the_defaults_of_min_score_and_max_mutants(capsys):
    assert main(["mutate", "--help"]) == 0
    help_text = " ".join(capsys.readouterr().out.split())
    assert "default: none, only report (exit 0 unless the A/A control is killed" in help_text
    assert "patch files first, then one of each operator in turn" in help_text
