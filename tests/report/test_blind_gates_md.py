"""summary.md names the gates no base run passed: in the digest's "no behaviour change" line and
above the hard-gate table."""

from __future__ import annotations

from instruction_gate.report import digest_md, hard_gates_md
from instruction_gate.verdict.blind_gates import BlindGate
from instruction_gate.verdict.digest import Digest

NO_CHANGE = Digest(entries=[], unknown_runs=0, hunks=[])


def _no_change_line(blind: list[BlindGate]) -> str:
    return next(line for line in digest_md.markdown(NO_CHANGE, blind) if line.startswith("No behaviour change"))


def test_no_behaviour_change_is_never_said_without_the_blind_gates():
    assert _no_change_line([]).endswith("loaded the same instructions.")
    line = _no_change_line([BlindGate("fix-bug", "required_command_missing", 3, 3, 3),
                            BlindGate("add-test", "required_command_missing", 2, 2, 2),
                            BlindGate("add-test", "required_policy_event_missing", 2, 2, 0)])
    assert line.endswith("loaded the same instructions — but the suite is blind to hard gates "
                         "`required_command_missing` (failed in every base run of 2 tasks (fix-bug, add-test)); "
                         "`required_policy_event_missing` (failed in every base run of 1 task (add-test)): "
                         "a change to what they check could not show.")


def test_no_pairs_means_no_digest_section_even_with_blind_gates():
    assert digest_md.markdown(None, [BlindGate("t", "required_command_missing", 1, 1, 1)]) == []


def test_the_hard_gate_section_lists_each_blind_gate_escaped_and_capped():
    gates = [BlindGate(f"task_{i}*", "required_command_missing", 3, 3, i % 4)
             for i in range(hard_gates_md.MAX_BLIND + 2)]
    lines = hard_gates_md.blind_lines(gates)
    assert lines[0] == ("- ⚠️ task task\\_0\\*: `required_command_missing` failed in every base run (3 of 3; "
                        "candidate 0 of 3): the suite cannot see a change to what this gate checks; run `validate-tasks`: "
                        "its base-arm table shows what the base instructions make the agent do; they, not the prompt, "
                        "must lead to what the gate checks.")
    assert lines[-2:] == ["- … and 2 more in summary.json (`blind_gates`).", ""]
    assert len(lines) == hard_gates_md.MAX_BLIND + 2
    assert hard_gates_md.blind_lines([]) == []
