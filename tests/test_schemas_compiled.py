"""The compiled schema validator gives the pure-Python validator's verdict on every record.

`schemas.schema_problems` passes a valid instance on the compiled validator's word alone, so a
record the compiled one accepts and the Python one refuses would slip through compare unseen.
"""

from __future__ import annotations

import json

import jsonschema_rs  # noqa: F401  (a declared dependency: the fast path must be there)
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compare_builders import index, run
from instruction_gate import schemas
from instruction_gate.errors import ConfigError
from instruction_gate.verdict.results import load_results

#: Values a hostile or buggy writer could put in any field.
ODD_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-3, 10**12), st.floats(allow_nan=False, allow_infinity=False),
                       st.sampled_from([0.0, 1.0, 2.0, -1.0]), st.text(max_size=5),
                       st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))
FIELDS = sorted(run("t", 0, "base"))


def _python_verdict(instance) -> bool:
    return not list(schemas._validator("run-record", True).iter_errors(instance))


@settings(max_examples=300, deadline=None)
@given(changes=st.dictionaries(st.sampled_from(FIELDS + ["checks", "hard_failures"]), ODD_VALUES, max_size=3))
def test_compiled_and_python_validators_agree_on_mutated_records(changes):
    record = {**run("t", 0, "base"), **changes}
    assert schemas._compiled("run-record", True).is_valid(record) == _python_verdict(record)


@pytest.mark.parametrize("field, value", [("repeat", 1.0), ("tool_calls", 3.0), ("input_tokens", True),
                                          ("resolved", "yes"), ("hard_failures", "forbidden_edit")])
def test_integral_floats_and_wrong_types_are_refused_by_both(field, value):
    record = {**run("t", 0, "base"), field: value}
    assert not schemas._compiled("run-record", True).is_valid(record)
    assert schemas.schema_problems("run-record", record, "f::$.runs[0]", partial=True)


def test_a_malformed_record_among_valid_ones_is_named_by_position(tmp_path):
    runs = [run(f"t{i}", 0, v) for i in range(3) for v in ("base", "candidate")]
    runs[4]["tool_calls"] = 2.0
    path = tmp_path / "index.json"
    path.write_text(json.dumps(index(runs)))
    with pytest.raises(ConfigError) as caught:
        load_results([path])
    assert f"{path}::$.runs[4].tool_calls" in "\n".join([str(caught.value), *caught.value.problems])
