"""The example suite's rules on real runs: the two-turn task, the custom rule, the record schema."""

from __future__ import annotations

import jsonschema

from instruction_gate.schemas import load_schema

TASK = "discount-helper-two-turns"


def _run(records, task_id, variant):
    return next(r for r in records if r["task_id"] == task_id and r["variant"] == variant)


def _outcomes(record):
    return {(r["id"], r["turn"]): r["outcome"] for r in record["rules"]}


def test_reference_agent_completes_the_two_turn_task(example_runs):
    _, _, records = example_runs
    base = _run(records, TASK, "base")
    assert base["resolved"] and base["hard_failures"] == []
    assert [e["index"] for e in base["events"] if e["type"] == "turn"] == [0, 1]
    assert set(_outcomes(base).values()) == {"satisfied"}
    assert _outcomes(base)[("unit-tests-in-second-turn", 1)] == "satisfied"
    assert _outcomes(base)[("module-docstrings", None)] == "satisfied"  # the custom rule ran
    assert {(k, t) for k, t in _outcomes(base) if k == "no-pip-install"} == {("no-pip-install", 0), ("no-pip-install", 1)}
    metrics = base["rule_metrics"]
    assert (metrics["turns"], metrics["csr"], metrics["c_isr"], metrics["compliance_rate"]) == (2, 1.0, 1.0, 1.0)


def test_contradicting_instructions_break_the_second_turn_only(example_runs):
    _, _, records = example_runs
    candidate = _run(records, TASK, "candidate")
    assert candidate["resolved"] and candidate["hard_failures"] == []  # no hard gate: the rules measure it
    outcomes = _outcomes(candidate)
    assert outcomes[("unit-tests-in-second-turn", 1)] == "violated"
    assert outcomes[("tests-pass-after-last-edit", None)] == "violated"
    per_turn = {t["turn"]: t for t in candidate["rule_metrics"]["per_turn"]}
    assert per_turn[0]["csr"] == 1.0 and per_turn[0]["c_isr"] == 1.0
    assert per_turn[1]["violated"] == 2 and per_turn[1]["c_isr"] == 0.0
    assert candidate["rule_metrics"]["c_isr"] == 0.5


def test_records_with_rules_match_the_schema(example_runs):
    _, _, records = example_runs
    schema = load_schema("run-record")
    for record in records:
        jsonschema.validate(record, schema)
        assert record["rules"] and record["rule_metrics"]["rules"] == len(record["rules"])
