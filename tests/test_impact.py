"""Impact analysis: which tasks can see an instruction change, run only those, judge over them."""

from __future__ import annotations

import difflib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from instruction_gate import demo_repo
from instruction_gate.suite import impact
from instruction_gate.suite.exposure import Discovery
from instruction_gate.suite.prepare import check_all

ALL_TASKS = ["add-idempotency-test", "approval-schema-migration", "bug-cache-key", "bug-tax-rounding",
             "discount-helper-two-turns", "discover-contribution-policy", "docs-typo-negative-control",
             "payments-scope-override", "refactor-email-parser"]
OVERRIDE = "services/payments/AGENTS.override.md"
#: The approval rule the approval-schema-migration task depends on.
APPROVAL_LINE = "- Ask for approval before running `make db:migrate`: it changes the shared database.\n"


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return demo_repo.build(tmp_path_factory.mktemp("impact") / "repo", demo_repo.resolve_candidate("benign"))


def _candidate(demo, path: str, edit) -> str:
    """A commit on the demo's base that edits one instruction file with `edit(text) -> text`."""
    repo = demo.path
    subprocess.run(["git", "checkout", "-q", "--detach", demo.base], cwd=repo, check=True)
    target = repo / path
    target.write_text(edit(target.read_text()))
    subprocess.run(["git", "commit", "-q", "-am", f"edit {path}"], cwd=repo, check=True)
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True,
                          check=True).stdout.strip()


@pytest.fixture(scope="module")
def broken_override(demo):
    return _candidate(demo, OVERRIDE, lambda text: text.replace(APPROVAL_LINE, ""))


@pytest.fixture(scope="module")
def root_edit(demo):
    return _candidate(demo, "AGENTS.md", lambda text: text + "\n- Prefer small commits.\n")


def _analyse(demo, candidate, mode):
    checked = check_all(demo.path, demo.suite / "manifest.json", demo.base, candidate)
    return impact.analyse(checked, Discovery(mode))


#: The demo's tasks started in services/payments: the only ones whose agent loads its override.
PAYMENTS_TASKS = ["approval-schema-migration", "payments-scope-override"]


@pytest.mark.parametrize("mode", ["codex", "both", "all"])
def test_an_override_edit_reaches_only_tasks_whose_cwd_can_see_it(demo, broken_override, mode):
    found = _analyse(demo, broken_override, mode)
    # Only Codex loads AGENTS.override.md, and only at start: the root tasks never see it (the CLI
    # sends no nested AGENTS file later), services/catalog cannot see services/payments.
    assert found.affected == PAYMENTS_TASKS
    by_id = {t.task_id: t for t in found.tasks}
    assert "at start" in by_id["approval-schema-migration"].reason
    assert dict(by_id["approval-schema-migration"].agents) == {"codex": f"sees {OVERRIDE} at start"}
    assert not by_id["bug-tax-rounding"].affected and by_id["bug-tax-rounding"].agents == ()
    assert "services/catalog" in by_id["bug-cache-key"].reason and not by_id["bug-cache-key"].affected
    assert found.unreachable == ()
    record = found.record()["tasks"]
    assert [t["agents"] for t in record if t["task_id"] == "payments-scope-override"] == [
        {"codex": f"sees {OVERRIDE} at start"}]


def test_a_benign_override_edit_on_the_demo_runs_only_the_payments_tasks(demo):
    benign = _candidate(demo, OVERRIDE, lambda text: text + "\n- Keep payment logs free of card numbers.\n")
    found = _analyse(demo, benign, "both")  # the demo's reference agent: Codex and Claude Code rules
    assert found.affected == PAYMENTS_TASKS
    assert len(found.selected()) * 2 * 2 == 8  # tasks x arms x the demo's 2 repeats (was 8 tasks, 32 runs)


def test_a_nested_claude_md_counts_for_claude_only(git_repo):
    manifest = {"schema_version": 1, "repeats": 1, "instruction_paths": ["**/CLAUDE.md", "**/AGENTS.md"],
                "hidden_paths": ["evals/**"],
                "tasks": [{"id": "root", "kind": "bug_fix", "cwd": ".", "prompt_file": "evals/r.md",
                           "checks": [["true"]]}]}
    base = git_repo.commit({"AGENTS.md": "root\n", "pkg/CLAUDE.md": "one\n", "pkg/AGENTS.md": "a\n",
                            "pkg/x.py": "", "evals/r.md": "r\n", "evals/manifest.json": json.dumps(manifest)})
    claude_edit = git_repo.commit({"pkg/CLAUDE.md": "two\n"})
    checked = check_all(git_repo.path, git_repo.path / "evals/manifest.json", base, claude_edit)
    assert impact.analyse(checked, Discovery("codex")).affected == []
    found = impact.analyse(checked, Discovery("both"))
    assert dict(found.tasks[0].agents) == {"claude": "sees pkg/CLAUDE.md below its cwd"}
    agents_edit = git_repo.commit({"pkg/AGENTS.md": "b\n"})
    checked = check_all(git_repo.path, git_repo.path / "evals/manifest.json", claude_edit, agents_edit)
    assert impact.analyse(checked, Discovery("both")).affected == []  # Codex sends no nested AGENTS.md later
    assert dict(impact.analyse(checked, Discovery("gemini")).tasks[0].agents) == {
        "gemini": "sees pkg/AGENTS.md below its cwd"}  # Gemini CLI's just-in-time context files


def test_claude_never_loads_an_agents_override_so_no_task_is_affected(demo, broken_override):
    found = _analyse(demo, broken_override, "claude")
    assert found.affected == []
    assert found.unreachable == (OVERRIDE,)


#: Tasks the root AGENTS.md reaches through CLAUDE.md's `@AGENTS.md` import: headless Claude Code
#: expands only imports inside its working directory, so tasks in services/* never load it.
ROOT_CWD_TASKS = [t for t in ALL_TASKS if t not in ("approval-schema-migration", "bug-cache-key",
                                                     "payments-scope-override")]


@pytest.mark.parametrize(("mode", "expected"), [("codex", ALL_TASKS), ("claude", ROOT_CWD_TASKS), ("both", ALL_TASKS)])
def test_a_root_agents_edit_reaches_every_task_that_loads_it(demo, root_edit, mode, expected):
    found = _analyse(demo, root_edit, mode)
    assert sorted(found.affected) == expected


def test_a_file_no_task_reaches_is_reported_unreachable(git_repo):
    manifest = {"schema_version": 1, "repeats": 1, "instruction_paths": ["**/AGENTS.md", "**/CLAUDE.md"],
                "tasks": [{"id": "a", "kind": "bug_fix", "cwd": "pkg/a", "prompt_file": "evals/a.md",
                           "checks": [["true"]]}]}
    base = git_repo.commit({"AGENTS.md": "root\n", "pkg/a/AGENTS.md": "a\n", "pkg/b/AGENTS.md": "b\n",
                            "pkg/b/CLAUDE.md": "see @../../docs/x.md\n", "evals/a.md": "do it\n",
                            "evals/manifest.json": json.dumps(manifest)})
    candidate = git_repo.commit({"pkg/b/AGENTS.md": "b, changed\n"})
    checked = check_all(git_repo.path, git_repo.path / "evals/manifest.json", base, candidate)
    for mode in ("codex", "claude", "both"):
        found = impact.analyse(checked, Discovery(mode))
        assert found.affected == [] and found.unreachable == ("pkg/b/AGENTS.md",), mode


def test_imports_and_nested_files_below_the_cwd_count(git_repo):
    manifest = {"schema_version": 1, "repeats": 1, "instruction_paths": ["**/CLAUDE.md", "docs/**"],
                "hidden_paths": ["evals/**"],
                "tasks": [{"id": "root", "kind": "bug_fix", "cwd": ".", "prompt_file": "evals/r.md",
                           "checks": [["true"]]},
                          {"id": "b", "kind": "bug_fix", "cwd": "b", "prompt_file": "evals/b.md",
                           "checks": [["true"]]}]}
    base = git_repo.commit({"CLAUDE.md": "rules in @docs/rules.md\n", "docs/rules.md": "one\n",
                            "a/deep/CLAUDE.md": "deep\n", "b/x.py": "", "evals/r.md": "r\n", "evals/b.md": "b\n",
                            "evals/manifest.json": json.dumps(manifest)})
    imported = git_repo.commit({"docs/rules.md": "two\n"})
    checked = check_all(git_repo.path, git_repo.path / "evals/manifest.json", base, imported)
    # An import is loaded at start, but headless Claude Code expands only imports inside its working
    # directory: from b/, the root CLAUDE.md's import of docs/rules.md stays literal text.
    assert impact.analyse(checked, Discovery("claude")).affected == ["root"]
    assert impact.analyse(checked, Discovery("codex")).affected == []  # Codex does not follow imports
    deep = git_repo.commit({"a/deep/CLAUDE.md": "deeper\n"})
    checked = check_all(git_repo.path, git_repo.path / "evals/manifest.json", imported, deep)
    assert impact.analyse(checked, Discovery("claude")).affected == ["root"]


def test_arm_files_carry_what_any_importing_agent_imports(git_repo):
    from instruction_gate.suite.arm_files import closure
    from instruction_gate.suite.contract import read_tree
    # Gemini CLI reads a `~~~` fence as text and imports from it; Claude Code would not.
    sha = git_repo.commit({"GEMINI.md": "Rules:\n~~~\n@docs/rules.md\n~~~\n", "docs/rules.md": "one\n",
                           "docs/other.md": "x\n"})
    assert sorted(closure(git_repo.path, read_tree(git_repo.path, sha), {"GEMINI.md"})) == ["GEMINI.md", "docs/rules.md"]


def test_discovery_follows_what_the_adapter_declares():
    assert impact.discovery_for("auto", ["/x/adapters/reference"], {"discovery": "codex"}).mode == "codex"
    assert impact.discovery_for("auto", ["/x/adapters/claude"], {}).mode == "claude"
    assert impact.discovery_for("auto", ["/x/adapters/reference", "--discovery", "claude"], {}).mode == "claude"
    # The broker follows the agent it wraps; an adapter that declares nothing gets every agent's rules.
    assert impact.discovery_for("auto", ["/x/adapters/broker"], {"wrap": "claude"}).mode == "claude"
    assert impact.discovery_for("auto", ["/x/adapters/broker"], {}).mode == "codex"  # the broker's default wrap
    assert impact.discovery_for("auto", ["/x/adapters/broker"], {"wrap": "./my-agent.sh"}).mode == "all"
    assert impact.discovery_for("auto", ["/usr/bin/python3", "/x/adapters/codex"], {}).mode == "codex"
    assert impact.discovery_for("auto", ["/usr/bin/python3", "/x/adapters/reference"], {}).mode == "both"
    assert impact.discovery_for("auto", ["./my-agent.sh"], {}).mode == "all"
    assert impact.discovery_for("auto", ["./my-agent.sh"], {"discovery": "gemini"}).mode == "gemini"
    assert impact.discovery_for("auto", ["/x/adapters/codex"], {"discovery": "claude"}).mode == "codex"
    assert impact.discovery_for("claude", ["/x/adapters/codex"], {}).mode == "claude"
    assert impact.discovery_for("auto", ["codex"], {"fallback_names": "GUIDE.md"}).fallback_names == ("GUIDE.md",)


# -- end to end: runner.py + compare.py with the reference agent -----------------------------

def _evaluate(demo, candidate, out: Path, *extra: str, policy: dict | None = None) -> subprocess.CompletedProcess:
    suite = demo.suite
    argv = [sys.executable, str(suite / "runner.py"), "--repo", str(demo.path), "--manifest",
            str(suite / "manifest.json"), "--base", demo.base, "--candidate", candidate, "--out", str(out),
            "--adapter", str(suite / "adapters" / "reference"), "--jobs", "2", *extra]
    if not (policy or {}).get("sequential"):
        argv += ["--repeats", "1"]  # sequential mode takes its rounds from the policy
    if policy is not None:
        path = out.parent / f"{out.name}-policy.json"
        path.write_text(json.dumps(policy))
        argv += ["--policy", str(path)]
    return subprocess.run(argv, cwd=demo.path, capture_output=True, text=True, timeout=600)


def _compare(demo, out: Path, policy: dict | None = None, more: tuple[Path, ...] = ()) -> subprocess.CompletedProcess:
    path = demo.suite / "policy.json"
    if policy is not None:
        path = out.parent / f"{out.name}-compare-policy.json"
        path.write_text(json.dumps({**json.loads((demo.suite / "policy.json").read_text()), **policy}))
    inputs = [arg for path in (out, *more) for arg in ("--results", str(path))]
    return subprocess.run([sys.executable, str(demo.suite / "compare.py"), *inputs, "--policy",
                           str(path), "--summary", str(out / "summary.md")],
                          cwd=demo.path, capture_output=True, text=True, timeout=300)


def _index(out: Path) -> dict:
    return json.loads((out / "index.json").read_text())


def test_a_broken_override_runs_only_affected_tasks_and_still_fails(demo, broken_override, tmp_path):
    out = tmp_path / "codex"
    evaluated = _evaluate(demo, broken_override, out, "--adapter-option", "discovery=codex")
    assert evaluated.returncode in (0, 1), evaluated.stderr
    index = _index(out)
    assert index["tasks"] == PAYMENTS_TASKS
    assert {r["task_id"] for r in index["runs"]} == set(index["tasks"]) and len(index["runs"]) == 4
    assert index["impact"]["discovery"] == "codex"
    assert sorted(index["impact"]["unaffected"]) == sorted(set(ALL_TASKS) - set(PAYMENTS_TASKS))
    compared = _compare(demo, out)
    assert compared.returncode == 1, compared.stdout + compared.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert any(f["task_id"] == "approval-schema-migration" and f["blocking"] for f in summary["hard_failures"])
    assert sorted(summary["impact"]["unaffected"]) == sorted(set(ALL_TASKS) - set(PAYMENTS_TASKS))
    assert summary["task_clusters"] == 2
    # The reference agent loads what the rule predicts: no "reads more than the rule" warning.
    assert not [w for w in summary["warnings"] if w.startswith("impact analysis")]
    markdown = (out / "summary.md").read_text()
    assert "### Impact" in markdown and "2 of 9 task(s) can see the change" in markdown


def test_no_task_can_see_the_change_warns_and_passes_or_fails_by_policy(demo, broken_override, tmp_path):
    out = tmp_path / "claude"
    evaluated = _evaluate(demo, broken_override, out, "--adapter-option", "discovery=claude")
    assert evaluated.returncode == 0, evaluated.stderr
    assert "no task can see this change" in evaluated.stderr
    index = _index(out)
    assert index["runs"] == [] and index["tasks"] == [] and index["impact"]["unreachable_changes"] == [OVERRIDE]
    compared = _compare(demo, out)
    assert compared.returncode == 0, compared.stdout + compared.stderr
    assert "no task that can see this change" in compared.stdout and OVERRIDE in compared.stdout
    assert f"warning: the suite has no task that can see this change ({OVERRIDE})" in compared.stderr
    blocked = _compare(demo, out, {"impact": {"when_no_task_affected": "fail"}})
    assert blocked.returncode == 1 and blocked.stdout.startswith("FAIL")


def test_impact_run_runs_every_task_as_before(demo, broken_override, tmp_path):
    out = tmp_path / "run"
    chosen = ["approval-schema-migration", "bug-cache-key", "payments-scope-override"]
    # Under claude discovery impact analysis would run none of these; `run` runs them all.
    evaluated = _evaluate(demo, broken_override, out, "--adapter-option", "discovery=claude", "--tasks", *chosen,
                          policy={"impact": "run"})
    assert evaluated.returncode in (0, 1), evaluated.stderr
    index = _index(out)
    assert "impact" not in index and index["tasks"] == chosen and len(index["runs"]) == 6
    assert "impact (" not in evaluated.stderr


def test_shards_split_the_affected_tasks(demo, broken_override, tmp_path):
    seen = []
    for shard in ("1/3", "2/3", "3/3"):
        out = tmp_path / shard.replace("/", "-")
        evaluated = _evaluate(demo, broken_override, out, "--shard", shard, "--tasks", "bug-cache-key",
                              "payments-scope-override", "approval-schema-migration",
                              "--adapter-option", "discovery=codex")
        assert evaluated.returncode in (0, 1), evaluated.stderr
        seen.append(_index(out)["tasks"])
    # Two affected tasks over three shards: one shard has nothing to run and says so.
    assert sorted(t for tasks in seen for t in tasks) == ["approval-schema-migration", "payments-scope-override"]
    assert [] in seen
    merged = _compare(demo, tmp_path / "1-3", None, (tmp_path / "2-3", tmp_path / "3-3"))
    assert merged.returncode == 1, merged.stdout + merged.stderr  # the broken approval rule still fails
    assert json.loads((tmp_path / "1-3" / "summary.json").read_text())["task_clusters"] == 2


def test_a_mutant_no_task_can_reach_is_unreachable_not_survived(demo, tmp_path):
    from instruction_gate.cli import main
    patch = tmp_path / "override.patch"
    text = subprocess.run(["git", "show", f"{demo.base}:{OVERRIDE}"], cwd=demo.path, capture_output=True,
                          text=True, check=True).stdout
    patch.write_text("".join(difflib.unified_diff(text.splitlines(keepends=True),
                                                  text.replace(APPROVAL_LINE, "").splitlines(keepends=True),
                                                  f"a/{OVERRIDE}", f"b/{OVERRIDE}")))
    out = tmp_path / "out"
    code = main(["mutate", "--repo", str(demo.path), "--manifest", str(demo.suite / "manifest.json"),
                 "--base", demo.base, "--out", str(out), "--adapter", str(demo.suite / "adapters" / "reference"),
                 "--adapter-option", "discovery=codex", "--operators", "--patches", str(patch),
                 "--repeats", "1", "--tasks", "bug-cache-key"])
    report = json.loads((out / "mutation.json").read_text())
    assert code == 0 and report["mutants"][0]["status"] == "unreachable"
    assert report["score"]["unreachable"] == 1 and report["score"]["total"] == 0
    assert report["cost"]["agent_runs"] == 2  # the A/A control only: the mutant was not run
    markdown = (out / "mutation.md").read_text()
    assert "no task can see these files" in markdown and "### Instruction coverage" in markdown
    # From services/catalog alone, the payments override and the other services' files are out of reach.
    assert {"agents": ["codex"], "path": OVERRIDE, "section": None,
            "why": "no task's cwd (services/catalog) reaches it"} in report["coverage"]


def test_compare_warns_when_an_agent_loads_more_than_the_rule_predicts(tmp_path):
    from instruction_gate.verdict.comparison import compare
    from instruction_gate.verdict.policy import policy_from_dict
    from instruction_gate.verdict.results import dump_index, load_results

    def run(task, variant, sources):
        return {"task_id": task, "repeat": 0, "variant": variant, "valid": True, "resolved": True,
                "base_sha": "b" * 40, "candidate_sha": "c" * 40, "hard_failures": [],
                "instruction_sources": sources}
    block = {"mode": "skip", "discovery": "codex", "changed_paths": ["a/AGENTS.md"], "unreachable_changes": [],
             "affected": ["t1"], "unaffected": ["t2"],
             "tasks": [{"task_id": "t1", "cwd": "a", "affected": True, "reason": "sees a/AGENTS.md",
                        "changed": ["a/AGENTS.md"], "reachable": ["AGENTS.md", "a/AGENTS.md"]},
                       {"task_id": "t2", "cwd": "b", "affected": False, "reason": "no", "changed": [],
                        "reachable": ["AGENTS.md"]}]}
    runs = [run("t1", "base", ["AGENTS.md", "a/AGENTS.md"]), run("t1", "candidate", ["AGENTS.md", "b/AGENTS.md"])]
    dump_index(tmp_path / "index.json", runs, base_sha="b" * 40, candidate_sha="c" * 40, tasks=["t1"], repeats=1,
               impact=block)
    comparison = compare(load_results([tmp_path / "index.json"]), policy_from_dict({}))
    [warning] = [w for w in comparison.decision.warnings if w.startswith("impact analysis")]
    assert "t1 loaded b/AGENTS.md" in warning and "impact: run" in warning


def test_sequential_rounds_and_budget_caps_count_affected_tasks_only(demo, broken_override, tmp_path):
    out = tmp_path / "sequential"
    policy = {"soft": {"max_success_rate_drop": 0.1}, "sequential": {"max_rounds": 2},
              "budget": {"max_agent_runs": 10}}
    evaluated = _evaluate(demo, broken_override, out, "--tasks", "bug-cache-key", "bug-tax-rounding",
                          "payments-scope-override", "approval-schema-migration",
                          "--adapter-option", "discovery=codex", policy=policy)
    assert evaluated.returncode in (0, 1), evaluated.stderr
    index = _index(out)
    assert index["tasks"] == PAYMENTS_TASKS
    # The fixed design runs every selected task; the two impact analysis skipped count as saved.
    assert index["cost"]["fixed_design_runs"] == 2 * 2 * 4
    assert index["cost"]["saved_runs"] == 16 - index["cost"]["agent_runs"] >= 8
    assert {r["task_id"] for r in index["runs"]} <= set(index["tasks"]) and len(index["runs"]) <= 10


def test_a_bad_impact_setting_is_named():
    from instruction_gate.errors import ConfigError
    from instruction_gate.verdict.policy import policy_from_dict
    with pytest.raises(ConfigError) as caught:
        policy_from_dict({"impact": "maybe"}, "p.json")
    assert "p.json::$.impact: 'maybe' is not 'skip', 'run' or an object" in str(caught.value.problems)
    assert policy_from_dict({"impact": "run"}).impact == {"mode": "run", "discovery": "auto",
                                                          "when_no_task_affected": "warn"}


def test_a_change_seen_through_a_symlink_is_not_called_unreachable(git_repo):
    manifest = {"schema_version": 1, "repeats": 1, "instruction_paths": ["**/AGENTS.md", "**/CLAUDE.md"],
                "tasks": [{"id": "p", "kind": "bug_fix", "cwd": "pkg", "prompt_file": "evals/p.md",
                           "checks": [["true"]]}]}
    git_repo.write({"pkg/AGENTS.md": "rules\n", "evals/p.md": "p\n", "evals/manifest.json": json.dumps(manifest)})
    git_repo.symlink("pkg/CLAUDE.md", "AGENTS.md")
    base = git_repo.commit(message="base")
    candidate = git_repo.commit({"pkg/AGENTS.md": "rules, changed\n"})
    checked = check_all(git_repo.path, git_repo.path / "evals/manifest.json", base, candidate)
    found = impact.analyse(checked, Discovery("claude"))
    assert found.affected == ["p"] and found.unreachable == ()
    assert found.tasks[0].changed == ("pkg/CLAUDE.md",)


def test_the_policy_schema_offers_every_discovery_mode_the_registry_knows():
    from instruction_gate.agents import loading
    schema = json.loads((Path(__file__).resolve().parents[1] / "schemas" / "policy.schema.json").read_text())
    found = []

    def walk(node):
        if isinstance(node, dict):
            if "discovery" in node and isinstance(node["discovery"], dict) and "enum" in node["discovery"]:
                found.append(node["discovery"]["enum"])
        for value in node.values() if isinstance(node, dict) else node if isinstance(node, list) else ():
            walk(value)
    walk(schema)
    assert found and all(sorted(e) == sorted(["auto", *loading.MODES]) for e in found)


def test_gemini_discovery_follows_the_adapters_context_files(tmp_path):
    from instruction_gate.suite import exposure
    (tmp_path / "GEMINI.md").write_text("g\n")
    (tmp_path / "AGENTS.md").write_text("a\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "GEMINI.md").write_text("p\n")
    default = impact.discovery_for("auto", ["/x/adapters/gemini"], {})
    assert default.mode == "gemini"
    reach = exposure.reachable(tmp_path, "", default)
    assert {p for p, r in reach.items() if r.eager} == {"AGENTS.md", "GEMINI.md"}
    assert reach["pkg/GEMINI.md"].lazy and not reach["pkg/GEMINI.md"].eager  # loaded just in time
    only = impact.discovery_for("auto", ["/x/adapters/broker"], {"wrap": "gemini", "context_files": "GEMINI.md"})
    assert {p for p, r in exposure.reachable(tmp_path, "", only).items() if r.eager} == {"GEMINI.md"}


# -- the configured adapter's own settings, whichever route sets them -----------------------

def test_discovery_reads_the_adapters_flags_and_the_brokers_wrapped_command_line():
    codex = impact.discovery_for("auto", ["/usr/bin/python3", "/x/adapters/codex", "--fallback-names", "GUIDE.md TEAM.md",
                                          "-o", "doc_budget_bytes=100"], {"fallback_names": "IGNORED.md"})
    assert (codex.mode, codex.fallback_names, codex.codex_budget) == ("codex", ("GUIDE.md", "TEAM.md"), 100)
    # Options split as the adapter splits them (commas or spaces).
    assert impact.discovery_for("auto", ["/x/adapters/gemini"], {"context_files": "A.md B.md"}).gemini_names == (
        "A.md", "B.md")
    wrapped = impact.discovery_for("auto", ["/x/adapters/broker", "--wrap", "adapters/gemini --context-files X.md"], {})
    assert (wrapped.mode, wrapped.gemini_names) == ("gemini", ("X.md",))
    # The broker's own -o options never reach the adapter it wraps.
    named = impact.discovery_for("auto", ["/x/adapters/broker", "--wrap", "opencode", "-o", "claude_fallback=false"], {})
    assert (named.mode, named.opencode_claude_fallback) == ("opencode", True)
    assert not impact.discovery_for("auto", ["/x/adapters/opencode"], {"claude_fallback": "false"}).opencode_claude_fallback
    # A program named like a shipped adapter, with flags that adapter would refuse, is a custom one.
    assert impact.discovery_for("auto", ["./evals/adapters/codex", "--no-such-flag"], {}).mode == "all"
    assert impact.discovery_for("auto", ["./evals/adapters/broker", "--mode", "test"], {}).mode == "all"


def _one_task_repo(git_repo, files: dict[str, str], instruction_paths: list[str], cwd: str = ".") -> str:
    manifest = {"schema_version": 1, "repeats": 1, "instruction_paths": instruction_paths, "hidden_paths": ["evals/**"],
                "tasks": [{"id": "t", "kind": "bug_fix", "cwd": cwd, "prompt_file": "evals/t.md", "checks": [["true"]]}]}
    return git_repo.commit({**files, "evals/t.md": "do it\n", "evals/manifest.json": json.dumps(manifest)})


def test_opencode_reads_claude_md_without_agents_md_unless_the_fallback_is_off(git_repo):
    base = _one_task_repo(git_repo, {"CLAUDE.md": "rules\n", "src/app.py": ""}, ["**/CLAUDE.md", "**/AGENTS.md"])
    candidate = git_repo.commit({"CLAUDE.md": "rules, changed\n"})
    checked = check_all(git_repo.path, git_repo.path / "evals/manifest.json", base, candidate)
    shipped = impact.discovery_for("auto", ["/x/adapters/opencode"], {})
    assert impact.analyse(checked, shipped).affected == ["t"]
    off = impact.discovery_for("auto", ["/x/adapters/opencode"], {"claude_fallback": "false"})
    found = impact.analyse(checked, off)
    assert found.affected == [] and found.unreachable == ("CLAUDE.md",)


@pytest.mark.parametrize("argv,options,says", [
    (["/x/adapters/gemini"], {"workspace_settings": "trust"}, ".gemini/settings.json"),
    (["/x/adapters/opencode", "--workspace-settings", "trust"], {}, "opencode.json"),
    (["/x/adapters/codex"], {"extra_args": "-c project_doc_max_bytes=10"}, "project_doc_max_bytes"),
    (["/x/adapters/gemini"], {"extra_args": "--include-directories ../sibling-docs"}, "--include-directories"),
])
def test_an_agent_trusted_to_load_what_the_rules_cannot_see_runs_every_task(git_repo, argv, options, says):
    base = _one_task_repo(git_repo, {"AGENTS.md": "root\n", "pkg/AGENTS.md": "pkg\n", "other/x.py": ""},
                          ["**/AGENTS.md"], cwd="other")
    candidate = git_repo.commit({"pkg/AGENTS.md": "pkg, changed\n"})
    checked = check_all(git_repo.path, git_repo.path / "evals/manifest.json", base, candidate)
    rules = impact.discovery_for("auto", argv, options)
    assert impact.analyse(checked, impact.discovery_for("auto", argv[:1], {})).affected == []  # as shipped: unseen
    found = impact.analyse(checked, rules)
    assert found.affected == ["t"] and says in found.tasks[0].reason and found.unreachable == ()
    assert says in found.record()["unbounded"]


def test_impact_follows_gemini_import_syntax_where_it_differs_from_claudes(git_repo):
    # Gemini CLI skips only backtick code; a `~~~` fence still imports (Claude Code skips it).
    base = _one_task_repo(git_repo, {"GEMINI.md": "See:\n~~~\n@docs/index.md\n~~~\n",
                                     "docs/index.md": "@../policy/rules.md\n", "policy/rules.md": "one\n"},
                          ["**/GEMINI.md", "**/CLAUDE.md", "policy/**"])
    candidate = git_repo.commit({"policy/rules.md": "two\n"})
    checked = check_all(git_repo.path, git_repo.path / "evals/manifest.json", base, candidate)
    assert impact.analyse(checked, impact.discovery_for("auto", ["/x/adapters/gemini"], {})).affected == ["t"]


@pytest.mark.parametrize("agent,name", [("gemini", "GEMINI.md"), ("opencode", "AGENTS.md")])
def test_a_change_past_the_first_mebibyte_of_a_file_sent_whole_is_seen(git_repo, agent, name):
    head = "# rules\n" + "filler line\n" * 100_000  # > 1 MiB: the harness reads no more than that at once
    base = _one_task_repo(git_repo, {name: head + "- run the tests\n"}, [f"**/{name}"])
    candidate = git_repo.commit({name: head + "- skip the tests\n"})
    checked = check_all(git_repo.path, git_repo.path / "evals/manifest.json", base, candidate)
    assert impact.analyse(checked, impact.discovery_for("auto", [f"/x/adapters/{agent}"], {})).affected == ["t"]


def test_a_scoped_rule_reaches_only_tasks_whose_files_can_match(git_repo):
    manifest = {"schema_version": 1, "repeats": 1, "hidden_paths": ["evals/**"],
                "instruction_paths": ["**/.cursor/rules/**/*.mdc", "**/.claude/rules/**/*.md", "**/.claude/skills/**"],
                "tasks": [{"id": "web", "kind": "bug_fix", "cwd": "web", "prompt_file": "evals/w.md", "checks": [["true"]]},
                          {"id": "api", "kind": "bug_fix", "cwd": "api", "prompt_file": "evals/a.md", "checks": [["true"]]}]}
    base = git_repo.commit({".cursor/rules/ts.mdc": "---\nglobs: \"**/*.ts\"\n---\nstrict\n",
                            ".claude/rules/py.md": "---\npaths:\n  - \"api/**/*.py\"\n---\npytest\n",
                            "web/a.ts": "", "api/b.py": "", "evals/w.md": "w\n", "evals/a.md": "a\n",
                            "evals/manifest.json": json.dumps(manifest)})
    ts_edit = git_repo.commit({".cursor/rules/ts.mdc": "---\nglobs: \"**/*.ts\"\n---\nstrict, always\n"})
    checked = check_all(git_repo.path, git_repo.path / "evals/manifest.json", base, ts_edit)
    found = impact.analyse(checked, Discovery("cursor"))
    assert found.affected == ["web"]
    assert dict(found.tasks[0].agents) == {
        "cursor": "loads .cursor/rules/ts.mdc when it touches web/a.ts (**/*.ts)"}
    assert impact.analyse(checked, Discovery("claude")).affected == []  # Claude Code never loads .mdc rules
    py_edit = git_repo.commit({".claude/rules/py.md": "---\npaths:\n  - \"api/**/*.py\"\n---\npytest -q\n"})
    checked = check_all(git_repo.path, git_repo.path / "evals/manifest.json", ts_edit, py_edit)
    assert impact.analyse(checked, Discovery("claude")).affected == ["api"]
    # A skill Claude Code lists reaches every task it runs.
    skill = git_repo.commit({".claude/skills/release/SKILL.md": "---\nname: release\ndescription: Cut one\n---\nGo.\n"})
    checked = check_all(git_repo.path, git_repo.path / "evals/manifest.json", py_edit, skill)
    assert impact.analyse(checked, Discovery("claude")).affected == ["web", "api"]
    assert impact.analyse(checked, Discovery("cursor")).affected == []


def test_copilot_apply_to_rules_and_its_instructions_file(git_repo):
    manifest = {"schema_version": 1, "repeats": 1, "hidden_paths": ["evals/**"],
                "instruction_paths": ["**/.github/copilot-instructions.md", "**/.github/instructions/**"],
                "tasks": [{"id": "py", "kind": "bug_fix", "cwd": "api", "prompt_file": "evals/p.md", "checks": [["true"]]},
                          {"id": "web", "kind": "bug_fix", "cwd": "web", "prompt_file": "evals/w.md", "checks": [["true"]]}]}
    base = git_repo.commit({".github/copilot-instructions.md": "Run `make test`.\n",
                            ".github/instructions/py.instructions.md": "---\napplyTo: \"**/*.py\"\n---\npytest\n",
                            "api/a.py": "", "web/b.ts": "", "evals/p.md": "p\n", "evals/w.md": "w\n",
                            "evals/manifest.json": json.dumps(manifest)})
    scoped = git_repo.commit({".github/instructions/py.instructions.md": "---\napplyTo: \"**/*.py\"\n---\npytest -q\n"})
    checked = check_all(git_repo.path, git_repo.path / "evals/manifest.json", base, scoped)
    found = impact.analyse(checked, Discovery("copilot"))
    assert found.affected == ["py"] and dict(found.tasks[0].agents) == {
        "copilot": "loads .github/instructions/py.instructions.md when it touches api/a.py (**/*.py)"}
    root = git_repo.commit({".github/copilot-instructions.md": "Run `make check`.\n"})
    checked = check_all(git_repo.path, git_repo.path / "evals/manifest.json", scoped, root)
    assert impact.analyse(checked, Discovery("copilot")).affected == ["py", "web"]
    assert impact.analyse(checked, Discovery("codex")).affected == []  # Codex never reads Copilot's file


def test_a_change_only_another_agent_loads_names_that_agent_and_the_setting(git_repo):
    manifest = {"schema_version": 1, "repeats": 1, "hidden_paths": ["evals/**"],
                "instruction_paths": ["AGENTS.md", "**/.github/copilot-instructions.md"],
                "tasks": [{"id": "t", "kind": "bug_fix", "prompt_file": "evals/t.md", "checks": [["true"]]}]}
    base = git_repo.commit({"AGENTS.md": "Rules.\n", ".github/copilot-instructions.md": "Run `make test`.\n",
                            "evals/t.md": "t\n", "evals/manifest.json": json.dumps(manifest)})
    edit = git_repo.commit({".github/copilot-instructions.md": "Run `make check`.\n"})
    checked = check_all(git_repo.path, git_repo.path / "evals/manifest.json", base, edit)
    found = impact.analyse(checked, Discovery("both"))
    assert found.affected == [] and found.unreachable == (".github/copilot-instructions.md",)
    assert found.other_agents == ((".github/copilot-instructions.md", ("copilot",)),)
    assert "set the adapter option discovery=copilot" in found.hint()
    assert found.record()["hint"] == found.hint()
    assert impact.analyse(checked, Discovery("copilot")).affected == ["t"]
    assert not impact.analyse(checked, Discovery("copilot")).hint()
