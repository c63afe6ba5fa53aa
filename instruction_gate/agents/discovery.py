"""Which instruction files reach an agent, by each agent's documented discovery rules.

Pure functions over a checked-out tree; nothing here runs an agent. Paths in the results
are repository-relative POSIX strings, ready for a result event's `instruction_sources`
and `instruction_bytes` (see `result_fields`).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from instruction_gate.untrusted import is_path_text, read_instruction_bytes

#: Codex's default `project_doc_max_bytes`: one budget shared by the whole chain.
CODEX_BUDGET_BYTES = 32 * 1024
#: Names Codex looks for in each directory, in order, before any fallback names.
CODEX_NAMES = ("AGENTS.override.md", "AGENTS.md")
#: Files Claude Code loads from each directory it considers, in load order.
CLAUDE_NAMES = ("CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md")
#: How many `@path` import hops Claude Code follows from a memory file (2.1.3xx: 4).
CLAUDE_IMPORT_HOPS = 4
#: Upper bound on what is read of one file to find its imports (memory files are small).
_IMPORT_SCAN_BYTES = 1024 * 1024


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


def _dirs_root_to_cwd(repo_root: Path, cwd: Path) -> list[Path]:
    """Directories from `repo_root` down to `cwd`, both included."""
    try:
        rel = cwd.relative_to(repo_root)
    except ValueError:
        raise ValueError(f"working directory {cwd} is outside the repository {repo_root}") from None
    dirs = [repo_root]
    for part in rel.parts:
        dirs.append(dirs[-1] / part)
    return dirs


def _resolve(repo_root: Path | str, cwd: Path | str) -> tuple[Path, Path]:
    root = Path(os.path.realpath(repo_root))
    # A relative cwd is relative to the repository root; an absolute one replaces it.
    return root, Path(os.path.realpath(root / cwd))


def _rel(repo_root: Path, path: Path) -> str:
    return path.relative_to(repo_root).as_posix()


def _read_prefix(path: Path, limit: int) -> bytes | None:
    """Up to `limit` bytes of a regular file (symlinks followed); None when unreadable."""
    return read_instruction_bytes(path, limit)


def _size(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except (OSError, ValueError):
        return 0


def codex_project_root(repo_root: Path, cwd: Path) -> Path:
    """Where Codex starts the chain: the nearest directory at or above `cwd` holding `.git`
    (a nested repository or submodule starts its own chain), else the repository root."""
    for directory in reversed(_dirs_root_to_cwd(repo_root, cwd)):
        if os.path.lexists(directory / ".git"):
            return directory
    return repo_root


def _utf8_prefix(data: bytes, cut: bool) -> bytes:
    """`data` without a character the budget cut in half (Codex sends U+FFFD for it)."""
    if not cut:
        return data
    for back in range(1, min(4, len(data)) + 1):
        lead = data[-back]
        if lead < 0x80:
            return data  # ends in ASCII: nothing split
        if lead >= 0xC0:  # the lead byte of the last character
            need = 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
            return data if back >= need else data[:-back]
    return data


def codex_global_doc(codex_home: Path | str | None) -> LoadedFile | None:
    """`$CODEX_HOME/AGENTS.override.md` or `AGENTS.md`: sent first, in both arms, outside the
    project budget. Reported as `$CODEX_HOME/<name>` since it is not a repository file."""
    if not codex_home:
        return None
    for name in CODEX_NAMES:
        data = _read_prefix(Path(codex_home) / name, _IMPORT_SCAN_BYTES)
        if data is not None and data.decode("utf-8", errors="replace").strip():
            # Codex trims the global file before sending it.
            return LoadedFile(f"$CODEX_HOME/{name}", len(data), len(data.strip()))
    return None


def codex_chain(repo_root: Path | str, cwd: Path | str, budget: int = CODEX_BUDGET_BYTES,
                fallback_names: Iterable[str] = (), codex_home: Path | str | None = None) -> list[LoadedFile]:
    """The instruction files Codex puts in front of the agent, in the order it sends them.

    First the global `$CODEX_HOME` file, if `codex_home` is given (not charged to the
    budget). Then per directory from the project root (`codex_project_root`) down to `cwd`
    the first name of AGENTS.override.md, AGENTS.md, then `fallback_names` that is a regular
    file (symlinks followed: a dangling link or a directory of that name is passed over; an
    empty pick shadows the others and is skipped). Picked files are concatenated until
    `budget` bytes are spent: the file crossing it is truncated (never inside a character),
    later ones are dropped. Only files of which at least one byte reached the agent are returned.
    """
    root, here = _resolve(repo_root, cwd)
    names = list(dict.fromkeys([*CODEX_NAMES, *fallback_names]))
    remaining = budget
    chain: list[LoadedFile] = [doc for doc in [codex_global_doc(codex_home)] if doc]
    for directory in _dirs_root_to_cwd(codex_project_root(root, here), here):
        picked = next((directory / n for n in names if (directory / n).is_file()), None)
        if picked is None:
            continue
        if remaining <= 0:
            break
        size = picked.stat().st_size
        data = _read_prefix(picked, remaining)
        if data is None or not data.decode("utf-8", errors="replace").strip():
            continue  # Codex skips empty files without spending budget.
        loaded = _utf8_prefix(data, cut=size > len(data))
        chain.append(LoadedFile(_rel(root, picked), size, len(loaded), truncated=size > len(data)))
        remaining -= len(data)
    return chain


_FENCED_BLOCK = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.MULTILINE | re.DOTALL)
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
_IMPORT = re.compile(r"(?:^|(?<=\s))@((?:[^\s\\]|\\ )+)")


def claude_imports(text: str) -> list[str]:
    """`@path` imports in a memory file, ignoring code blocks and code spans.

    Verbatim: Claude Code takes everything up to the next space as the path, so `@AGENTS.md.`
    names a file `AGENTS.md.` (which does not exist) and loads nothing.
    """
    prose = _CODE_SPAN.sub(" ", _FENCED_BLOCK.sub(" ", text))
    return [m.group(1).replace("\\ ", " ") for m in _IMPORT.finditer(prose)]


def _import_target(repo_root: Path, scope: Path, importer: Path, ref: str) -> Path | None:
    """The file an import loads, or None: home, missing, or outside `scope` (in headless
    mode Claude Code expands only imports that resolve inside its working directory).
    A relative import starts from where the importer really is: a memory file linked from
    elsewhere imports beside its target, not beside the link (checked against the live CLI)."""
    if ref.startswith("~") or not is_path_text(ref):
        return None  # the agent's home is never part of the evaluated instructions
    target = Path(os.path.normpath(Path(os.path.realpath(importer)).parent / ref))
    real = Path(os.path.realpath(target))
    if not real.is_relative_to(repo_root) or not real.is_file():
        return None
    return target if target.is_relative_to(scope) else None


def claude_rules(directory: Path) -> list[Path]:
    """`.claude/rules/**/*.md` of one directory, loaded at start unless the rule's front matter
    names `paths:` (those load only when the agent touches a matching file). Depth first in
    directory order, as the CLI walks them; symlinked folders are not followed."""
    found: list[Path] = []

    def walk(folder: Path) -> None:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            return
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                walk(Path(entry.path))
            elif entry.name.endswith(".md") and entry.is_file() and not _scoped_rule(Path(entry.path)):
                found.append(Path(entry.path))

    walk(directory / ".claude" / "rules")
    return found


_FRONT_MATTER = re.compile(rb"\A---\r?\n(.*?)\r?\n---\r?\n", re.DOTALL)


def _scoped_rule(path: Path) -> bool:
    """A rule whose YAML front matter has a `paths` key."""
    match = _FRONT_MATTER.match(_read_prefix(path, 64 * 1024) or b"")
    return bool(match and re.search(rb"^paths\s*:", match.group(1), re.MULTILINE))


def claude_sources(repo_root: Path | str, cwd: Path | str, touched_paths: Iterable[str | Path] = (),
                   max_import_hops: int = CLAUDE_IMPORT_HOPS, above_root: bool = False) -> list[LoadedFile]:
    """The memory files Claude Code (headless, `-p`) loads, in load order, each file once.

    At start, per directory from the repository root down to `cwd`: CLAUDE.md,
    .claude/CLAUDE.md, the unscoped `.claude/rules/**/*.md` (`claude_rules`), CLAUDE.local.md.
    Later: CLAUDE.md, .claude/CLAUDE.md and CLAUDE.local.md in subdirectories below `cwd`
    containing a file the agent read or edited (`touched_paths`, absolute or relative to
    the repository root). Each loaded file's `@path` imports follow right after it, up to
    `max_import_hops` hops, when they resolve inside `cwd`. Claude Code loads files whole,
    also one whose path is a link out of the repository (its imports still must resolve inside).

    `above_root`: first the same files in every directory above the repository, from `/` down,
    as the CLI loads them; named relative to the root (`../CLAUDE.md`). Only for a real run:
    a copy of the repository in a temporary directory has the host's directories above it.
    """
    root, here = _resolve(repo_root, cwd)
    dirs = [*(reversed(root.parents) if above_root else ()), *_dirs_root_to_cwd(root, here)]
    start = len(dirs)
    for touched in touched_paths:
        target = Path(os.path.normpath(root / touched))
        if target.is_relative_to(here) and target != here:
            for directory in _dirs_root_to_cwd(here, target.parent)[1:]:
                if directory not in dirs:
                    dirs.append(directory)
    loaded: dict[Path, LoadedFile] = {}

    def load(path: Path, hops_left: int) -> None:
        if path in loaded:
            return
        # A memory file linked out of the repository is loaded all the same (the live CLI sends
        # it): reported under its repository path, sized by what was read, past the scan cap by stat.
        data = _read_prefix(path, _IMPORT_SCAN_BYTES)
        if data is None:
            return
        size = len(data) if len(data) < _IMPORT_SCAN_BYTES else max(len(data), _size(path))
        name = _rel(root, path) if path.is_relative_to(root) else Path(os.path.relpath(path, root)).as_posix()
        loaded[path] = LoadedFile(name, size, size)
        if hops_left <= 0:
            return
        for ref in claude_imports(data.decode("utf-8", errors="replace")):
            target = _import_target(root, here, path, ref)
            if target is not None:
                load(target, hops_left - 1)

    for index, directory in enumerate(dirs):
        load(directory / "CLAUDE.md", max_import_hops)
        load(directory / ".claude" / "CLAUDE.md", max_import_hops)
        for rule in claude_rules(directory) if index < start else ():
            load(rule, max_import_hops)
        load(directory / "CLAUDE.local.md", max_import_hops)
    return list(loaded.values())
