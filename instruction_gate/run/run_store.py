"""The evaluation's output directory: run records as runs finish, and the index."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from instruction_gate.errors import ConfigError
from instruction_gate.run.limits import OutputLimits
from instruction_gate.records import RECORD_SCHEMA_VERSION, read_json_record, run_dir, write_json_atomic, write_text_atomic
from instruction_gate.secrets import Redactor


class RunStore:
    """Writes `OUT/<task>/repeat-<n>/<variant>/{run.json,events.jsonl,patch.diff}` and `OUT/index.json`.

    Each run is written atomically the moment it finishes and the index is rewritten after it,
    so an evaluation killed at any point keeps every finished run. What a run directory holds is
    bounded by the evaluation's output limits (the header's `output_limits`; see limits.py).
    """

    def __init__(self, out: Path, header: dict[str, Any], redact: Redactor):
        self.out = out
        # The header carries the candidate's instruction hunks: redacted like every record.
        header = redact.data(header)
        self.header = {"schema_version": RECORD_SCHEMA_VERSION, "kind": "instruction-gate/index", **header}
        self.redact = redact
        self.limits = OutputLimits.from_policy(header.get("output_limits"))
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
                self.runs[(record["task_id"], record["repeat"], record["variant"])] = _without_events(record)
        return len(self.runs)

    def has(self, task_id: str, repeat: int, variant: str) -> bool:
        return (task_id, repeat, variant) in self.runs

    def write(self, record: dict[str, Any], patch: str) -> None:
        directory = run_dir(self.out, record["task_id"], record["repeat"], record["variant"])
        events = record.get("events") or []
        # Redacted in place, event by event: a copy of a long stream would double the runner's memory.
        for number, event in enumerate(events):
            events[number] = self.redact.data(event)
        lines = self._kept_lines(events)
        del events[len(lines):]
        record = {**self.redact.data({k: v for k, v in record.items() if k != "events"}), "events": events}
        write_text_atomic(directory / "events.jsonl", "".join(line + "\n" for line in lines))
        write_text_atomic(directory / "patch.diff", self.redact(patch))
        write_text_atomic(directory / "run.json", record_text(record, lines))
        with self.lock:
            # Kept without its events, as the index lists it: a long evaluation must not hold every
            # run's events in memory (`full_record` reads them back).
            self.runs[(record["task_id"], record["repeat"], record["variant"])] = _without_events(record)
            self.write_index()

    def full_record(self, record: dict[str, Any]) -> dict[str, Any]:
        """A run of `runs` with its events, as written to its run.json."""
        return read_json_record(run_dir(self.out, record["task_id"], record["repeat"], record["variant"]) / "run.json")

    def _kept_lines(self, events: list[Any]) -> list[str]:
        """Each event as its line, up to the event limit counted as written.

        The adapter already stopped keeping events at the limit, counting the same lines; a
        redaction placeholder longer than the secret it replaced could still tip it over.
        """
        lines, written = [], 0
        for event in events:
            line = json.dumps(event)
            written += len(line.encode("utf-8")) + 1
            if written > self.limits.event_bytes:
                break
            lines.append(line)
        return lines

    def write_index(self) -> None:
        runs = [_without_events(r) for _, r in sorted(self.runs.items())]
        write_json_atomic(self.out / "index.json", {**self.header, "runs": runs})


def _without_events(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k != "events"}


def record_text(record: dict[str, Any], event_lines: list[str]) -> str:
    """run.json: the record indented, its events last and one per line (indenting every event's
    insides would make the record several times larger than the events it holds)."""
    head = json.dumps({k: v for k, v in record.items() if k != "events"}, indent=2)
    events = ",".join(f"\n    {line}" for line in event_lines)
    return f'{head[:-2]},\n  "events": [{events}{chr(10) + "  " if event_lines else ""}]\n}}\n'
