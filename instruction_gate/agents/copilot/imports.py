"""`@path` imports in the AGENTS.md and CLAUDE.md files the Copilot CLI (1.0.102) sends.

Seen live (`tests/live_cli/test_live_copilot.py`): a `@path` after a space or at a line's
start, outside fenced code blocks and code spans, with trailing punctuation (`.`, `,`, …) left
out, is replaced by itself followed by `\\n\\n<imported_custom_instruction source="ABS">\\n`, the
imported file's text (its own imports expanded) and `</imported_custom_instruction>`; the rest
of the line follows. A path is relative to the importing file's directory and must name a
regular file inside the git root: absolute paths, `..` out of the repository, missing files and
directories stay as written. A file already imported under the same top-level file is replaced
by `<imported_custom_instruction source="ABS" skipped="already-loaded" />`. Eight levels are
followed; a ninth-level reference stays as written. GEMINI.md, `copilot-instructions.md` and
`.instructions.md` files are sent without expanding imports.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from instruction_gate.untrusted import is_path_text

#: Base names whose imports the CLI expands.
IMPORTING_NAMES = ("AGENTS.md", "CLAUDE.md")
#: Levels of imported files below a top-level file.
IMPORT_DEPTH = 8

_FENCED_BLOCK = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.MULTILINE | re.DOTALL)
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
_IMPORT = re.compile(r"(?:^|(?<=\s))@(\S+)")
_TRAILING = ".,;:!?)]}'\""


def copilot_imports(text: str) -> list[str]:
    """The references the CLI tries to import from `text`, in document order."""
    prose = _CODE_SPAN.sub(lambda m: " " * len(m.group(0)), _FENCED_BLOCK.sub(lambda m: " " * len(m.group(0)), text))
    refs = [m.group(1).rstrip(_TRAILING) for m in _IMPORT.finditer(prose)]
    return [r for r in refs if r]


def import_target(project: Path, importer: Path, ref: str) -> Path | None:
    """The file `ref` in `importer` loads, or None (absolute, outside `project`, not a file)."""
    if ref.startswith(("/", "~")) or not is_path_text(ref):
        return None  # a NUL or control character names no file
    target = Path(os.path.normpath(importer.parent / ref))
    real = Path(os.path.realpath(target))
    return target if real.is_relative_to(project) and real.is_file() else None


def imported_files(project: Path, top: Path, read) -> list[Path]:
    """Files imported below the top-level file `top`, depth first, each once (`read`: path -> text
    or None)."""
    seen: set[Path] = {Path(os.path.normpath(top))}
    found: list[Path] = []

    def walk(path: Path, text: str, level: int) -> None:
        if level > IMPORT_DEPTH:
            return
        for ref in copilot_imports(text):
            target = import_target(project, path, ref)
            if target is None or target in seen:
                continue
            seen.add(target)
            found.append(target)
            walk(target, read(target) or "", level + 1)

    walk(Path(os.path.normpath(top)), read(top) or "", 1)
    return found
