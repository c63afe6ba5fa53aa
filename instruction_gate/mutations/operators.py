"""The operator registry: short name -> operator, and mutant generation."""

from __future__ import annotations

from collections import Counter
from functools import partial
from pathlib import Path
from typing import Iterable

from instruction_gate.errors import ConfigError
from instruction_gate.untrusted import INSTRUCTION_CAP_BYTES
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

#: What is missing when an operator makes no mutant, for the report's "not applicable here" list.
NOT_APPLICABLE = {
    "truncate": "no instruction file longer than the cut",
    "stale-command": "no command, script or path referenced in code",
    "contradiction": "no always/never directive to invert",
    "delete-section": "no heading whose section is less than the whole file",
    "delete-rule": "no item or sentence that says what to do",
    "swap-overrides": "no AGENTS.override.md next to an AGENTS.md with other content",
}


def oversized(files: Files) -> dict[str, int]:
    """Files no operator mutates (path -> bytes): larger than the harness reads of one instruction
    file. An agent loads far less, so a mutant past the cap would test text no agent sees, and
    one mutant per rule of a multi-megabyte file is a number of runs nobody would spend."""
    return {path: len(data) for path, data in sorted(files.items()) if len(data) > INSTRUCTION_CAP_BYTES}


def counts(mutants: Iterable[Mutant], operator_names: Iterable[str]) -> dict[str, int]:
    """Mutants per operator: patch files (when any) and every requested operator, zeros included."""
    found = Counter(m.operator for m in mutants)
    return {**({"patch": found["patch"]} if found["patch"] else {}), **{name: found[name] for name in operator_names}}


def selected(names: Iterable[str]) -> list[str]:
    """Operator names as given, checked: `none` alone means patch files only (no operator);
    unknown names are a configuration error listing the valid ones."""
    names = list(names)
    if "none" in names:
        if names != ["none"]:
            raise ConfigError("mutation operator 'none' (patch files only) cannot be combined with other operators")
        return []
    unknown = [n for n in names if n not in OPERATORS]
    if unknown:
        raise ConfigError(f"unknown mutation operator(s) {', '.join(unknown)}; "
                          f"choose from {', '.join(OPERATORS)}, or none (patch files only)")
    return names


def resolve(names: Iterable[str], truncate_at: int | None = None) -> list[tuple[str, Operator]]:
    """Operators by name (see `selected`)."""
    return [(n, partial(truncate_tail, offset=truncate_at) if n == "truncate" else OPERATORS[n])
            for n in selected(names)]


def generate(files: Files, operator_names: Iterable[str] = OPERATORS, patch_paths: Iterable[Path] = (),
             truncate_at: int | None = None) -> list[Mutant]:
    """Every mutant of the patch files and the operators (in that order), each unique and each a
    real change. Operators leave `oversized` files alone. No operator's mutant deletes or empties
    a file: that tests "no instructions at all", not the rule the operator names (a patch file
    may, as its author chose)."""
    mutants: dict[str, Mutant] = {}
    too_large = oversized(files)
    mutable = {path: data for path, data in files.items() if path not in too_large}
    sources = [patch_mutants(files, patch_paths)] + [op(mutable) for _, op in resolve(operator_names, truncate_at)]
    for source in sources:
        for mutant in source:
            if mutant.id in mutants:
                continue
            changes = mutant.changes  # built once here and dropped: a mutant keeps only its edit
            if all(files.get(p) == d for p, d in changes.items()):
                continue  # equivalent to the base: could never be killed
            if mutant.operator != "patch" and any(not (d or b"").strip() for d in changes.values()):
                continue
            mutants[mutant.id] = mutant
    return list(mutants.values())


def _spread(count: int) -> list[int]:
    """Indices 0..count-1 in bit-reversed order (0, 4, 2, 6, 1, ... of 8): any prefix of it is
    spread evenly over the range instead of bunched at its start."""
    bits = max(count - 1, 0).bit_length()
    order = [int(format(k, f"0{bits}b")[::-1], 2) if bits else 0 for k in range(1 << bits)]
    return [i for i in order if i < count]


def _queues_by_file(mutants: list[Mutant], indices: list[int]) -> dict[str, list[int]]:
    """One operator's mutants (by index) per file, in file name order, each file's in spread order."""
    by_file: dict[str, list[int]] = {}
    for index in indices:
        by_file.setdefault(mutants[index].path or "", []).append(index)
    return {path: [group[i] for i in _spread(len(group))] for path, group in sorted(by_file.items())}


def sample(mutants: list[Mutant], limit: int | None) -> list[Mutant]:
    """At most `limit` mutants, chosen deterministically: patch files first, then in turn one
    mutant of each operator, each time from the file that has the fewest chosen mutants so far
    (ties: file name order) and spread over its positions, so a small budget still tests every
    operator and every file rather than only the first. The chosen ones keep their generation order."""
    if limit is None or limit >= len(mutants):
        return list(mutants)
    by_operator: dict[str, list[int]] = {}
    for index, mutant in enumerate(mutants):
        by_operator.setdefault(mutant.operator, []).append(index)
    chosen = by_operator.pop("patch", [])[:limit]
    taken = Counter(mutants[i].path or "" for i in chosen)
    queues = [_queues_by_file(mutants, group) for group in by_operator.values()]
    while len(chosen) < limit and any(queues):
        for per_file in queues:
            if not per_file or len(chosen) >= limit:
                continue
            path = min(per_file, key=lambda p: (taken[p], p))
            chosen.append(per_file[path].pop(0))
            taken[path] += 1
            if not per_file[path]:
                del per_file[path]
    return [mutants[i] for i in sorted(chosen)]
