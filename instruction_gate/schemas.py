"""JSON Schemas (kept in the top-level `schemas/` folder) and error formatting.

Every problem is reported as `file::$.json.path: message`, all of them at once.
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from pathlib import Path
from typing import Any

try:  # compiled validation: the same verdicts ~300x faster on large inputs (10,000 run records)
    import jsonschema_rs
except ImportError:  # pragma: no cover - the pure-Python path alone is correct, only slower
    jsonschema_rs = None

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schemas"


@lru_cache(maxsize=None)
def load_schema(name: str) -> dict[str, Any]:
    """Load `schemas/<name>.schema.json`."""
    return json.loads((SCHEMA_DIR / f"{name}.schema.json").read_text(encoding="utf-8"))


def _schema(name: str, partial: bool) -> dict[str, Any]:
    schema = load_schema(name)
    if partial:  # the fields present must be right; which are present is the caller's business
        schema = {k: v for k, v in schema.items() if k != "required"}
    return schema


@lru_cache(maxsize=None)
def _validator(name: str, partial: bool = False) -> Any:
    """The pure-Python validator (jsonschema), which words every problem. Imported here, not at
    the top: a valid document never needs it, and importing it costs more than validating."""
    import jsonschema

    schema = _schema(name, partial)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    # JSON Schema counts 1.0 as an integer; the code would then meet range(1.0). An integer is
    # an int here (never a bool, never a float).
    checker = cls.TYPE_CHECKER.redefine(
        "integer", lambda _checker, value: isinstance(value, int) and not isinstance(value, bool))
    return jsonschema.validators.extend(cls, type_checker=checker)(schema)


#: A keyword added beside every `"type": "integer"` for the compiled validator (see `_StrictInteger`).
_STRICT_INTEGER = "x-instruction-gate-strict-integer"


class _StrictInteger:
    """Compiled-validator keyword: JSON Schema counts 1.0 as an integer, the code does not
    (the same rule as the type checker of `_validator`)."""

    def __init__(self, parent_schema: Any, value: Any, schema_path: Any):
        pass

    def validate(self, instance: Any) -> None:
        if isinstance(instance, float):
            raise ValueError(f"{instance!r} is not an integer")


def _strict_integers(node: Any) -> Any:
    """A copy of a schema with `_STRICT_INTEGER` beside every type that admits integers."""
    if isinstance(node, list):
        return [_strict_integers(item) for item in node]
    if not isinstance(node, dict):
        return node
    copy = {key: _strict_integers(value) for key, value in node.items()}
    kind = node.get("type")
    if kind == "integer" or (isinstance(kind, list) and "integer" in kind and "number" not in kind):
        copy[_STRICT_INTEGER] = True
    return copy


@lru_cache(maxsize=None)
def _compiled(name: str, partial: bool = False) -> Any:
    """A compiled validator giving the same verdict as `_validator` (None: the library is missing).
    Only the verdict is used: messages always come from `_validator`, so they read the same."""
    if jsonschema_rs is None:
        return None
    return jsonschema_rs.validator_for(_strict_integers(_schema(name, partial)),
                                       keywords={_STRICT_INTEGER: _StrictInteger})


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


def schema_problems(name: str, instance: Any, label: str, partial: bool = False, finite: bool = False) -> list[str]:
    """Every schema violation of `instance` as `label::$.path: message`; numbers must be finite.

    `partial`: top-level required fields may be missing (an index's run summaries, test records).
    `finite`: the caller read `instance` with `records.loads`, which refuses NaN and infinities,
    so the walk looking for them is skipped. A valid instance is passed by the compiled validator
    alone; only an invalid one pays for the pure-Python pass that words every problem.
    """
    compiled = _compiled(name, partial)
    if compiled is not None and compiled.is_valid(instance) and (finite or not _non_finite(instance, [])):
        return []
    from jsonschema.exceptions import best_match  # only an invalid instance gets here

    problems = [f"{_at(label, p)}: not a finite number" for p in _non_finite(instance, [])]
    for error in sorted(_validator(name, partial).iter_errors(instance), key=lambda e: list(map(str, e.absolute_path))):
        best = best_match([error])
        problems.append(f"{_at(label, best.absolute_path)}: {best.message}")
    return problems
