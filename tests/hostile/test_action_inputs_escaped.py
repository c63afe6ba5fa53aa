"""Class: the action's inputs. Paths written to GITHUB_OUTPUT are checked (no control character
can add an output line), raw values in `::error` lines are escaped as workflow-command data,
and the report step's outputs and notice cannot be split by a value with a newline."""

from __future__ import annotations

import pytest

from instruction_gate.report.action_report import main as report_main, output_line
from tests.test_action_inputs import run_inputs_step

INJECTION = "x\nhead-sha=" + "f" * 40 + "\r\n::warning::injected"

CASES = {
    "output-dir with a newline": ({"OUTPUT_DIR": INJECTION}, "output-dir: must not contain control characters"),
    "cache dir with a newline": ({"CACHE_DIR": INJECTION, "REUSE_BASE_RUNS": "true", "CACHE_BACKEND": "directory"},
                                 "baseline-cache-dir: must not contain control characters"),
    "repository with a newline": ({"REPOSITORY": INJECTION}, "repository: must not contain control characters"),
    "output-dir with a tab": ({"OUTPUT_DIR": "a\tb"}, "output-dir: must not contain control characters"),
    "output-dir empty": ({"OUTPUT_DIR": ""}, "output-dir: must not be empty"),
    "output-dir is a file": ({"OUTPUT_DIR": "github-output"}, "output-dir: 'github-output' is not a directory"),
    "cache dir under a file": ({"CACHE_DIR": "github-output/cache", "REUSE_BASE_RUNS": "true",
                                "CACHE_BACKEND": "directory"}, "baseline-cache-dir: 'github-output/cache' is not a"),
    "mode with a newline": ({"MODE": INJECTION}, "mode: expected changes"),
    "event with a newline": ({"MODE": "baseline", "EVENT_NAME": INJECTION}, "mode: 'baseline' writes"),
    "sha with a percent and newline": ({"HEAD_SHA": "%0A\n::error::x"}, "head-sha: expected a full commit SHA"),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_refused_inputs_never_reach_github_output_or_split_an_error_line(tmp_path, case):
    env, expected = case
    code, stdout, outputs = run_inputs_step(tmp_path, **env)
    assert code == 2 and outputs == {"exit-code": "2"}
    assert expected in stdout
    lines = stdout.splitlines()
    assert lines and all(line.startswith("::error title=instruction-gate inputs::") for line in lines)
    assert "injected" not in stdout or "%0A::warning::injected" in stdout


def test_a_clean_output_dir_is_still_accepted(tmp_path):
    code, _, outputs = run_inputs_step(tmp_path, OUTPUT_DIR="results dir/with spaces")
    assert code == 0 and outputs["output-dir"] == str((tmp_path / "results dir" / "with spaces").resolve())


@pytest.mark.parametrize("value", ["plain", "two\nlines", "cr\rhere", "ends\n"])
def test_report_outputs_cannot_add_an_output(value):
    text = output_line("exit-reason", value)
    lines = text.splitlines()
    if "\n" in value or "\r" in value:
        name, delimiter = lines[0].split("<<")
        assert name == "exit-reason" and lines[-1] == delimiter and delimiter.startswith("ghadelimiter_")
        assert delimiter not in value
    else:
        assert lines == [f"exit-reason={value}"]


def test_report_notice_is_escaped(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "summary.json").write_text('{"verdict": "fail", "headline": "FAIL: x\\n::warning::injected"}')
    output = tmp_path / "github-output"
    code = report_main({"MODE": "compare", "OUTPUT_DIR": str(out), "COMPARE_EXIT": "1", "GITHUB_OUTPUT": str(output)})
    printed = capsys.readouterr().out
    assert code == 1 and printed.count("\n") == 1 and "%0A::warning::injected" in printed
    assert "exit-reason<<ghadelimiter_" in output.read_text()
