"""Which context files reach Gemini CLI (0.61), in the order it sends them.

Read from the CLI's memory discovery and checked against what the pinned binary sent
(`tests/live_cli/test_live_gemini.py`):

- Global: `<home>/.gemini/<name>` for each configured name in order (the system
  instruction's `<loaded_context>`); `home` is `GEMINI_CLI_HOME`, reported as
  `$GEMINI_CLI_HOME/.gemini/<name>`.
- Project (the first user message's `<project_context>`): from the cwd up to the nearest
  directory holding `.git`, every configured name that exists; one file reached twice
  (a hard or symbolic link) counts once; the list is then sorted by absolute path
  (JavaScript string order), not by depth.
- Just in time: a file or directory the agent reads, lists or edits below the cwd, in a call
  that succeeds, adds the files from its directory up to the `.git` directory that are not
  loaded yet, root first.
- Each file's `@path` imports are inlined, depth first, up to 5 levels: `@` at the start of a
  line or after a space, the path running to the next space and starting with `.`, `/` or an
  ASCII letter, outside backtick code spans and blocks, resolving inside the importing
  file's project root (nearest `.git` above it, else its own directory). Files load whole;
  an empty one sends nothing. Each reference is replaced by text the CLI writes whatever
  becomes of it (`gemini_import_text.py`); the referring file's bytes include it. An import
  whose path cannot be resolved (a symlink loop) counts as outside the project.
- A configured name that is a symlink loop in the cwd stops the CLI before any request: it
  resolves each name's real path at start-up (`start_failure`).
"""

from __future__ import annotations

import bisect
import errno
import os
import re
from dataclasses import replace
from pathlib import Path
from typing import Iterable

from instruction_gate.agents.gemini import import_text
from instruction_gate.agents.discovery import LoadedFile, project_root as codex_project_root, sent_whole
from instruction_gate.untrusted import decode_instruction, is_path_text, read_instruction_bytes

DEFAULT_NAMES = ("GEMINI.md",)
#: How many import levels below a context file the CLI inlines.
GEMINI_IMPORT_DEPTH = 5
GLOBAL_PREFIX = "$GEMINI_CLI_HOME/.gemini"
#: How much of a context file or import is read: the CLI reads files whole, and an `@import` past
#: the harness's usual read cap (`INSTRUCTION_CAP_BYTES`) still loads; this bounds memory only.
WHOLE_FILE_BYTES = 64 * 1024 * 1024
#: Code the CLI leaves alone, found as its own pattern finds it, with the opening run capped at 16
#: backticks: uncapped, a line of 20,000 backticks backtracked for minutes. Runs that long are
#: no Markdown anyone writes; the spans found differ only inside such a run.
_CODE = re.compile(r"(`{1,16})[\s\S]*?\1")
_IMPORT = re.compile(r"(?:^|(?<=[ \t\r\n]))@([.\/A-Za-z][^ \t\r\n]*)")


def context_names(configured: Iterable[str]) -> tuple[str, ...]:
    """The names the CLI looks for: the configured `context.fileName` (trimmed, normalised), then
    `GEMINI.md`, which the setting adds to rather than replaces."""
    names = [os.path.normpath(name.strip()) for name in configured if name.strip()]
    return tuple(dict.fromkeys([*names, *DEFAULT_NAMES]))


def gemini_imports(text: str) -> list[str]:
    """`@path` references the CLI would try to import, in document order."""
    regions = [m.span() for m in _CODE.finditer(text)]
    starts = [start for start, _ in regions]  # disjoint and in order: one lookup per reference

    def in_code(at: int) -> bool:
        index = bisect.bisect_right(starts, at) - 1
        return index >= 0 and at < regions[index][1]
    return [m.group(1) for m in _IMPORT.finditer(text) if not in_code(m.start())]


def _project_root(directory: Path) -> Path:
    """Nearest directory at or above `directory` holding `.git`, else `directory` itself."""
    for candidate in (directory, *directory.parents):
        if os.path.exists(candidate / ".git"):
            return candidate
    return directory


class _Loader:
    """Loads context files and their imports once each, naming them for the result event."""

    def __init__(self, root: Path, home: Path | None, absolute_root: Path | None = None):
        self.root, self.home, self.absolute_root = root, home, absolute_root
        self.files: dict[Path, LoadedFile] = {}
        self.identities: set[tuple[int, int]] = set()

    def name(self, path: Path) -> str | None:
        real = Path(os.path.realpath(path))
        if self.home is not None and path.is_relative_to(self.home / ".gemini"):
            return f"{GLOBAL_PREFIX}/{path.relative_to(self.home / '.gemini').as_posix()}"
        if path.is_relative_to(self.root):
            return path.relative_to(self.root).as_posix()
        return real.relative_to(self.root).as_posix() if real.is_relative_to(self.root) else None

    def identity(self, path: Path) -> tuple[int, int] | None:
        try:
            info = os.stat(path)
        except (OSError, ValueError):
            return None
        return info.st_dev, info.st_ino

    def context_file(self, path: Path) -> None:
        """A discovered context file: sent (with its imports) unless empty or unreadable."""
        key = self.identity(path)
        if key is None or key in self.identities:
            return
        self.identities.add(key)
        data = read_instruction_bytes(path, WHOLE_FILE_BYTES)
        # Whitespace alone sends nothing; past the read bound there is more text.
        if data is None or not (decode_instruction(data).strip() or len(data) >= WHOLE_FILE_BYTES):
            return
        self._load(path, data, True, _project_root(path.parent), frozenset(), 0)

    def _load(self, path: Path, data: bytes, trim: bool, project: Path, seen: frozenset[Path], depth: int) -> None:
        """One file and its imports. A context file's text is sent trimmed, an import's inlined
        as decoded, untrimmed; each `@` reference replaced by what the CLI writes there."""
        name = self.name(path)
        new = name is not None and path not in self.files  # imported twice: reported once
        if new:
            self.files[path] = sent_whole(name, path, data, trim=trim)
        added = self._imports(path, data, project, seen, depth)
        if new and added:
            loaded = self.files[path]
            received = (loaded.bytes_loaded if loaded.received is None else loaded.received) + added
            self.files[path] = replace(loaded, received=None if received == loaded.bytes_loaded else received)

    def _imports(self, path: Path, data: bytes, project: Path, seen: frozenset[Path], depth: int) -> int:
        """Bytes the CLI's text in place of the file's references adds to it (the imported
        files' own text counts as theirs)."""
        if depth >= GEMINI_IMPORT_DEPTH:
            return 0  # the references stay as they are
        added = 0
        for ref in gemini_imports(decode_instruction(data)):
            target = Path(os.path.normpath(path.parent / ref))
            if self.absolute_root is not None and ref.startswith("/") and target.is_relative_to(self.absolute_root):
                target = self.root / target.relative_to(self.absolute_root)  # the copy's file of that name
            if not is_path_text(ref):
                continue
            if ref.startswith(("file://", "http://", "https://")) or _loops(target) or \
                    not Path(os.path.realpath(target)).is_relative_to(os.path.realpath(project)):
                written = import_text.outside(ref)
            elif target in seen:
                written = import_text.repeated(ref)
            else:
                written = import_text.unreadable(ref, str(target))
                imported = read_instruction_bytes(target, WHOLE_FILE_BYTES) if written is None else None
                if imported is not None:
                    written = import_text.imported(ref)
                    self._load(target, imported, False, project, seen | {target}, depth + 1)
                elif written is None:
                    continue  # a FIFO or device: what the CLI would send is not modelled
            added += _utf8(written) - _utf8(f"@{ref}")
        return added


def _loops(path: Path) -> bool:
    """Whether resolving `path` meets a symlink loop (the CLI's real-path lookup then throws)."""
    try:
        os.stat(path)
    except OSError as error:
        return error.errno == errno.ELOOP
    except ValueError:
        return False
    return False


def start_failure(repo_root: Path | str, cwd: Path | str, file_names: Iterable[str] = DEFAULT_NAMES) -> str | None:
    """Why Gemini CLI stops before any request in `cwd`, or None: at start-up it resolves each
    configured context file name in the cwd to its real path, and a symlink loop there throws."""
    here = Path(os.path.realpath(Path(os.path.realpath(repo_root)) / cwd))
    looping = [name for name in context_names(file_names) if _loops(here / name)]
    if not looping:
        return None
    return (f"Gemini CLI stops before any request: {', '.join(looping)} in the working directory "
            f"{'is a symlink loop' if len(looping) == 1 else 'are symlink loops'} (ELOOP resolving its context file names)")


def _utf8(text: str) -> int:
    return len(text.encode("utf-8"))


def _upward(start: Path, stop: Path, names: tuple[str, ...]) -> list[Path]:
    """Existing `names` in each directory from `stop` down to `start`, root first."""
    dirs = [start, *[p for p in start.parents if p.is_relative_to(stop)]]
    return [d / n for d in reversed(dirs) for n in names if os.path.exists(d / n)]


def gemini_sources(repo_root: Path | str, cwd: Path | str, *, file_names: Iterable[str] = DEFAULT_NAMES,
                   home: Path | str | None = None, touched_paths: Iterable[str | Path] = (),
                   absolute_root: Path | str | None = None) -> list[LoadedFile]:
    """The context files Gemini CLI sends for a run in `cwd`, in the order it sends them.
    `absolute_root`: where the repository really is when `repo_root` is a copy of it (absolute
    imports naming a file there load the copy's)."""
    root = Path(os.path.realpath(repo_root))
    here = Path(os.path.realpath(root / cwd))
    names = context_names(file_names)
    loader = _Loader(root, Path(os.path.realpath(home)) if home else None,
                     Path(absolute_root) if absolute_root else None)
    if loader.home is not None:
        for name in names:
            loader.context_file(loader.home / ".gemini" / name)
    project_root = codex_project_root(root, here)
    # Deduplicated by file identity in walk order, then sorted by absolute path.
    walk = _upward(here, project_root, names)
    unique = {loader.identity(p) or p: p for p in reversed(walk)}
    for path in sorted(unique.values(), key=str):
        loader.context_file(path)
    for touched in touched_paths:
        target = Path(os.path.normpath(root / touched))
        if not target.is_relative_to(here):
            continue
        start = target if target.is_dir() else target.parent
        for path in _upward(start, project_root, names):
            loader.context_file(path)
    return list(loader.files.values())
