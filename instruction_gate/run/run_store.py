"""The evaluation's output directory: run records as runs finish, and the index."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from instruction_gate.errors import ConfigError
from instruction_gate.records import RECORD_SCHEMA_VERSION, read_json_record, run_dir, write_json_atomic, write_text_atomic
from instruction_gate.secrets import Redactor


class RunStore:
    """Writes `OUT/<task>/repeat-<n>/<variant>/{run.json,events.jsonl,patch.diff}` and `OUT/index.json`.

    Each run is written atomically the moment it finishes and the index is rewritten after it,
    so an evaluation killed at any point keeps every finished run.
    """

    def __init__(self, out: Path, header: dict[str, Any], redact: Redactor):
        self.out = out
        # The header carries the candidate's instruction hunks: redacted like every record.
        header = redact.data(header)
        self.header = {"schema_version": RECORD_SCHEMA_VERSION, "kind": "instruction-gate/index", **header}
        self.redact = redact
        self.runs: dict[tuple[str, int, str], dict[str, Any]] = {}
        self.lock = threading.Lock()

    def load_finished(self) -> int:
        """For --resume: adopt run.json files of this same base/candidate pair, manifest and task selection.

        Runs recorded under another manifest answered other questions (prompts, checks, repeats):
        mixing them in would be silent, so that is refused. Runs of tasks outside this evaluation's
        selection (another shard or --tasks) are left on disk but not adopted.
        """
        previous = self.out / "index.json"
        if previous.is_file():
            recorded = read_json_record(previous)
            recorded = recorded if isinstance(recorded, dict) else {}
            for name in ("base_sha", "candidate_sha", "manifest_sha256"):
                # Another base, candidate or manifest answered another question: continuing would
                # replace that evaluation's index (or mix its runs into this one).
                if recorded.get(name) and recorded[name] != self.header.get(name):
                    raise ConfigError(f"--resume: {previous}::$.{name} is {str(recorded[name])[:12]}..., this "
                                      f"evaluation's is {str(self.header.get(name))[:12]}...; use a fresh --out directory")
        # An empty selection (impact analysis found no task to run) adopts nothing; only a header
        # without a task list means every task.
        listed = self.header.get("tasks")
        selected = set(listed or ())
        for path in sorted(self.out.glob("*/repeat-*/*/run.json")):
            record = read_json_record(path)
            same_pair = (record.get("base_sha"), record.get("candidate_sha")) == (self.header["base_sha"],
                                                                                  self.header["candidate_sha"])
            if same_pair and (listed is None or record.get("task_id") in selected):
                self.runs[(record["task_id"], record["repeat"], record["variant"])] = record
        return len(self.runs)

    def has(self, task_id: str, repeat: int, variant: str) -> bool:
        return (task_id, repeat, variant) in self.runs

    def write(self, record: dict[str, Any], patch: str) -> None:
        directory = run_dir(self.out, record["task_id"], record["repeat"], record["variant"])
        record = self.redact.data(record)
        events = "".join(json.dumps(e) + "\n" for e in record["events"])
        write_text_atomic(directory / "events.jsonl", events)
        write_text_atomic(directory / "patch.diff", self.redact(patch))
        write_text_atomic(directory / "run.json", json.dumps(record, indent=2) + "\n")
        with self.lock:
            self.runs[(record["task_id"], record["repeat"], record["variant"])] = record
            self.write_index()

    def write_index(self) -> None:
        runs = [{k: v for k, v in r.items() if k != "events"} for _, r in sorted(self.runs.items())]
        write_json_atomic(self.out / "index.json", {**self.header, "runs": runs})
