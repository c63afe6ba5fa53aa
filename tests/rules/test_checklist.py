"""Per-turn checklists, CSR and C-ISR, and the run metrics built on them."""

from __future__ import annotations

from instruction_gate.suite.manifest import semantic_problems
from instruction_gate.rules.checklist import turn_scores
from instruction_gate.rules.metrics import run_metrics


def r(outcome: str, turn: int | None = None, category: str = "workflow.testing", exact: bool = True) -> dict:
    return {"outcome": outcome, "turn": turn, "category": category, "exact": exact}


def test_whole_run_rules_count_in_the_last_turn_and_inapplicable_ones_not_at_all():
    scores = turn_scores([r("satisfied", 0), r("violated", 1), r("satisfied"), r("inapplicable", 0)], 2)
    assert [(s.turn, s.satisfied, s.violated) for s in scores] == [(0, 1, 0), (1, 1, 1)]
    assert [s.csr for s in scores] == [1.0, 0.5] and [s.c_isr for s in scores] == [1.0, 0.0]


def test_undetermined_items_are_withheld_from_csr_and_leave_c_isr_open():
    [score] = turn_scores([r("satisfied"), r("undetermined")], 1)
    assert (score.csr, score.c_isr) == (1.0, None)
    [score] = turn_scores([r("violated"), r("undetermined")], 1)
    assert (score.csr, score.c_isr) == (0.0, 0.0)  # one violation decides C-ISR whatever is unknown
    [score] = turn_scores([r("inapplicable")], 1)
    assert (score.csr, score.c_isr) == (None, None)


def test_run_metrics():
    results = [r("satisfied", 0), r("violated", 1), r("undetermined", 1, "git_commits"), r("inapplicable", 0),
               r("violated", 1, "content.keyword", exact=False)]
    m = run_metrics(results, 2)
    assert (m["rules"], m["satisfied"], m["violated"], m["undetermined"], m["inapplicable"]) == (5, 1, 2, 1, 1)
    assert m["triggering_rate"] == 4 / 5  # undetermined counts as triggered
    assert m["compliance_rate"] == 1 / 3 and m["exact_compliance_rate"] == 1 / 2
    assert m["csr"] == (1.0 + 0.0) / 2 and m["c_isr"] == (1.0 + 0.0) / 2
    assert m["by_category"]["git_commits"]["compliance_rate"] is None
    assert m["by_category"]["workflow.testing"]["triggering_rate"] == 2 / 3


def test_no_rules_means_no_rates():
    m = run_metrics([], 1)
    assert (m["triggering_rate"], m["compliance_rate"], m["csr"], m["c_isr"]) == (None, None, None, None)


def _manifest(**task) -> dict:
    return {"schema_version": 1, "repeats": 1, "instruction_paths": ["AGENTS.md"],
            "rules": [{"id": "g", "kind": "command_forbidden", "pattern": "x", "turn": 0}],
            "tasks": [{"id": "t", "kind": "k", "prompt_file": "p.md", "checks": [], **task}]}


def test_manifest_rule_problems_name_the_json_path():
    data = _manifest(turns=["q.md"], rules=[{"id": "g", "kind": "command_required"},
                                           {"id": "late", "kind": "command_required", "pattern": "x", "turn": 2}])
    problems = semantic_problems(data, "m.json")
    assert "m.json::$.rules[0].turn: a rule for every task cannot name one turn; use \"each\" or declare it on the task" in problems
    assert any(p.startswith("m.json::$.tasks[0].rules[0].id: duplicate rule id 'g'") for p in problems)
    assert "m.json::$.tasks[0].rules[0]: kind 'command_required' needs 'pattern'" in problems
    assert any(p.startswith("m.json::$.tasks[0].rules[1].turn: turn 2 does not exist") for p in problems)
