"""JSON Schemas (kept in the top-level `schemas/` folder) and error formatting.

Every problem is reported as `file::$.json.path: message`, all of them at once.
"""

from __future__ import annotations

import json
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
def _validator(name: str) -> jsonschema.protocols.Validator:
    schema = load_schema(name)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def json_path(path: Any) -> str:
    """Render a jsonschema error path (deque of keys/indices) as `$.a[3].b`."""
    out = "$"
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def schema_problems(name: str, instance: Any, label: str) -> list[str]:
    """Every schema violation of `instance` as `label::$.path: message`."""
    problems = []
    for error in sorted(_validator(name).iter_errors(instance), key=lambda e: list(map(str, e.absolute_path))):
        best = jsonschema.exceptions.best_match([error])
        problems.append(f"{label}::{json_path(best.absolute_path)}: {best.message}")
    return problems
