"""The operator registry: short name -> operator, and mutant generation."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Iterable

from instruction_gate.errors import ConfigError
from instruction_gate.mutations.edits import contradiction, stale_command, truncate_tail
from instruction_gate.mutations.model import Files, Mutant, Operator
from instruction_gate.mutations.overrides import swap_overrides
from instruction_gate.mutations.patches import patch_mutants
from instruction_gate.mutations.structure import delete_rule, delete_section

#: Operators by name, in report order.
OPERATORS: dict[str, Operator] = {
    "truncate": truncate_tail,
    "stale-command": stale_command,
    "contradiction": contradiction,
    "delete-section": delete_section,
    "delete-rule": delete_rule,
    "swap-overrides": swap_overrides,
}


def resolve(names: Iterable[str], truncate_at: int | None = None) -> list[tuple[str, Operator]]:
    """Operators by name; unknown names are a configuration error listing the valid ones."""
    names = list(names)
    unknown = [n for n in names if n not in OPERATORS]
    if unknown:
        raise ConfigError(f"unknown mutation operator(s) {', '.join(unknown)}; "
                          f"choose from {', '.join(OPERATORS)}")
    return [(n, partial(truncate_tail, offset=truncate_at) if n == "truncate" else OPERATORS[n]) for n in names]


def generate(files: Files, operator_names: Iterable[str] = OPERATORS, patch_paths: Iterable[Path] = (),
             truncate_at: int | None = None) -> list[Mutant]:
    """Every mutant of the operators and patch files, each unique and each a real change."""
    mutants: dict[str, Mutant] = {}
    sources = [op(files) for _, op in resolve(operator_names, truncate_at)]
    sources.append(patch_mutants(files, patch_paths))
    for source in sources:
        for mutant in source:
            if all(files.get(p) == d for p, d in mutant.changes.items()):
                continue  # equivalent to the base: could never be killed
            mutants.setdefault(mutant.id, mutant)
    return list(mutants.values())
