"""compare reports instruction use per arm (skills invoked, lazily loaded files) and gates its drop
when the policy says so; hand-built runs with known answers."""

from __future__ import annotations

import pytest

from tests.compare_builders import compare, index, policy, run


def _runs(base: dict[str, list[list[str]]], candidate: dict[str, list[list[str]]], field: str = "skills_invoked",
          **extra) -> list[dict]:
    """Per task, each repeat's names used in that arm."""
    runs = []
    for task, repeats in base.items():
        for repeat, names in enumerate(repeats):
            runs.append(run(task, repeat, "base", **{field: names}, **extra))
            runs.append(run(task, repeat, "candidate", **{field: candidate[task][repeat]}, **extra))
    return runs


def test_counts_per_arm_in_the_summary(tmp_path):
    runs = _runs({"a": [["release"]] * 3, "b": [["release"], ["release"], []]}, {"a": [[]] * 3, "b": [[]] * 3})
    runs += [run("c", 0, "base"), run("c", 0, "candidate")]  # an adapter that cannot tell: not counted
    code, summary, markdown = compare(tmp_path, index(runs), policy())
    assert code == 0
    assert summary["instruction_use"] == [{
        "kind": "skills_invoked", "name": "release", "base_used": 5, "base_runs": 6, "candidate_used": 0,
        "candidate_runs": 6, "sentence": "skill `release` invoked in 0 of 6 candidate runs, 5 of 6 base runs"}]
    assert "- skill `release` invoked in 0 of 6 candidate runs, 5 of 6 base runs" in markdown
    assert "| skill | `release` | 5/6 | 0/6 |" in markdown
    assert not any(name.startswith("skill_use:") for name in summary["metrics"])  # no bound: reported only


def test_a_drop_in_skill_use_fails_its_bound(tmp_path):
    tasks = "abcde"
    runs = _runs({t: [["release"], ["release"]] for t in tasks}, {t: [[], []] for t in tasks})
    code, summary, _ = compare(tmp_path, index(runs), policy(soft={"mode": "fail", "max_skill_use_drop": 0.2}))
    assert code == 1
    metric = summary["metrics"]["skill_use:release"]
    assert (metric["estimate"], metric["verdict"], metric["pairs"], metric["task_clusters"]) == (
        pytest.approx(-1.0), "fail", 10, 5)
    assert "max_skill_use_drop" in summary["failures"]


def test_tasks_that_never_use_a_name_do_not_dilute_it(tmp_path):
    # Only tasks a-d use `release` at all; e-h never do, in either arm.
    used = {t: [["release"]] * 2 for t in "abcd"} | {t: [[]] * 2 for t in "efgh"}
    same = compare(tmp_path / "same", index(_runs(used, used)), policy(soft={"max_skill_use_drop": 0.1}))[1]
    assert same["metrics"]["skill_use:release"]["task_clusters"] == 4
    assert same["metrics"]["skill_use:release"]["verdict"] == "pass"


def test_lazily_loaded_files_and_skills_side_by_side(tmp_path):
    runs = _runs({"a": [["services/payments/CLAUDE.md"]] * 3}, {"a": [["services/payments/CLAUDE.md"], [], []]},
                 field="lazy_instruction_sources", skills_invoked=["lint"])
    code, summary, markdown = compare(tmp_path, index(runs), policy(soft={"max_lazy_load_drop": 0.5}))
    assert [(u["kind"], u["name"], u["base_used"], u["candidate_used"]) for u in summary["instruction_use"]] == [
        ("skills_invoked", "lint", 3, 3), ("lazy_instruction_sources", "services/payments/CLAUDE.md", 3, 1)]
    assert "lazily loaded file `services/payments/CLAUDE.md` reached the model in 1 of 3 candidate runs, " \
           "3 of 3 base runs" in markdown
    assert "- skill `lint`" not in markdown  # unchanged: in the table only
    assert summary["metrics"]["lazy_load:services/payments/CLAUDE.md"]["estimate"] == pytest.approx(-2 / 3)


def test_no_use_reported_means_no_section(tmp_path):
    code, summary, markdown = compare(tmp_path, index([run("a", 0, "base"), run("a", 0, "candidate")]), policy())
    assert summary["instruction_use"] == [] and "### Instruction use" not in markdown
