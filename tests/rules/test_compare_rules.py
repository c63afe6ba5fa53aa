"""compare reports rule metrics: paired deltas with intervals on hand-built runs with known answers."""

from __future__ import annotations

import math

import pytest

from tests.compare_builders import compare, index, policy, run

T_975_DF2 = 4.302652729749464  # Student t quantile, 97.5 %, 2 degrees of freedom


def rule_metrics(compliance: float, c_isr: float, category_rate: float = 1.0, turns: int = 1) -> dict:
    return {"turns": turns, "rules": 4, "satisfied": 2, "violated": 2, "undetermined": 0, "inapplicable": 0,
            "triggering_rate": 1.0, "compliance_rate": compliance, "exact_compliance_rate": compliance,
            "csr": compliance, "c_isr": c_isr,
            "per_turn": [{"turn": 0, "satisfied": 2, "violated": 2, "undetermined": 0, "csr": compliance, "c_isr": c_isr}],
            "by_category": {"workflow.testing": {"rules": 1, "compliance_rate": category_rate}}}


def rules_list(violated: bool) -> list[dict]:
    return [{"id": "tests-after-edit", "kind": "command_order", "category": "workflow.testing", "evidence_type": "trajectory",
             "exact": True, "outcome": "violated" if violated else "satisfied", "turn": None, "targets": 1, "evidence": []}]


def suite(candidate_compliance: dict[str, float]) -> dict:
    """Two repeats per task; base complies fully, the candidate at the given per-task rate."""
    runs = []
    for task, rate in candidate_compliance.items():
        for repeat in range(2):
            runs.append(run(task, repeat, "base", rule_metrics=rule_metrics(1.0, 1.0), rules=rules_list(False)))
            runs.append(run(task, repeat, "candidate", rule_metrics=rule_metrics(rate, 1.0 if rate == 1 else 0.0, rate),
                            rules=rules_list(rate < 1)))
    return index(runs)


def test_known_deltas_and_intervals(tmp_path):
    code, summary, markdown = compare(tmp_path, suite({"a": 0.5, "b": 0.75, "c": 1.0}), policy())
    assert code == 0
    section = summary["rules"]
    compliance = section["metrics"]["compliance_rate"]
    # task deltas -0.5, -0.25, 0: mean -0.25, sd 0.25; plus the rate metrics' continuity correction 1 / (2 * 6 pairs)
    half = T_975_DF2 * 0.25 / math.sqrt(3) + 1 / 12
    assert (compliance["base"], compliance["candidate"]) == (1.0, 0.75)
    assert compliance["estimate"] == pytest.approx(-0.25)
    assert (compliance["low"], compliance["high"]) == (pytest.approx(-0.25 - half), pytest.approx(-0.25 + half))
    assert (compliance["pairs"], compliance["tasks"]) == (6, 3)
    c_isr = section["metrics"]["c_isr"]
    assert c_isr["estimate"] == pytest.approx(-2 / 3)
    assert section["by_category"]["workflow.testing"]["estimate"] == pytest.approx(-0.25)
    assert section["per_turn"] == [{"turn": 0, "base_csr": 1.0, "candidate_csr": 0.75, "base_c_isr": 1.0,
                                    "candidate_c_isr": pytest.approx(1 / 3)}]
    assert section["rules"][0] == {"id": "tests-after-edit", "turn": None, "base_violated": 0, "base_judged": 6,
                                   "candidate_violated": 4, "candidate_judged": 6}
    # The gated form (shown with the other soft metrics) has the very same interval.
    gated = summary["metrics"]["compliance_rate"]
    assert gated["estimate"] == pytest.approx(-0.25) and gated["low"] == pytest.approx(compliance["low"])
    assert gated["verdict"] == "not_gated"
    assert "### Policy rules and constraint checklists" in markdown
    assert "| compliance rate | 100% | 75% | −0.25 [−0.95, +0.45] | 6 (3) |" in markdown
    assert "| C-ISR (turns with every constraint met) | 100% | 33% | −0.67 [−1.00, +0.85] | 6 (3) |" in markdown
    assert "| `tests-after-edit` | run | 0/6 | 4/6 |" in markdown


def test_compliance_drop_fails_the_soft_gate(tmp_path):
    data = suite({name: 0.5 for name in "abcde"})
    code, summary, _ = compare(tmp_path, data, policy(soft={"mode": "fail", "max_compliance_rate_drop": 0.1}))
    assert code == 1
    gated = summary["metrics"]["compliance_rate"]
    # Equal drops say nothing of the spread: the smallest step a mean over 2 repeats can take stands
    # in for it (0.5 / sqrt(5)), t(4) = 2.776, plus the 1/(2 pairs) correction.
    half = 2.7764451 * (0.5 / 5 ** 0.5) / 5 ** 0.5 + 1 / 20
    assert (gated["estimate"], gated["verdict"]) == (-0.5, "fail")
    assert gated["low"] == pytest.approx(-0.5 - half, abs=1e-6) and gated["high"] == pytest.approx(-0.5 + half, abs=1e-6)
    assert "max_compliance_rate_drop" in summary["failures"]


def test_two_tasks_that_dropped_alike_are_not_a_zero_width_regression(tmp_path):
    """With two tasks any spread at all makes the t interval wide; equal values must not hide it."""
    code, summary, _ = compare(tmp_path, suite({"a": 0.5, "b": 0.5}),
                               policy(soft={"mode": "fail", "max_compliance_rate_drop": 0.1}))
    gated = summary["metrics"]["compliance_rate"]
    assert gated["verdict"] == "inconclusive" and gated["low"] < -0.5 < gated["high"]


def test_no_change_passes_every_rule_gate(tmp_path):
    data = suite({"a": 1.0, "b": 1.0, "c": 1.0})
    soft = {"mode": "fail", "on_inconclusive": "fail", "max_compliance_rate_drop": 0.05, "max_csr_drop": 0.05,
            "max_c_isr_drop": 0.05}
    code, summary, _ = compare(tmp_path, data, policy(soft=soft))
    assert code == 0
    assert {summary["metrics"][m]["verdict"] for m in ("compliance_rate", "csr", "c_isr")} == {"pass"}


def test_records_without_rules_leave_the_section_out(tmp_path):
    data = index([run("a", 0, "base"), run("a", 0, "candidate")])
    code, summary, markdown = compare(tmp_path, data, policy(soft={"max_compliance_rate_drop": 0.1}))
    assert summary["rules"] is None and "Policy rules" not in markdown
    assert summary["metrics"]["compliance_rate"]["verdict"] == "inconclusive"  # gated but no data: says so


def no_rule_metrics() -> dict:
    """What the runner records for a run of a task that defines no rule."""
    return {"turns": 1, "rules": 0, "satisfied": 0, "violated": 0, "undetermined": 0, "inapplicable": 0,
            "triggering_rate": None, "compliance_rate": None, "exact_compliance_rate": None, "csr": None,
            "c_isr": None, "per_turn": [{"turn": 0, "satisfied": 0, "violated": 0, "undetermined": 0, "csr": None,
                                         "c_isr": None}], "by_category": {}}


GATED = {"on_inconclusive": "fail", "max_compliance_rate_drop": 0.1, "max_csr_drop": 0.1, "max_c_isr_drop": 0.1}


def test_a_suite_without_rules_is_not_applicable_not_inconclusive(tmp_path):
    runs = [run(t, r, v, rule_metrics=no_rule_metrics(), rules=[]) for t in "ab" for r in range(2)
            for v in ("base", "candidate")]
    code, summary, markdown = compare(tmp_path, index(runs), policy(soft=GATED))
    assert code == 0 and summary["verdict"] == "pass", summary["headline"]
    for name in ("compliance_rate", "csr", "c_isr"):
        metric = summary["metrics"][name]
        assert metric["verdict"] == "not_applicable" and metric["estimate"] is None
        assert metric["reason"] == "not applicable: no task of the suite defines a rule"
    assert "inconclusive" not in summary["headline"]
    assert "| rule compliance rate | n/a | n/a | −0.10 | not applicable |" in markdown
    assert summary["rules"] is None and "### Policy rules" not in markdown


def test_rules_that_could_not_be_judged_stay_inconclusive(tmp_path):
    # The suite has a rule, but its check said nothing in any run (undetermined): not "no rules".
    undetermined = dict(no_rule_metrics(), rules=1, undetermined=1, triggering_rate=1.0)
    result = [{**rules_list(False)[0], "outcome": "undetermined"}]
    runs = [run(t, r, v, rule_metrics=undetermined, rules=result) for t in "ab" for r in range(2)
            for v in ("base", "candidate")]
    code, summary, _ = compare(tmp_path, index(runs), policy(soft=GATED))
    assert code == 1 and summary["verdict"] == "inconclusive"
    assert summary["metrics"]["compliance_rate"]["verdict"] == "inconclusive"
    # One arm without rule results (records of a runner that did not judge rules): unknown, inconclusive.
    mixed = [run(t, 0, "base", rule_metrics=no_rule_metrics(), rules=[]) for t in "ab"]
    mixed += [run(t, 0, "candidate") for t in "ab"]
    code, summary, _ = compare(tmp_path / "mixed", index(mixed), policy(soft=GATED))
    assert summary["metrics"]["compliance_rate"]["verdict"] == "inconclusive" and code == 1
