"""What a path written in a nested instruction file is relative to.

Writers of `go/GEMINI.md` often name paths from the repository root (`go/ai/gen.go`, `bin/fmt`)
while the file sits in `go/`. One rule, the same the lint's IG002 uses to decide a path exists:
a path is relative to the directory of the file that declares it when it exists there, else
relative to the repository root when it exists there (the writer meant the root). A protected
path that exists in neither place is protected under both spellings; a glob exists where its
literal leading directories do (`*.md` is the file's own directory's). A command whose program is
a path that only the root has (`macos/build.nu` in `macos/AGENTS.md`) runs from the root.
"""

from __future__ import annotations

import itertools
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
    written = path.lstrip("/")
    bases = [directory] + ([""] if directory not in ("", ".") else [])
    candidates = {spelled: base for base in bases if (spelled := _inside(posixpath.join(base, written))) is not None}
    # A glob exists where its literal leading directories do (`*.md`: the file's own directory).
    literal = "/".join(itertools.takewhile(lambda part: not any(c in part for c in "*?["), written.split("/")))
    probe = (lambda spelled, base: exists(posixpath.normpath(posixpath.join(base, literal)))) if literal != written \
        else (lambda spelled, base: exists(spelled))
    found = next((spelled for spelled, base in candidates.items() if probe(spelled, base)), None)
    return [found] if found else list(candidates)


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


#: Folders whose instruction files speak for the folder holding them (`.github/copilot-instructions.md`,
#: `.cursor/rules/x.mdc`, `.claude/rules/x.md` name paths from the project, not from the dot-folder).
_CONFIG_FOLDERS = frozenset({".github", ".cursor", ".claude"})


def file_directory(source: str) -> str:
    """The directory an instruction file's paths and commands start from: its own, or for a file
    inside `.github/`, `.cursor/` or `.claude/`, the folder holding that one."""
    parts = source.split("/")[:-1]
    cut = next((i for i, part in enumerate(parts) if part in _CONFIG_FOLDERS), len(parts))
    return "/".join(parts[:cut])
