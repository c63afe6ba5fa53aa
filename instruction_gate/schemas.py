"""JSON Schemas (kept in the top-level `schemas/` folder) and error formatting.

Every problem is reported as `file::$.json.path: message`, all of them at once.
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from pathlib import Path
from typing import Any

import jsonschema

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schemas"


@lru_cache(maxsize=None)
def load_schema(name: str) -> dict[str, Any]:
    """Load `schemas/<name>.schema.json`."""
    return json.loads((SCHEMA_DIR / f"{name}.schema.json").read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def _validator(name: str, partial: bool = False) -> jsonschema.protocols.Validator:
    schema = load_schema(name)
    if partial:  # the fields present must be right; which are present is the caller's business
        schema = {k: v for k, v in schema.items() if k != "required"}
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    # JSON Schema counts 1.0 as an integer; the code would then meet range(1.0). An integer is
    # an int here (never a bool, never a float).
    checker = cls.TYPE_CHECKER.redefine(
        "integer", lambda _checker, value: isinstance(value, int) and not isinstance(value, bool))
    return jsonschema.validators.extend(cls, type_checker=checker)(schema)


def json_path(path: Any) -> str:
    """Render a jsonschema error path (deque of keys/indices) as `$.a[3].b`."""
    out = "$"
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def _at(label: str, path: Any) -> str:
    """`file::$.a.b`; a label that already holds a JSON path (`file::$.runs[3]`) is extended."""
    return f"{label}{json_path(path)[1:]}" if "::$" in label else f"{label}::{json_path(path)}"


def _non_finite(instance: Any, path: list[Any]) -> list[list[Any]]:
    """Paths to NaN and infinite floats: JSON Schema's `minimum`/`maximum` never reject NaN
    (every comparison with it is false), and YAML writes them as `.nan` and `.inf`."""
    if isinstance(instance, float) and not math.isfinite(instance):
        return [path]
    if isinstance(instance, dict):
        return [p for key, value in instance.items() for p in _non_finite(value, [*path, key])]
    if isinstance(instance, list):
        return [p for i, value in enumerate(instance) for p in _non_finite(value, [*path, i])]
    return []


def schema_problems(name: str, instance: Any, label: str, partial: bool = False) -> list[str]:
    """Every schema violation of `instance` as `label::$.path: message`; numbers must be finite.

    `partial`: top-level required fields may be missing (an index's run summaries, test records).
    """
    problems = [f"{_at(label, p)}: not a finite number" for p in _non_finite(instance, [])]
    for error in sorted(_validator(name, partial).iter_errors(instance), key=lambda e: list(map(str, e.absolute_path))):
        best = jsonschema.exceptions.best_match([error])
        problems.append(f"{_at(label, best.absolute_path)}: {best.message}")
    return problems
