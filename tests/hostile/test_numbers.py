"""Class: every number is finite and in range. One strict JSON reader (`records.loads`) and the
schemas (with a finite-number walk) stand between a document and the code that uses its numbers."""

from __future__ import annotations

import json

import pytest

from instruction_gate.cli import main
from instruction_gate.errors import ConfigError
from instruction_gate.records import loads
from instruction_gate.schemas import schema_problems
from instruction_gate.suite.manifest import load as load_manifest
from instruction_gate.verdict.policy import load_policy, policy_from_dict
from tests.fixtures.runner_cli import evaluate, make_adapter, records
from tests.runner.suite import build_suite_repo, manifest, task


@pytest.mark.parametrize("text", ["NaN", "[Infinity]", '{"a": -Infinity}', "[1e400]", "[-1e999]", "1" * 5000])
def test_the_reader_refuses_non_finite_numbers(text):
    with pytest.raises(json.JSONDecodeError):
        loads(text)


def test_the_reader_keeps_ordinary_numbers():
    assert loads('{"a": 1.5e3, "b": -2, "c": 0.0}') == {"a": 1500.0, "b": -2, "c": 0.0}


MANIFEST_CASES = {
    "json NaN timeout": ("manifest.json", '"timeout_seconds": NaN', "not valid JSON"),
    "json Infinity cost": ("manifest.json", '"max_provider_cost_usd": Infinity', "not valid JSON"),
    "yaml nan timeout": ("manifest.yaml", "timeout_seconds: .nan", "$.defaults.timeout_seconds: not a finite number"),
    "yaml inf cost": ("manifest.yaml", "max_provider_cost_usd: .inf", "$.defaults.max_provider_cost_usd: not a finite number"),
    "yaml -inf check timeout": ("manifest.yaml", "check_timeout_seconds: -.inf", "not a finite number"),
    "a year of timeout": ("manifest.json", '"timeout_seconds": 31536000', "is greater than the maximum of 86400"),
    "negative cost": ("manifest.json", '"max_provider_cost_usd": -1', "less than the minimum of 0"),
    "zero check timeout": ("manifest.json", '"check_timeout_seconds": 0', "less than or equal to the minimum of 0"),
    "a float for a count": ("manifest.json", '"max_tool_calls": 5.0', "5.0 is not of type 'integer', 'null'"),
}


@pytest.mark.parametrize("case", MANIFEST_CASES.values(), ids=MANIFEST_CASES.keys())
def test_manifest_numbers(tmp_path, case):
    name, field, expected = case
    key = field.split(":")[0].strip('"')
    data = manifest([task("t1")])
    data["defaults"].pop(key, None)
    if name.endswith(".json"):
        text = json.dumps(data).replace('"defaults": {', '"defaults": {' + field + ", ", 1)
    else:
        import yaml
        text = yaml.safe_dump(data).replace("defaults:\n", f"defaults:\n  {field}\n", 1)
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_manifest(path)
    assert expected in str(caught.value)


POLICY_CASES = {
    "confidence NaN": ({"statistics": {"confidence_level": float("nan")}}, "confidence_level: not a finite number"),
    "confidence inf": ({"statistics": {"confidence_level": float("inf")}}, "confidence_level: not a finite number"),
    "bound NaN": ({"soft": {"max_success_rate_drop": float("nan")}}, "max_success_rate_drop: not a finite number"),
    "usd -inf": ({"budget": {"max_provider_usd": float("-inf")}}, "max_provider_usd: not a finite number"),
    "seed too large": ({"statistics": {"seed": 2 ** 70}}, "seed: 1180591620717411303424 is greater than the maximum"),
    "draws a float": ({"statistics": {"draws": 1000.0}}, "draws: 1000.0 is not of type 'integer'"),
    "reproductions a bool": ({"hard": {"min_reproductions": True}}, "min_reproductions: True is not of type 'integer'"),
}


@pytest.mark.parametrize("case", POLICY_CASES.values(), ids=POLICY_CASES.keys())
def test_policy_numbers(case):
    data, expected = case
    with pytest.raises(ConfigError) as caught:
        policy_from_dict(data)
    assert expected in str(caught.value)


def test_policy_file_with_nan_is_refused(tmp_path):
    path = tmp_path / "policy.json"
    path.write_text('{"statistics": {"confidence_level": NaN}}')
    with pytest.raises(ConfigError, match="not valid JSON"):
        load_policy(path)


RUN = {"task_id": "t", "repeat": 0, "valid": True, "resolved": True, "hard_failures": []}
RECORD_CASES = {
    "resolved yes": ({"resolved": "yes"}, "resolved: 'yes' is not of type 'boolean'"),
    "hard failures a string": ({"hard_failures": "agent_not_completed"}, "hard_failures: 'agent_not_completed' is not of type 'array'"),
    "negative tokens": ({"input_tokens": -5}, "input_tokens: -5 is less than the minimum of 0"),
    "negative cost": ({"provider_cost_usd": -0.5}, "provider_cost_usd: -0.5 is less than the minimum of 0"),
    "negative wall time": ({"wall_seconds": -1}, "wall_seconds: -1 is less than the minimum of 0"),
    "tokens a float": ({"output_tokens": 1.5}, "output_tokens: 1.5 is not of type"),
    "negative repeat": ({"repeat": -1}, "repeat: -1 is less than the minimum of 0"),
    "repeat a float": ({"repeat": 0.0}, "repeat: 0.0 is not of type 'integer'"),
    "tool calls a string": ({"tool_calls": "3"}, "tool_calls: '3' is not of type"),
    "checks an object": ({"checks": {"a": 1}}, "checks: {'a': 1} is not of type 'array'"),
}


@pytest.mark.parametrize("case", RECORD_CASES.values(), ids=RECORD_CASES.keys())
def test_compare_validates_every_record(tmp_path, capsys, case):
    fields, expected = case
    runs = [{**RUN, "variant": "base"}, {**RUN, "variant": "candidate", **fields}]
    (tmp_path / "index.json").write_text(json.dumps({"schema_version": 1, "runs": runs}))
    code = main(["compare", "--results", str(tmp_path / "index.json"), "--policy", _policy(tmp_path),
                 "--summary", str(tmp_path / "out" / "s.md")])
    err = capsys.readouterr().err
    assert code == 2, err
    assert f"index.json::$.runs[1].{expected}" in err


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e400"])
def test_compare_refuses_non_finite_usage(tmp_path, capsys, literal):
    runs = json.dumps([{**RUN, "variant": v, "provider_cost_usd": 0.125} for v in ("base", "candidate")])
    (tmp_path / "runs.json").write_text(runs.replace("0.125", literal, 1))
    code = main(["compare", "--results", str(tmp_path / "runs.json"), "--policy", _policy(tmp_path),
                 "--summary", str(tmp_path / "out" / "s.md")])
    err = capsys.readouterr().err
    assert code == 2 and "runs.json::$: not valid JSON" in err and "is not a finite number" in err


def _policy(tmp_path) -> str:
    path = tmp_path / "policy.json"
    path.write_text("{}")
    return str(path)


ADAPTER_RESULTS = {
    "NaN tokens": 'print(\'{"type": "result", "status": "completed", "input_tokens": NaN}\', flush=True)',
    "Infinity cost": 'print(\'{"type": "result", "status": "completed", "provider_cost_usd": Infinity}\', flush=True)',
    "negative usage": 'emit(type="result", status="completed", input_tokens=-5, output_tokens=-1, tool_calls=-2, '
                      'provider_cost_usd=-0.5)',
    "huge usage": 'print(\'{"type": "result", "status": "completed", "input_tokens": 1e400, "tool_calls": 1e308}\', '
                  'flush=True)',
    "strings for numbers": 'emit(type="result", status="completed", input_tokens="5", provider_cost_usd="cheap")',
}


@pytest.mark.parametrize("result", ADAPTER_RESULTS.values(), ids=ADAPTER_RESULTS.keys())
def test_adapter_numbers_never_crash_the_runner(git_repo, tmp_path, result):
    base, candidate = build_suite_repo(git_repo, [task("t1")])
    out = tmp_path / "out"
    run = evaluate(git_repo, base, candidate, out, make_adapter(tmp_path, result=result))
    assert "Traceback" not in run.stderr and run.returncode in (0, 1, 3), run.stderr
    recorded = records(out)
    assert len(recorded) == 2
    for record in recorded.values():
        assert schema_problems("run-record", record, "run.json") == []
        assert record["input_tokens"] is None or record["input_tokens"] >= 0


def test_an_endless_adapter_line_is_cut_not_buffered(tmp_path):
    from instruction_gate import proc
    lines = []
    script = "import sys; sys.stdout.write('x' * (3 * 8 * 1024 * 1024)); sys.stdout.write('\\n{\"a\": 1}\\n')"
    result = proc.run(["python3", "-c", script], tmp_path, timeout=60, on_stdout_line=lines.append)
    assert result.exit_code == 0
    assert max(len(line) for line in lines) <= proc.MAX_LINE_BYTES and lines[-1] == b'{"a": 1}'


@pytest.mark.parametrize("text", [
    "a: &a [*a]\n",
    "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"a{i}: &a{i} [{', '.join(['*a' if i == 1 else f'*a{i - 1}'] * 10)}]\n" for i in range(1, 9)),
], ids=["alias cycle", "alias bomb"])
def test_yaml_aliases_cannot_build_what_json_cannot(tmp_path, text):
    path = tmp_path / "manifest.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match="once aliases are expanded"):
        load_manifest(path)
