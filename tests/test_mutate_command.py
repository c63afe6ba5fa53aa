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
                 "--out", str(out), "--adapter", adapter, "--operators", "delete-rule", "swap-overrides",
                 "--min-score", "0.5"])
    report = json.loads((out / "mutation.json").read_text())
    assert report["control"]["status"] == "survived"
    assert [m["status"] for m in report["mutants"]] == ["survived", "survived"]
    assert [m["rule"] for m in report["mutants"]] == ["Always run the tests.", "Never push."]
    assert code == 1  # score 0 < --min-score 0.5
    printed = capsys.readouterr()
    assert "| `delete-rule:AGENTS.md:3` | survived |" in printed.out
    # An operator without a mutant is named, not silent: on stderr before any run and in mutation.md.
    assert printed.err.startswith("mutate: mutants per operator: delete-rule 2\n"
                                  "mutate: not applicable here (no mutant): swap-overrides (no AGENTS.override.md "
                                  "next to an AGENTS.md with other content)\n")
    written = (out / "mutation.md").read_text()
    assert "Not applicable here (no mutant): swap-overrides (no AGENTS.override.md" in written
    assert report["generated"] == {"delete-rule": 2, "swap-overrides": 0}


def test_operators_none_runs_patch_files_only(git_repo, tmp_path, capsys):
    """`--operators none` is documented as "patch files only" (the action passes it that way too)."""
    base, manifest, adapter = small_suite(git_repo, tmp_path)
    patch = tmp_path / "drop-tests.patch"
    patch.write_text("--- a/AGENTS.md\n+++ b/AGENTS.md\n@@ -1,4 +1,3 @@\n # Rules\n \n"
                     "-- Always run the tests.\n - Never push.\n")
    out = tmp_path / "out"
    code = main(["mutate", "--repo", str(git_repo.path), "--manifest", str(manifest), "--base", base,
                 "--out", str(out), "--adapter", adapter, "--operators", "none", "--patches", str(patch)])
    report = json.loads((out / "mutation.json").read_text())
    assert code == 0, capsys.readouterr().err
    assert [m["operator"] for m in report["mutants"]] == ["patch"]
    assert report["generated"] == {"patch": 1}
    assert main(["mutate", "--repo", str(git_repo.path), "--manifest", str(manifest), "--base", base,
                 "--out", str(tmp_path / "o2"), "--adapter", adapter, "--operators", "none", "truncate"]) == 2


def test_nothing_to_mutate_is_said_before_any_run(git_repo, tmp_path, capsys):
    """Patch files only with none found is a configuration error; operators that find nothing to
    mutate give no score, so `--min-score` cannot be judged (3): both before a run is spent."""
    base, manifest, adapter = small_suite(git_repo, tmp_path)
    common = ["mutate", "--repo", str(git_repo.path), "--manifest", str(manifest), "--base", base,
              "--adapter", adapter]
    assert main([*common, "--out", str(tmp_path / "o1"), "--operators", "none"]) == 2
    err = capsys.readouterr().err
    assert "--operators none" in err and "no patch files found in" in err and str(manifest.parent / "mutations") in err
    assert not (tmp_path / "o1" / "control").exists()
    assert main([*common, "--out", str(tmp_path / "o2"), "--operators", "swap-overrides", "--min-score", "0.5"]) == 3
    err = capsys.readouterr().err
    assert "no mutant to score: no operator of swap-overrides applies to AGENTS.md" in err
    assert not (tmp_path / "o2" / "control").exists()


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
    assert main([*common, "--base", base, "--check-env-dir", str(tmp_path / "no-env")]) == 2
    assert not (tmp_path / "o" / "control").exists()


def test_a_path_entry_holding_an_instruction_file_is_refused_before_any_mutant_runs(git_repo, tmp_path, capsys):
    base, manifest, adapter = small_suite(git_repo, tmp_path)
    data = json.loads(manifest.read_text())
    data["defaults"] = {"check_path": ["."]}
    manifest.write_text(json.dumps(data))
    code = main(["mutate", "--repo", str(git_repo.path), "--manifest", str(manifest), "--base", base,
                 "--out", str(tmp_path / "o"), "--adapter", adapter])
    assert code == 2 and "$.defaults.check_path[0]: '.' holds AGENTS.md" in capsys.readouterr().err


def test_markdown_names_what_survives():
    mutant = Mutant("delete-rule:AGENTS.md:4", "delete-rule", "deleted the rule on AGENTS.md:4",
                    "Never push | force", {"AGENTS.md": b""}, "AGENTS.md", 4)
    killed = Mutant("truncate:AGENTS.md:9", "truncate", "cut", "x", {"AGENTS.md": b""})
    report = MutationReport("a" * 40, Outcome(None, SURVIVED, "PASS", "a" * 40, "c"),
                            [Outcome(mutant, SURVIVED, "PASS", "b" * 40, "d"), Outcome(killed, KILLED, "FAIL", "c", "e")],
                            agent_runs=6, naive_agent_runs=12)
    text = markdown(report)
    assert "**1/2 killed** (50%)" in text and "Never push \\| force" in text and "naive cost" in text
    assert "### Surviving mutants: the suite did not notice these changes" in text
    assert "| Never push \\| force | no task depends on what was removed |" in text
    assert "[diff](d/mutant.diff)" in text and "[summary](e/summary.md)" in text
    assert to_json(report)["score"]["ratio"] == 0.5


def test_files_too_large_to_mutate_are_named_in_both_reports():
    report = MutationReport("a" * 40, Outcome(None, SURVIVED, "PASS", "a" * 40, "c"), [], 2, 2,
                            oversized={"AGENTS.md": 2_415_374})
    assert "Not mutated, larger than the 1 MiB the harness reads of one instruction file: " \
           "`AGENTS.md` (2,415,374 bytes)." in markdown(report)
    assert to_json(report)["oversized"] == [{"path": "AGENTS.md", "bytes": 2_415_374}]
    assert to_json(MutationReport("a" * 40, Outcome(None, SURVIVED, "PASS", "a" * 40, "c"), [], 2, 2))["oversized"] == []


def test_a_surviving_contradiction_is_not_called_an_unused_rule():
    """A prohibition plus an inserted opposite ("Never edit vendor/**", "Always edit vendor/**") can
    survive while the prohibition is obeyed and depended on: the report must not say no task depends on it."""
    mutant = Mutant("contradiction:AGENTS.md:3:2", "contradiction",
                    'inserted "Always edit vendor/**." after AGENTS.md:3', "Never edit vendor/**.",
                    {"AGENTS.md": b""}, "AGENTS.md", 3)
    report = MutationReport("a" * 40, Outcome(None, SURVIVED, "PASS", "a" * 40, "c"),
                            [Outcome(mutant, SURVIVED, "PASS", "b" * 40, "d")], agent_runs=4, naive_agent_runs=8,
                            generated={"contradiction": 3, "delete-rule": 0})
    text = markdown(report)
    assert "no task depends" not in text
    assert "| no task notices the opposite rule; for a prohibition, the prohibition may simply win |" in text
    assert "Mutants per operator: contradiction 1 of 3." in text
    assert "Not applicable here (no mutant): delete-rule (no item or sentence that says what to do)." in text


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


def test_a_token_in_the_base_instructions_reaches_no_mutant_diff_or_report(git_repo, tmp_path, capsys):
    token = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
    base, manifest, adapter = small_suite(git_repo, tmp_path)
    base = git_repo.commit({"AGENTS.md": f"# Rules\n\n- Always run the tests.\n- Never push with GH_TOKEN={token}.\n"},
                           "a token in a rule")
    out = tmp_path / "out"
    code = main(["mutate", "--repo", str(git_repo.path), "--manifest", str(manifest), "--base", base,
                 "--out", str(out), "--adapter", adapter, "--operators", "delete-rule"])
    assert code == 0
    printed = capsys.readouterr()
    assert token not in printed.out + printed.err
    files = [p for p in out.rglob("*") if p.is_file()]
    assert sum(p.name == "mutant.diff" for p in files) == 3  # the control and two mutants
    for path in files:
        assert token not in path.read_text(), path
    rules = [m["rule"] for m in json.loads((out / "mutation.json").read_text())["mutants"]]
    assert rules == ["Always run the tests.", "Never push with GH_TOKEN=[REDACTED]."]
