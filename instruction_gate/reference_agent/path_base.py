"""What a path written in a nested instruction file is relative to.

Writers of `go/GEMINI.md` often name paths from the repository root (`go/ai/gen.go`, `bin/fmt`)
while the file sits in `go/`. One rule, the same the lint's IG002 uses to decide a path exists:
a path is relative to the directory of the file that declares it when it exists there, else
relative to the repository root when it exists there (the writer meant the root). A protected
path that exists in neither place is protected under both spellings. A command whose program is
a path that only the root has (`macos/build.nu` in `macos/AGENTS.md`) runs from the root.
"""

from __future__ import annotations

import posixpath
import shlex
from typing import Callable

Exists = Callable[[str], bool]


def _inside(path: str) -> str | None:
    normal = posixpath.normpath(path)
    return None if normal == ".." or normal.startswith("../") else normal


def spellings(directory: str, path: str, exists: Exists) -> list[str]:
    """Repository-relative spellings of `path`, written in a file whose paths start at `directory`:
    the one that exists (the file's directory first), else every one inside the repository."""
    relative = _inside(posixpath.join(directory, path.lstrip("/")))
    from_root = _inside(path.lstrip("/")) if directory not in ("", ".") else None
    candidates = [p for p in dict.fromkeys((relative, from_root)) if p is not None]
    existing = next((p for p in candidates if exists(p)), None)
    return [existing] if existing else candidates


def _program(command: str) -> str | None:
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    words = [w for w in words if not (w.partition("=")[0].isidentifier() and "=" in w)][:1]
    return words[0] if words else None


def command_directory(command: str, directory: str, exists: Exists) -> str:
    """Where `command`, asked for by a file whose commands run in `directory`, runs: the repository
    root when its program is a path that only the root has, else `directory`."""
    program = _program(command)
    if directory in ("", ".") or not program or "/" not in program or program.startswith(("/", "~")):
        return directory or "."
    found = spellings(directory, program, exists)
    return "." if found == [posixpath.normpath(program)] and exists(found[0]) else directory
