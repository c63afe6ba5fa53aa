"""Group-sequential boundaries and the per-round decision."""

from __future__ import annotations

import numpy as np
import pytest

from instruction_gate.verdict import sequential
from instruction_gate.verdict.metrics import evaluate_metrics
from instruction_gate.verdict.pairing import Pair
from instruction_gate.verdict.policy import policy_from_dict


@pytest.mark.parametrize("rounds, expected", [
    (2, (2.9626, 1.9686)),
    (3, (3.7103, 2.5114, 1.9930)),
    (5, (4.8769, 3.3569, 2.6803, 2.2898, 2.0310)),
])
def test_obrien_fleming_boundaries_match_published_values(rounds, expected):
    # Lan-DeMets O'Brien-Fleming, one-sided alpha 0.025, equal spacing (as tabulated by gsDesign).
    assert sequential.fail_boundaries(rounds, 0.025, "obrien-fleming") == pytest.approx(expected, abs=6e-4)


def test_one_round_is_the_fixed_test():
    assert sequential.fail_boundaries(1, 0.025, "pocock") == pytest.approx((1.95996,), abs=1e-4)
    assert sequential.look_confidences(sequential.Design(max_rounds=1)) == pytest.approx((0.95,), abs=1e-9)


def test_binding_futility_lowers_only_later_boundaries():
    free = sequential.fail_boundaries(3, 0.025, "obrien-fleming")
    bound = sequential.fail_boundaries(3, 0.025, "obrien-fleming", (0.0, 0.0, None))
    assert bound[0] == pytest.approx(free[0])
    assert bound[2] < free[2]


def test_unknown_boundary_is_refused():
    with pytest.raises(ValueError, match="unknown boundary"):
        sequential.fail_boundaries(3, 0.025, "haybittle")


def _pairs(deltas: np.ndarray) -> list[Pair]:
    outcome = {-1: (True, False), 0: (True, True), 1: (False, True)}
    return [Pair(f"t{t}", r, {"resolved": outcome[d][0]}, {"resolved": outcome[d][1]})
            for t, row in enumerate(deltas) for r, d in enumerate(row)]


@pytest.mark.parametrize("bound", [0.0, 0.1])
def test_one_look_design_decides_exactly_like_compare(bound):
    # The benchmark's fixed design and the final look rely on this equivalence.
    rng = np.random.default_rng(3)
    statistics = {"confidence_level": 0.95, "draws": 200, "seed": 0}
    fixed = sequential.Design(max_rounds=1)
    for _ in range(150):
        deltas = rng.choice([-1, 0, 0, 1], size=(6, 3), p=[0.35, 0.25, 0.25, 0.15])
        compare = next(m for m in evaluate_metrics(_pairs(deltas), {"max_success_rate_drop": bound}, statistics)
                       if m.spec.name == "resolved")
        look = sequential.assess(deltas.mean(axis=1), deltas.size, bound, fixed, 1)
        assert look.verdict == compare.verdict, deltas


DESIGN = sequential.Design(max_rounds=3)


def test_clear_regression_fails_at_the_first_round():
    look = sequential.assess(np.full(8, -1.0), 8, 0.1, DESIGN, 1)
    assert (look.stop, look.verdict) == ("fail", "fail")
    assert "clear regression" in look.reason


def test_large_but_noisy_drop_waits_at_round_one_that_the_fixed_test_would_fail():
    values = np.array([-1, -1, -1, -1, -1, -1, 0, 0.0])
    assert sequential.assess(values, 8, 0.0, sequential.Design(max_rounds=1), 1).verdict == "fail"
    look = sequential.assess(values, 8, 0.0, DESIGN, 1)
    assert look.stop is None and look.verdict == "inconclusive"


def test_no_difference_anywhere_passes_early():
    look = sequential.assess(np.zeros(8), 8, 0.1, DESIGN, 1)
    assert (look.stop, look.verdict) == ("pass", "pass")


def test_early_pass_can_be_switched_off():
    design = sequential.Design(max_rounds=3, early_pass=False, futility_z=None)
    assert sequential.assess(np.zeros(8), 8, 0.1, design, 1).stop is None
    assert sequential.assess(np.zeros(8), 24, 0.1, design, 3).stop == "pass"


def test_futility_stops_when_the_candidate_looks_no_worse():
    values = np.array([1, 0, -1, 1, 0, 0, 1, -1.0])
    look = sequential.assess(values, 8, 0.0, DESIGN, 1)
    assert (look.stop, look.verdict) == ("futility", "inconclusive")
    assert sequential.assess(values, 8, 0.0, sequential.Design(max_rounds=3, futility_z=None), 1).stop is None


def test_min_rounds_delays_every_stop():
    design = sequential.Design(max_rounds=3, min_rounds=2)
    assert sequential.assess(np.full(8, -1.0), 8, 0.1, design, 1).stop is None
    assert sequential.assess(np.full(8, -1.0), 16, 0.1, design, 2).stop == "fail"


def test_last_round_always_stops():
    values = np.array([-1, 0, -1, 1, 0, -1, 0, 0.0])
    look = sequential.assess(values, 24, 0.0, DESIGN, 3)
    assert look.stop == "exhausted" and look.verdict == "inconclusive"


def test_no_pairs_is_inconclusive_and_never_a_pass():
    assert sequential.assess(np.array([]), 0, 0.1, DESIGN, 1).stop is None
    last = sequential.assess(np.array([]), 0, 0.1, DESIGN, 3)
    assert (last.stop, last.verdict) == ("exhausted", "inconclusive")


def test_false_alarm_rate_stays_below_nominal_under_repeated_looks():
    # A/A on the boundary (bound 0), 8 tasks x 3 rounds: the naive 95 % look after every round
    # fails more often than the group-sequential design, which stays within the nominal 2.5 %.
    rng = np.random.default_rng(11)
    sims, tasks = 1500, 8
    p = rng.uniform(0.1, 0.95, size=(sims, tasks, 1))
    deltas = (rng.random((sims, tasks, 3)) < p).astype(int) - (rng.random((sims, tasks, 3)) < p).astype(int)
    naive = sequential.Design(max_rounds=1)
    confidences = sequential.look_confidences(DESIGN)
    naive_fails = sequential_fails = 0
    for d in deltas:
        looks = [d[:, :k].mean(axis=1) for k in (1, 2, 3)]
        naive_fails += any(sequential.assess(v, tasks * k, 0.0, naive, 1).verdict == "fail"
                           for k, v in enumerate(looks, 1))
        for k, v in enumerate(looks, 1):
            look = sequential.assess(v, tasks * k, 0.0, DESIGN, k, confidences)
            if look.stop:
                sequential_fails += look.verdict == "fail"
                break
    assert sequential_fails / sims <= 0.025
    assert sequential_fails < naive_fails


def test_design_from_policy_defaults_and_confidence():
    policy = policy_from_dict({"statistics": {"confidence_level": 0.9}, "sequential": {"max_rounds": 4}})
    design = sequential.design_from_policy(policy.sequential, policy.confidence)
    assert design == sequential.Design(max_rounds=4, alpha=pytest.approx(0.05))
    assert sequential.design_from_policy({"max_rounds": 2, "futility_z": None}).futility_z is None


def test_sequential_early_fail_waits_for_the_reproductions_the_policy_needs():
    from instruction_gate.run.rounds import hard_gate_status

    def runs(candidate_failures: dict[tuple[str, int], list[str]]) -> dict:
        keys = [(t, r) for t in ("t1", "t2") for r in range(2)]
        out = {(t, r, "base"): {"valid": True, "hard_failures": []} for t, r in keys}
        out.update({(t, r, "candidate"): {"valid": True, "hard_failures": candidate_failures.get((t, r), [])}
                    for t, r in keys})
        return out

    policy = policy_from_dict({"hard": {"min_reproductions": 2,
                                        "min_reproductions_by_category": {"forbidden_file_edited": 1}}})
    first = {("t1", 0): ["required_command_missing"], ("t2", 0): ["forbidden_file_edited"],
             ("t2", 1): ["required_command_missing"]}
    blocking, pending = hard_gate_status(runs(first), policy)
    assert blocking == ["t2 r0: forbidden_file_edited"]  # one slip per task is not yet a regression
    assert pending == ["t1 r0: required_command_missing", "t2 r1: required_command_missing"]
    again = {**first, ("t1", 1): ["required_command_missing"]}
    blocking, pending = hard_gate_status(runs(again), policy)
    assert blocking == ["t1 r0: required_command_missing", "t1 r1: required_command_missing",
                        "t2 r0: forbidden_file_edited"] and pending == ["t2 r1: required_command_missing"]
    off = policy_from_dict({"hard": {"min_reproductions": 2, "categories": {"required_command_missing": False}}})
    # a category the policy does not block never waits; one that blocks waits for its second showing
    assert hard_gate_status(runs(first), off) == ([], ["t2 r0: forbidden_file_edited"])
