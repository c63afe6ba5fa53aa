"""Blame: the bisection on its own, hunk application, and end to end on the demo's mixed candidate
(one harmful hunk between two harmless ones) with the reference agent."""

from __future__ import annotations

import json

import pytest

from instruction_gate import cli, hunks
from instruction_gate.blame import search

ORIGINAL = "# A\n- one\n- two\n- three\n"


def _hunk(old_start, old_count, removed=(), added=()):
    return hunks.Hunk("AGENTS.md", old_start, old_count, 0, len(added), tuple(removed), tuple(added))


def test_apply_takes_any_subset_of_hunks_against_the_original():
    insert, replace, delete = _hunk(1, 0, added=["- zero"]), _hunk(3, 1, ["- two"], ["- TWO"]), _hunk(4, 1, ["- three"])
    assert hunks.apply(ORIGINAL, [insert, replace, delete]) == "# A\n- zero\n- one\n- TWO\n"
    assert hunks.apply(ORIGINAL, [delete]) == "# A\n- one\n- two\n"
    assert hunks.apply(ORIGINAL, [replace, insert]) == "# A\n- zero\n- one\n- TWO\n- three\n"
    with pytest.raises(ValueError, match="does not match"):
        hunks.apply(ORIGINAL, [_hunk(3, 1, ["- not there"], ["x"])])


@pytest.mark.parametrize("count", [1, 2, 3, 5, 8])
def test_bisection_names_the_harmful_hunk_within_a_binary_searchs_steps(count):
    for harmful in range(count):
        tried = []

        def trial(chosen):
            tried.append(chosen)
            return search.Step(chosen, harmful in chosen, runs=4)

        outcome = search.bisect(count, trial, confirm=False)
        assert outcome.culprit == (harmful,)
        assert len(tried) <= search.steps_needed(count) and outcome.runs == 4 * len(tried)
        # confirmed exactly when the answer itself was run (or is the whole, already failing candidate)
        assert outcome.confirmed == (count == 1 or (harmful,) in tried)
        confirmed = search.bisect(count, trial, confirm=True)
        assert confirmed.culprit == (harmful,) and confirmed.confirmed


@pytest.fixture(scope="module")
def mixed_demo(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo")
    code = cli.main(["demo", "--candidate", "mixed", "--blame", "--output-dir", str(out), "--repeats", "1"])
    return code, out / "mixed"


def test_blame_on_the_demo_names_the_harmful_hunk_at_binary_search_cost(mixed_demo, capsys):
    code, work = mixed_demo
    assert code == 1  # the gate's FAIL; blame itself succeeded
    result = json.loads((work / "blame" / "blame.json").read_text())
    assert result["status"] == "done" and result["culprit"] == [2] and result["confirmed"] is True
    assert result["culprit_labels"] == ["AGENTS.md:15"] and "pytest" in result["hunks"][1]["added"][0]
    failing = len(result["failing"])
    assert failing == 5 and result["runs"] <= search.steps_needed(3) * failing == result["binary_search_runs"]
    assert result["cost_usd"] > 0 and "hunk 2 (AGENTS.md:15)" in (work / "blame" / "blame.md").read_text()


def test_blame_is_refused_before_any_run_when_the_budget_cannot_cover_it(mixed_demo, tmp_path, capsys):
    _, work = mixed_demo
    suite = work / "repo" / "evals" / "instructions"
    code = cli.main(["blame", "--repo", str(work / "repo"), "--manifest", str(suite / "manifest.json"),
                     "--base", "HEAD~1", "--candidate", "HEAD", "--results", str(work / "results"),
                     "--out", str(tmp_path / "blame"), "--adapter", str(suite / "adapters" / "reference"),
                     "--max-agent-runs", "9"])
    assert code == 2
    assert "needs 2 step(s) × 5 failing task(s) × 1 repeat(s) = 10 agent runs; the budget allows 9" in capsys.readouterr().err
    assert not (tmp_path / "blame").exists()


def test_blame_has_nothing_to_do_when_the_gate_passes(tmp_path):
    from compare_builders import index, run, write_json

    results = write_json(tmp_path / "r" / "index.json", index([run("t", 0, "base"), run("t", 0, "candidate")]))
    manifest = tmp_path / "m" / "manifest.json"
    write_json(manifest, {})
    code = cli.main(["blame", "--repo", str(tmp_path), "--manifest", str(manifest), "--base", "x", "--candidate", "y",
                     "--results", str(results), "--out", str(tmp_path / "out"), "--adapter", "/bin/true"])
    assert code == 0
    assert json.loads((tmp_path / "out" / "blame.json").read_text())["status"] == "nothing_to_blame"
