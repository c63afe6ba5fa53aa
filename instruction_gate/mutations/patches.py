"""Repository-specific mutants from patch files (`mutations/*.patch`), applied with `git apply`."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Iterable, Iterator

from instruction_gate import git
from instruction_gate.errors import ConfigError
from instruction_gate.mutations.model import Files, Mutant, snippet


def _changed_lines(patch: str, sign: str) -> list[str]:
    return [line[1:] for line in patch.splitlines()
            if line.startswith(sign) and not line.startswith(sign * 3) and line[1:].strip()]


def _header(patch: str) -> str:
    """Free text before the first diff header (a patch's own explanation), if any."""
    lines = []
    for line in patch.splitlines():
        if line.startswith(("diff ", "--- ", "Index: ")):
            break
        if line.strip() and not line.startswith(("From ", "Date: ", "From: ")):
            lines.append(line.removeprefix("Subject: ").removeprefix("[PATCH] "))
    return snippet(" ".join(lines)) if lines else ""


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def apply_patch(files: Files, patch_path: Path) -> dict[str, bytes | None]:
    """Apply one patch to the instruction files; return what changed (path -> bytes or None)."""
    with tempfile.TemporaryDirectory(prefix="ig-mutant-") as tmp:
        root = Path(tmp)
        for path, data in files.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_bytes(data)
        result = git.git("apply", "--whitespace=nowarn", str(patch_path.resolve()), cwd=root, check=False)
        if not result.ok:
            raise ConfigError(f"{patch_path}: does not apply to the base instruction files",
                              [f"{patch_path}::$: {(result.stderr or result.start_error or '').strip()}"])
        after = _snapshot(root)
    changes: dict[str, bytes | None] = {p: d for p, d in after.items() if files.get(p) != d}
    changes.update({p: None for p in files if p not in after})
    return changes


def patch_mutants(files: Files, patch_paths: Iterable[Path]) -> Iterator[Mutant]:
    for patch_path in sorted(patch_paths):
        text = patch_path.read_text(encoding="utf-8", errors="replace")
        changes = apply_patch(files, patch_path)
        if not changes:
            raise ConfigError(f"{patch_path}: changes nothing in the base instruction files")
        removed, added = _changed_lines(text, "-"), _changed_lines(text, "+")
        rule = snippet(" / ".join(removed or added)) or "(whitespace only)"
        what = _header(text) or (f"removes {len(removed)} and adds {len(added)} line(s) in "
                                 + ", ".join(sorted(changes)))
        yield Mutant(f"patch:{patch_path.name}", "patch", f"{patch_path.name}: {what}", rule,
                     changes, sorted(changes)[0], None)
