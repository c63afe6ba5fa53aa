"""Runs that all failed for one infrastructure reason are summarised once, with the CLI's error line."""

from __future__ import annotations

from compare_builders import compare, index, policy, run

DETAIL = "Error: Cannot find module '/opt/npm/lib/node_modules/@google/gemini-cli/bundle/gemini.js'"


def _failed(task_id: str, repeat: int, variant: str, detail: str = DETAIL) -> dict:
    return run(task_id, repeat, variant, valid=False, failure_reason="failed: cli_not_found", failure_detail=detail)


def test_every_run_failing_alike_is_one_headline_and_one_line(tmp_path):
    runs = [_failed(t, r, v) for t in ("a", "b", "c") for r in range(2) for v in ("base", "candidate")]
    code, summary, markdown = compare(tmp_path, index(runs), policy())
    headline = f"every run failed: cli_not_found — {DETAIL}"
    assert code == 3 and summary["not_evaluated"][0] == headline
    assert "COULD NOT EVALUATE: every run failed: cli\\_not\\_found — Error: Cannot find module" in markdown
    # The headline, the reasons list and the lost-runs section: not one row per run.
    assert markdown.count("Cannot find module") == 3 and "| a | 0 | base |" not in markdown
    assert "All 12 runs failed alike" in markdown
    assert all(DETAIL in r["reason"] for r in summary["lost_runs"])  # summary.json keeps every run


def test_different_details_or_a_valid_run_keep_the_per_run_table(tmp_path):
    runs = [_failed("a", 0, "base"), _failed("a", 0, "candidate", "Error: Cannot find module 'other.js'")]
    code, summary, markdown = compare(tmp_path, index(runs), policy())
    assert code == 3 and not summary["not_evaluated"][0].startswith("every run failed")
    assert "failed alike" not in markdown and "| a | 0 | base |" in markdown
    runs = [_failed("a", 0, "base"), _failed("a", 0, "candidate"), run("b", 0, "base"), _failed("b", 0, "candidate")]
    _, summary, markdown = compare(tmp_path, index(runs), policy())
    assert not summary["not_evaluated"][0].startswith("every run failed") and "failed alike" not in markdown
