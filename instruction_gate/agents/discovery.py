"""What every agent's discovery shares: the loaded-file record, the result fields, paths.

Pure functions over a checked-out tree; nothing here runs an agent. Paths in the results
are repository-relative POSIX strings, ready for a result event's `instruction_sources`
and `instruction_bytes` (see `result_fields`). Each agent's own rules live in
`agents/<agent>/discovery.py`.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from instruction_gate.untrusted import read_instruction_bytes

#: Upper bound on what is read of one file to find its imports (memory files are small).
IMPORT_SCAN_BYTES = 1024 * 1024


@dataclass(frozen=True)
class LoadedFile:
    """One instruction file and how much of it reached the agent."""

    path: str  #: repository-relative POSIX path
    size: int  #: bytes on disk
    bytes_loaded: int  #: how many of its bytes on disk reached the agent, a prefix (<= size)
    truncated: bool = False  #: the budget cut this file short
    #: UTF-8 bytes of the text the agent sent, when it decodes the file first (a byte-order mark
    #: dropped, invalid bytes as U+FFFD) or trims it; None: the `bytes_loaded` bytes as they are.
    received: int | None = None


#: What JavaScript's String.prototype.trim removes (Gemini CLI trims each context file).
JS_WHITESPACE = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009" \
                "\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"


def sent_whole(path: str, on_disk: Path, data: bytes, *, drop_bom: bool = False, trim: bool = False) -> LoadedFile:
    """A file an agent reads as UTF-8 text and sends whole, of which the harness read `data`: at
    most its read cap (`untrusted.INSTRUCTION_CAP_BYTES`), so the size comes from the file. What
    the agent received is the decoded text (`drop_bom`: without a leading byte-order mark;
    `trim`: JavaScript-trimmed); past the read cap, the rest counts as it is on disk."""
    try:
        size = max(os.stat(on_disk).st_size, len(data))
    except (OSError, ValueError):
        size = len(data)
    text = data.decode("utf-8", errors="replace")
    text = text.removeprefix("\ufeff") if drop_bom else text
    if trim:  # past the read cap the end is unseen: only the start is trimmed here
        text = text.strip(JS_WHITESPACE) if size == len(data) else text.lstrip(JS_WHITESPACE)
    received = len(text.encode("utf-8")) + size - len(data)
    return LoadedFile(path, size, size, received=None if received == size else received)


def result_fields(files: Iterable[LoadedFile]) -> tuple[list[str], dict[str, int]]:
    """`instruction_sources` and `instruction_bytes` (what the agent received) for a result event."""
    loaded = [f for f in files if f.bytes_loaded > 0]
    return [f.path for f in loaded], {f.path: f.bytes_loaded if f.received is None else f.received for f in loaded}


def dirs_root_to_cwd(repo_root: Path, cwd: Path) -> list[Path]:
    """Directories from `repo_root` down to `cwd`, both included."""
    try:
        rel = cwd.relative_to(repo_root)
    except ValueError:
        raise ValueError(f"working directory {cwd} is outside the repository {repo_root}") from None
    dirs = [repo_root]
    for part in rel.parts:
        dirs.append(dirs[-1] / part)
    return dirs


def resolve(repo_root: Path | str, cwd: Path | str) -> tuple[Path, Path]:
    root = Path(os.path.realpath(repo_root))
    # A relative cwd is relative to the repository root; an absolute one replaces it.
    return root, Path(os.path.realpath(root / cwd))


def rel(repo_root: Path, path: Path) -> str:
    return path.relative_to(repo_root).as_posix()


def read_prefix(path: Path, limit: int) -> bytes | None:
    """Up to `limit` bytes of a regular file (symlinks followed); None when unreadable."""
    return read_instruction_bytes(path, limit)


def file_size(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except (OSError, ValueError):
        return 0


def outside_repository(repo_root: Path | str, workspace: Path | str) -> str | None:
    """Why an agent must not start in `workspace`: a link (it or a folder above it) leads out of
    the repository, so the agent would work there and load that place's instruction files, which
    no reviewer sees and no result can name. None when it lies inside."""
    root, here = resolve(repo_root, workspace)
    if here.is_relative_to(root):
        return None
    return f"the working directory leads out of the repository (a symlink to {here})"


def read_settings_json(path: Path, trailing_commas: bool = False) -> object | None:
    """A settings file the agents read as JSON with `//` and `/* */` comments (Gemini CLI's
    settings.json; OpenCode's configuration, which also takes `trailing_commas`); None when
    absent, unreadable or no such JSON (the CLI would not start with it)."""
    data = read_instruction_bytes(path)
    if data is None:
        return None
    text = data.decode("utf-8", errors="replace").removeprefix("\ufeff")
    pattern = _NOT_JSONC if trailing_commas else _NOT_JSON
    for candidate in (text, pattern.sub(lambda m: m.group(1) or "", text)):
        try:
            return json.loads(candidate)
        except ValueError:
            continue
    return None


#: Strings kept (group 1); outside them, comments dropped (and a comma before a closing bracket).
_NOT_JSON = re.compile(r'("(?:\\.|[^"\\])*")|//[^\n]*|/\*[\s\S]*?\*/')
_NOT_JSONC = re.compile(_NOT_JSON.pattern + r'|,(?=\s*[}\]])')


def project_root(repo_root: Path, cwd: Path) -> Path:
    """Where the agents start their chain: the nearest directory at or above `cwd` holding `.git`
    (a nested repository or submodule starts its own chain), else the repository root."""
    for directory in reversed(dirs_root_to_cwd(repo_root, cwd)):
        if os.path.lexists(directory / ".git"):
            return directory
    return repo_root


