"""compare as the CI step runs it: a fresh interpreter loads only what the run uses, and the
collector it pauses is running again afterwards."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from pathlib import Path

from compare_builders import compare, index, outcome_runs, policy, write_json

ROOT = Path(__file__).resolve().parent.parent
RESULTS = {f"task-{i}": [(True, i % 2 == 0), (i % 3 == 0, True), (True, True)] for i in range(20)}


def test_default_levels_need_neither_scipy_nor_jsonschema(tmp_path):
    results = write_json(tmp_path / "out" / "index.json", index(outcome_runs(RESULTS)))
    policy_path = write_json(tmp_path / "policy.json", policy({"max_success_rate_drop": 0.1,
                                                               "max_paired_wall_time_ratio": 1.5}))
    probe = (f"import sys; sys.path.insert(0, {str(ROOT)!r}); from instruction_gate.cli import main; "
             f"code = main(['--results', {str(results)!r}, '--policy', {str(policy_path)!r}, '--summary', "
             f"{str(tmp_path / 'out' / 'summary.md')!r}], only='compare'); "
             "print(code, sorted({m.split('.')[0] for m in sys.modules} & {'scipy', 'jsonschema', 'xml'}))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert done.stdout.splitlines()[-1] == "0 []", done.stderr
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["metrics"]["resolved"]["low"] is not None and summary["power"]["tasks_needed"] is not None


def test_the_collector_runs_again_after_compare(tmp_path):
    assert gc.isenabled()
    code, summary, _ = compare(tmp_path, index(outcome_runs(RESULTS)), policy({"max_success_rate_drop": 0.1}))
    assert code == 0 and summary["verdict"] == "pass" and gc.isenabled()
