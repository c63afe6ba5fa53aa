"""The replay adapter: a stored run played back as a new one.

Re-emits a recorded event stream (`events.jsonl`, or the `events` array of a `run.json`)
and applies the recorded `patch.diff` to the workspace with `git apply`, so a stored run can
be re-scored offline (new checks, new gates) and tests get real processes without an agent.
"""

from __future__ import annotations

import json
import signal
import sys
from pathlib import Path
from typing import Any

from instruction_gate import proc
from instruction_gate.agents.failures import Failure
from instruction_gate.agents.options import OptionSpec, Options, merged_options, parse_adapter_flags
from instruction_gate.agents.protocol import AdapterRequest, EventWriter
from instruction_gate.errors import ConfigError
from instruction_gate.console import say

OPTIONS = (
    OptionSpec("run_dir", "a stored run directory holding events.jsonl and, optionally, patch.diff"),
    OptionSpec("events", "recorded events: events.jsonl, or run.json with an `events` array"),
    OptionSpec("patch", "unified diff to apply to the workspace (default: run_dir/patch.diff if present)"),
)
GIT_APPLY_SECONDS = 60.0


def load_events(path: Path) -> tuple[list[dict[str, Any]], int]:
    """Recorded events in order, and how many lines were not JSON objects."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError("cannot read recorded events", [f"{path}::$: {exc.strerror}"]) from None
    if path.suffix == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError("recorded run is not JSON", [f"{path}::$: {exc.msg}"]) from None
        events = data.get("events") if isinstance(data, dict) else None
        if not isinstance(events, list):
            raise ConfigError("recorded run has no events", [f"{path}::$.events: expected an array"])
        return [e for e in events if isinstance(e, dict)], sum(not isinstance(e, dict) for e in events)
    events, malformed = [], 0
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            obj = None
        if isinstance(obj, dict):
            events.append(obj)
        else:
            malformed += 1
    return events, malformed


def sources(options: Options) -> tuple[Path, Path | None]:
    """(events file, patch file or None) from the options."""
    run_dir = options.text("run_dir")
    events = options.text("events") or (str(Path(run_dir) / "events.jsonl") if run_dir else None)
    if events is None:
        raise ConfigError("nothing to replay", ["adapter_options::$.events: set events or run_dir"])
    patch = options.text("patch")
    if patch is None and run_dir and (Path(run_dir) / "patch.diff").is_file():
        patch = str(Path(run_dir) / "patch.diff")
    return Path(events), Path(patch) if patch else None


def apply_patch(patch: Path, repo_root: Path) -> Failure | None:
    if not patch.is_file():
        return Failure("agent_error", f"recorded patch {patch} is missing")
    if not patch.read_text(encoding="utf-8", errors="replace").strip():
        return None  # the recorded agent changed nothing
    result = proc.run(["git", "apply", "--whitespace=nowarn", str(patch.resolve())], repo_root,
                      timeout=GIT_APPLY_SECONDS)
    return None if result.ok else Failure("agent_error", f"git apply failed: {result.stderr.strip()}")


def replay(request: AdapterRequest, options: Options, writer: EventWriter) -> None:
    events_path, patch = sources(options)
    events, malformed = load_events(events_path)
    results = [e for e in events if e.get("type") == "result"]
    writer.emit_all(e for e in events if e.get("type") != "result")
    if malformed:
        say(f"replay: skipped {malformed} malformed recorded lines", file=sys.stderr)
    failure = apply_patch(patch, request.repo_root) if patch else None
    if not results:
        return  # the recorded run had no result: replay that faithfully
    result = dict(results[-1])
    if failure is not None:
        say(f"replay: {failure.detail}", file=sys.stderr)
        # The workspace no longer matches the recording, so this replay proves nothing.
        result.update(status="failed", failure_class="infrastructure", failure_reason="replay_patch_failed")
    writer.emit(result)


def main(argv: list[str]) -> int:
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    try:
        flags = parse_adapter_flags("adapters/replay", OPTIONS, argv)
        request = AdapterRequest.parse(sys.stdin.read())
        replay(request, merged_options(request.options, flags, OPTIONS, "replay"), EventWriter())
    except ConfigError as exc:
        say(f"replay: {exc}", file=sys.stderr)
        return 2
    return 0
