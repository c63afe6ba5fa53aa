"""Versioned records on disk: atomic writes, and readers that refuse newer versions."""

from __future__ import annotations

import json
import math
import os
import stat
import tempfile
from pathlib import Path
from typing import Any

from instruction_gate.errors import ConfigError

#: Version written into every run record, index and summary this harness produces.
RECORD_SCHEMA_VERSION = 1


#: The largest record file read (an index of many thousands of runs is a few megabytes).
MAX_RECORD_BYTES = 256 * 1024 * 1024


class NonFiniteNumber(json.JSONDecodeError):
    """NaN, Infinity or an overflowing literal (1e400): not a number a record may carry."""


def loads(text: str) -> Any:
    """`json.loads` that refuses NaN, Infinity and numbers too large for a float.

    Python's json accepts them by default; a NaN timeout is no timeout and a NaN cost
    passes every comparison, so every reader of manifests, policies, records and adapter
    events goes through here.
    """
    def refuse(literal: str) -> float:
        raise NonFiniteNumber(f"{literal} is not a finite number", text, max(text.find(literal), 0))

    def finite(literal: str) -> float:
        value = float(literal)
        if not math.isfinite(value):
            refuse(literal)
        return value

    def integer(literal: str) -> int:
        try:
            return int(literal)
        except ValueError:  # beyond Python's digit limit for int()
            raise NonFiniteNumber(f"an integer of {len(literal)} digits is too large", text,
                                  max(text.find(literal), 0)) from None

    return json.loads(text, parse_constant=refuse, parse_float=finite, parse_int=integer)


def read_capped(path: Path, limit: int = MAX_RECORD_BYTES) -> bytes:
    """A regular file's bytes; refuses FIFOs, devices, directories and files over `limit` (exit 2)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file") from None
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{path}: cannot be read ({getattr(exc, 'strerror', None) or exc})") from None
    if not stat.S_ISREG(info.st_mode):
        raise ConfigError(f"{path}: not a regular file (a directory, FIFO or device is never read)")
    try:
        with open(path, "rb") as handle:
            data = handle.read(limit + 1)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror})") from None
    if len(data) > limit:
        raise ConfigError(f"{path}: larger than {limit // (1024 * 1024)} MiB; refused")
    return data


def run_dir(out: Path, task_id: str, repeat: int, variant: str) -> Path:
    """Where an evaluation writes one run's files: `OUT/<task>/repeat-<n>/<variant>/`."""
    return out / task_id / f"repeat-{repeat}" / variant


def write_text_atomic(path: Path, text: str) -> None:
    """Write via a temp file in the same directory and `os.replace`, so readers never see half a file.

    An output that cannot be written is a configuration problem named by its path (exit 2).
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be written ({exc.strerror or exc})") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise ConfigError(f"{path}: cannot be written ({exc.strerror or exc})") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json_atomic(path: Path, data: Any) -> None:
    write_text_atomic(path, json.dumps(data, indent=2, sort_keys=False, allow_nan=False) + "\n")


def read_json_record(path: Path) -> Any:
    """Read a record; refuse one written by a newer harness than this one."""
    data = read_capped(path)
    try:
        data = loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}::$: not UTF-8 text (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}::$: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    except RecursionError:
        raise ConfigError(f"{path}::$: nested too deeply") from None
    version = data.get("schema_version") if isinstance(data, dict) else None
    if isinstance(version, int) and version > RECORD_SCHEMA_VERSION:
        raise ConfigError(
            f"{path}::$.schema_version: written by a newer instruction-gate "
            f"(version {version}; this one reads up to {RECORD_SCHEMA_VERSION})")
    return data
