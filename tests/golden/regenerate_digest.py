#!/usr/bin/env python3
"""Regenerate the digest goldens (tests/golden/digest/*.md) from the recorded demo runs.

The recorded runs (tests/fixtures/demo-runs/<candidate>.json: the index without the bulky fields,
each run's events inside its record, as in run.json) are the reference agent's runs on the demo's candidates. After an
intended change to the digest:
    .venv/bin/python tests/golden/regenerate_digest.py && git diff tests/golden/digest
After a change to the reference agent or the demo, record the runs again first (a few minutes):
    .venv/bin/python tests/golden/regenerate_digest.py --record
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path[:0] = [str(ROOT)]

from instruction_gate.report.digest_md import markdown  # noqa: E402
from instruction_gate.verdict.comparison import compare  # noqa: E402
from instruction_gate.verdict.policy import load_policy  # noqa: E402
from instruction_gate.verdict.results import load_results  # noqa: E402

CANDIDATES = ("contradiction", "stale-command", "truncation-tail", "benign")
RUNS = ROOT / "tests" / "fixtures" / "demo-runs"
#: Run-record fields the digest does not read, dropped to keep the fixtures small.
_DROPPED = ("rules", "rule_metrics", "adapter_stderr_tail")


def comparison(name: str):
    return compare(load_results([RUNS / f"{name}.json"]), load_policy(ROOT / "policy.json"))


def render(name: str) -> str:
    return "\n".join(markdown(comparison(name).digest))


def record(name: str, scratch: Path) -> None:
    """Run the demo on `name` and keep its index (slimmed) and events."""
    subprocess.run([sys.executable, "-m", "instruction_gate", "demo", "--candidate", name, "--output-dir",
                    str(scratch)], cwd=ROOT, check=False, stdout=subprocess.DEVNULL)
    results = scratch / name / "results"
    index = json.loads((results / "index.json").read_text(encoding="utf-8"))
    for run in index["runs"]:
        for key in _DROPPED:
            run.pop(key, None)
        for check in run.get("checks") or []:
            check["stdout_tail"] = check["stderr_tail"] = ""
        events = results / run["task_id"] / f"repeat-{run['repeat']}" / run["variant"] / "events.jsonl"
        run["events"] = [json.loads(line) for line in events.read_text(encoding="utf-8").splitlines()]
    RUNS.mkdir(parents=True, exist_ok=True)
    (RUNS / f"{name}.json").write_text(json.dumps(index) + "\n", encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", action="store_true", help="run the demo again and re-record the runs")
    args = parser.parse_args()
    if args.record:
        with tempfile.TemporaryDirectory() as scratch:
            for name in CANDIDATES:
                record(name, Path(scratch))
                print(f"recorded {RUNS.relative_to(ROOT) / name}.json")
    for name in CANDIDATES:
        target = HERE / "digest" / f"{name}.md"
        target.write_text(render(name) + "\n", encoding="utf-8")
        print(f"wrote {target.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
