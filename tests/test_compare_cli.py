"""compare end to end on hand-built results: verdicts, intervals and exit codes."""

from __future__ import annotations

import json
import math

import pytest

from compare_builders import compare, golden_scenarios, index, outcome_runs, policy, run, write_json
from instruction_gate.cli import main


# Per task (r=2): deltas -1, -1, -0.5, -1, -0.5, -1.
REGRESSION = {f"t{i}": [(True, False), (True, half)] for i, half in enumerate([0, 0, 1, 0, 1, 0])}


def test_clear_regression_fails_with_the_expected_interval(tmp_path):
    code, summary, markdown = compare(tmp_path, index(outcome_runs(REGRESSION)),
                                      policy({"mode": "fail", "max_success_rate_drop": 0.1}))
    resolved = summary["metrics"]["resolved"]
    half = 2.570581836 * 0.2581988897 / math.sqrt(6) + 1 / 24  # t(5) * sd / sqrt(n) + continuity
    assert code == 1 and summary["verdict"] == "fail" and summary["exit_code"] == 1
    assert resolved["estimate"] == pytest.approx(-5 / 6)
    assert resolved["low"] == -1.0  # clamped to the scale
    assert resolved["high"] == pytest.approx(-5 / 6 + half)
    assert resolved["task_clusters"] == 6 and summary["valid_pairs"] == 12
    assert resolved["verdict"] == "fail" and summary["failures"] == ["max_success_rate_drop"]
    assert resolved["p_value"] == pytest.approx(2 / 64)
    assert markdown.startswith("## ❌ instruction-gate — FAIL:")


def test_regression_in_warn_mode_reports_fail_but_exits_zero(tmp_path):
    code, summary, markdown = compare(tmp_path, index(outcome_runs(REGRESSION)),
                                      policy({"mode": "warn", "max_success_rate_drop": 0.1}))
    assert code == 0 and summary["verdict"] == "fail" and summary["exit_code"] == 0
    assert "FAIL (not blocking)" in summary["headline"]
    assert any("success rate" in w for w in summary["warnings"])


def test_identical_outcomes_pass_with_a_zero_width_interval(tmp_path):
    table = {f"t{i}": [(i % 2 == 0, i % 2 == 0)] * 3 for i in range(5)}
    bounds = {"max_success_rate_drop": 0.0, "max_paired_wall_time_ratio": 1.0, "max_paired_tool_call_ratio": 1.0,
              "mode": "fail", "on_inconclusive": "fail"}
    code, summary, _ = compare(tmp_path, index(outcome_runs(table)), policy(bounds))
    resolved, wall = summary["metrics"]["resolved"], summary["metrics"]["wall_seconds"]
    assert code == 0 and summary["verdict"] == "pass"
    assert (resolved["estimate"], resolved["low"], resolved["high"]) == (0.0, 0.0, 0.0)
    assert (wall["estimate"], wall["low"], wall["high"], wall["verdict"]) == (1.0, 1.0, 1.0, "pass")
    assert resolved["p_value"] == 1.0


AA = {f"t{i}": [(b, c)] for i, (b, c) in enumerate([(1, 0), (0, 1), (1, 1), (0, 0), (0, 1), (1, 0), (1, 1), (0, 0)])}


@pytest.mark.parametrize("on_inconclusive, code", [("pass", 0), ("warn", 0), ("fail", 1)])
def test_aa_noise_is_inconclusive_and_policy_decides_the_exit_code(tmp_path, on_inconclusive, code):
    got, summary, _ = compare(tmp_path, index(outcome_runs(AA)),
                              policy({"max_success_rate_drop": 0.1, "on_inconclusive": on_inconclusive}))
    resolved = summary["metrics"]["resolved"]
    half = 2.364624252 * math.sqrt(4 / 7) / math.sqrt(8) + 1 / 16
    assert got == code and summary["verdict"] == "inconclusive"
    assert resolved["estimate"] == 0.0
    assert resolved["low"] == pytest.approx(-half) and resolved["high"] == pytest.approx(half)
    assert any("inconclusive" in w for w in summary["warnings"]) == (on_inconclusive == "warn")
    assert any("resolved in no run of either arm: t3, t7" in w for w in summary["warnings"])


def test_cost_ratio_fails_when_the_whole_interval_is_above_the_bound(tmp_path):
    runs = []
    for i in range(6):
        for r in range(2):
            runs.append(run(f"t{i}", r, "base", wall_seconds=20.0 + i))
            runs.append(run(f"t{i}", r, "candidate", wall_seconds=(20.0 + i) * (2.0 if r == 0 else 2.5)))
    code, summary, _ = compare(tmp_path, index(runs), policy({"mode": "fail", "max_paired_wall_time_ratio": 1.5}))
    wall = summary["metrics"]["wall_seconds"]
    assert code == 1 and wall["verdict"] == "fail"
    assert wall["estimate"] == pytest.approx(math.sqrt(2.0 * 2.5))  # geometric mean of the two ratios
    assert wall["low"] == pytest.approx(wall["estimate"]) and wall["ratio_of_totals"] == pytest.approx(2.25)
    assert wall["median_of_ratios"] == pytest.approx(math.sqrt(5.0))


@pytest.mark.parametrize("base_seconds, floors, verdict", [
    (0.3, None, "not_gated"),  # the default 5 s floor: a sub-second agent's ratio is noise
    (0.3, {"wall_seconds": None}, "fail"),  # floor switched off: judged as before
    (30.0, None, "fail"),  # real-agent durations: judged
    (30.0, {"wall_seconds": 60}, "not_gated"),
])
def test_wall_time_ratio_is_not_judged_under_the_noise_floor(tmp_path, base_seconds, floors, verdict):
    runs = []
    for i in range(6):
        runs += [run(f"t{i}", 0, "base", wall_seconds=base_seconds),
                 run(f"t{i}", 0, "candidate", wall_seconds=base_seconds * 3)]
    soft = {"mode": "fail", "max_paired_wall_time_ratio": 1.5,
            **({"min_base_median": floors} if floors is not None else {})}
    code, summary, markdown = compare(tmp_path, index(runs), policy(soft))
    wall = summary["metrics"]["wall_seconds"]
    assert wall["verdict"] == verdict and wall["estimate"] == pytest.approx(3.0)  # reported either way
    assert code == (1 if verdict == "fail" else 0)
    if verdict == "not_gated":
        assert "base runs too short" in wall["reason"] and "soft.min_base_median.wall_seconds" in wall["reason"]
        assert "base runs too short" in markdown


def test_noise_floors_keep_their_defaults_for_keys_not_given(tmp_path):
    runs = [r for i in range(4) for r in (run(f"t{i}", 0, "base", wall_seconds=0.5, tool_calls=1),
                                          run(f"t{i}", 0, "candidate", wall_seconds=2.0, tool_calls=3))]
    _, summary, _ = compare(tmp_path, index(runs), policy({"max_paired_wall_time_ratio": 1.5,
                                                           "max_paired_tool_call_ratio": 1.5,
                                                           "min_base_median": {"tool_calls": 2}}))
    assert summary["metrics"]["wall_seconds"]["verdict"] == "not_gated"  # default floor kept
    assert summary["metrics"]["tool_calls"]["verdict"] == "not_gated"


def test_even_repeats_median_of_ratios_is_symmetric(tmp_path):
    runs = []
    for i in range(4):
        runs += [run(f"t{i}", 0, "base", output_tokens=100), run(f"t{i}", 0, "candidate", output_tokens=50),
                 run(f"t{i}", 1, "base", output_tokens=100), run(f"t{i}", 1, "candidate", output_tokens=200)]
    _, summary, _ = compare(tmp_path, index(runs), policy())
    tokens = summary["metrics"]["output_tokens"]
    assert tokens["median_of_ratios"] == pytest.approx(1.0)  # not the 1.25 of averaging 0.5 and 2
    assert tokens["estimate"] == pytest.approx(1.0) and tokens["ratio_of_totals"] == pytest.approx(1.25)


def test_zero_costs_are_floored_before_taking_logs(tmp_path):
    runs = [run("a", 0, "base", tool_calls=0), run("a", 0, "candidate", tool_calls=4),
            run("b", 0, "base", tool_calls=2), run("b", 0, "candidate", tool_calls=2)]
    _, summary, _ = compare(tmp_path, index(runs), policy())
    assert summary["metrics"]["tool_calls"]["estimate"] == pytest.approx(2.0)  # sqrt(4/1 * 1)


def test_infrastructure_losses_cannot_be_evaluated(tmp_path):
    data, policy_data = golden_scenarios()["could-not-evaluate"]
    code, summary, markdown = compare(tmp_path, data, policy_data)
    assert code == 3 and summary["verdict"] == "error" and summary["valid_pairs"] == 2
    assert any("unequal arm coverage" in reason for reason in summary["not_evaluated"])
    assert any("only 2 of 8 planned pairs" in reason for reason in summary["not_evaluated"])
    invalid = [r for r in summary["lost_runs"] if r["reason"].startswith("invalid")]
    assert len(invalid) == 6 and len(summary["lost_runs"]) == 12
    assert "adapter exited 137" in markdown and "COULD NOT EVALUATE" in markdown


def test_minimum_valid_pairs_is_not_evaluated_rather_than_a_regression(tmp_path):
    code, summary, _ = compare(tmp_path, index(outcome_runs(AA)), policy({"minimum_valid_pairs": 20}))
    assert code == 3 and summary["verdict"] == "error" and "minimum_valid_pairs" in summary["failures"]


def test_missing_runs_count_as_lost(tmp_path):
    runs = outcome_runs({f"t{i}": [(True, True)] * 2 for i in range(3)})
    data = index(runs[:-1], repeats=2, tasks=["t0", "t1", "t2"])
    code, summary, _ = compare(tmp_path, data, policy())
    assert summary["planned_pairs"] == 6 and summary["valid_pairs"] == 5
    assert {"task_id": "t2", "repeat": 1, "variant": "candidate",
            "reason": "missing: planned but never recorded"} in summary["lost_runs"]
    assert code == 0


def test_no_results_is_exit_3_with_a_summary(tmp_path):
    code, summary, markdown = compare(tmp_path, None, policy(), results=[tmp_path / "nowhere" / "index.json"])
    assert code == 3 and summary["verdict"] == "error" and "no such results file" in summary["not_evaluated"][0]
    assert markdown.startswith("## ⛔")


def test_reference_list_format_and_reference_policy(tmp_path):
    reference_policy = {"hard": {"fail_on_policy_violation": True, "fail_on_required_check": True,
                                 "fail_on_forbidden_edit": True},
                        "soft": {"mode": "warn", "max_success_rate_drop": None, "max_paired_wall_time_ratio": None,
                                 "max_paired_output_token_ratio": None, "max_paired_provider_cost_ratio": None,
                                 "minimum_valid_pairs": None}}
    code, summary, _ = compare(tmp_path, outcome_runs(REGRESSION), reference_policy)
    assert code == 0 and summary["verdict"] == "pass"  # nothing gated
    assert summary["metrics"]["resolved"]["verdict"] == "not_gated"
    assert {"estimate", "low", "high", "task_clusters"} <= set(summary["metrics"]["resolved"])


def test_invalid_policy_is_exit_2_with_json_paths(tmp_path, capsys):
    code, summary, _ = compare(tmp_path, index(outcome_runs(AA)),
                               policy({"mode": "loud", "max_success_rate_drop": 2}, hard={"categories": {"typo": True}}))
    err = capsys.readouterr().err
    assert code == 2 and summary is None
    assert "policy.json::$.soft.mode" in err and "policy.json::$.soft.max_success_rate_drop" in err
    assert "policy.json::$.hard.categories" in err


def test_policy_errors_name_the_policy_file_as_given_and_refuse_ratio_bounds_below_one(tmp_path, capsys):
    code, _, _ = compare(tmp_path, index(outcome_runs(AA)), policy({"max_paired_wall_time_ratio": 0.5}))
    err = capsys.readouterr().err
    assert code == 2
    assert f"{tmp_path}" in err and "policy.json::$.soft.max_paired_wall_time_ratio" in err


def test_json_path_flag_and_step_summary(tmp_path, monkeypatch):
    step = tmp_path / "step.md"
    step.write_text("earlier step output\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step))
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    write_json(tmp_path / "r" / "index.json", index(outcome_runs(REGRESSION)))
    write_json(tmp_path / "p.json", policy({"mode": "fail", "max_success_rate_drop": 0.1}))
    code = main(["--results", str(tmp_path / "r"), "--policy", str(tmp_path / "p.json"),
                 "--summary", str(tmp_path / "s" / "summary.md"), "--json", str(tmp_path / "elsewhere.json")],
                only="compare")
    assert code == 1 and json.loads((tmp_path / "elsewhere.json").read_text())["verdict"] == "fail"
    text = step.read_text()
    written = (tmp_path / "s" / "summary.md").read_text()
    assert text.startswith("earlier step output\n## ❌")
    # the same summary, except that the chart is named, not linked (a relative link is dead there)
    assert "[summary.svg](summary.svg)" in written and "`summary.svg`" in text and "](summary.svg)" not in text
    assert text.endswith(written.replace("[summary.svg](summary.svg)", "`summary.svg`"))


def test_json_summary_takes_the_markdown_name_so_summaries_can_share_a_folder(tmp_path):
    write_json(tmp_path / "r" / "index.json", index(outcome_runs(AA)))
    write_json(tmp_path / "p.json", policy())
    for name in ("pr-1.md", "pr-2.md"):
        main(["--results", str(tmp_path / "r"), "--policy", str(tmp_path / "p.json"),
              "--summary", str(tmp_path / "out" / name)], only="compare")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["pr-1.json", "pr-1.md", "pr-1.svg", "pr-2.json",
                                                                "pr-2.md", "pr-2.svg"]
