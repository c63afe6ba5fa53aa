"""Versioned records on disk: atomic writes, and readers that refuse newer versions."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from instruction_gate.errors import ConfigError

#: Version written into every run record, index and summary this harness produces.
RECORD_SCHEMA_VERSION = 1


def run_dir(out: Path, task_id: str, repeat: int, variant: str) -> Path:
    """Where an evaluation writes one run's files: `OUT/<task>/repeat-<n>/<variant>/`."""
    return out / task_id / f"repeat-{repeat}" / variant


def write_text_atomic(path: Path, text: str) -> None:
    """Write via a temp file in the same directory and `os.replace`, so readers never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json_atomic(path: Path, data: Any) -> None:
    write_text_atomic(path, json.dumps(data, indent=2, sort_keys=False) + "\n")


def read_json_record(path: Path) -> Any:
    """Read a record; refuse one written by a newer harness than this one."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}::$: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    version = data.get("schema_version") if isinstance(data, dict) else None
    if isinstance(version, int) and version > RECORD_SCHEMA_VERSION:
        raise ConfigError(
            f"{path}::$.schema_version: written by a newer instruction-gate "
            f"(version {version}; this one reads up to {RECORD_SCHEMA_VERSION})")
    return data
