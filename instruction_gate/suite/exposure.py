"""Per-task exposure: the instruction bytes a task's agent can load, per arm, from git objects.

Nothing runs an agent. Each arm's instruction files are written into a private directory
(`arm_files.py`), and the agents' own discovery rules (`agents/discovery.py`, shared with the
adapters, the reference agent and the lint) say what reaches the agent started in its `cwd`:

* eagerly: the Codex chain (cut at its byte budget) and Claude's start-up memory files with
  their imports;
* lazily: every instruction file below `cwd`, whole. Claude Code loads a subdirectory's
  memory files when it reads a file there; Codex's system prompt tells the model to obey every
  AGENTS.md whose directory holds a file it edits. Both are taken as reachable, conservatively.
"""

from __future__ import annotations

import hashlib
import posixpath
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from instruction_gate.agents import discovery

#: Discovery modes: which agents' rules a task's exposure follows ("both": either may load it).
MODES = ("codex", "claude", "both")
#: A budget larger than any instruction file: lazily read files are read whole.
_WHOLE = 1 << 30


@dataclass(frozen=True)
class Discovery:
    """Which discovery rules the evaluated agent follows, and the options that shape them."""

    mode: str = "both"  #: codex | claude | both
    codex_budget: int = discovery.CODEX_BUDGET_BYTES
    fallback_names: tuple[str, ...] = ()

    @property
    def agents(self) -> tuple[str, ...]:
        return ("codex", "claude") if self.mode == "both" else (self.mode,)

    @property
    def names(self) -> frozenset[str]:
        """Base names an agent of this mode picks up by itself in any directory."""
        return frozenset({*discovery.CODEX_NAMES, *self.fallback_names,
                          *(PurePosixPath(n).name for n in discovery.CLAUDE_NAMES)})


@dataclass(frozen=True)
class Reach:
    """How much of one file can reach the agent: a digest of the eager bytes and of the whole file."""

    eager: str | None  #: sha256 of the bytes loaded at start (a budget may cut them), None when not eager
    lazy: str | None  #: sha256 of the whole file when reachable lazily (below cwd), else None
    eager_bytes: int = 0  #: how many bytes were loaded at start


Exposure = dict[str, Reach]  #: repository path -> what of it can reach the agent


def _digest(path: Path, limit: int | None = None) -> str:
    with path.open("rb") as handle:
        return hashlib.sha256(handle.read(limit) if limit is not None else handle.read()).hexdigest()


def reachable(root: Path, cwd: str, rules: Discovery) -> Exposure:
    """What of each instruction file under `root` can reach an agent started in `cwd`."""
    cwd = "" if cwd in (".", "") else cwd.strip("/")
    here = root / cwd
    if not here.is_dir():
        here.mkdir(parents=True)  # a cwd without instruction files: the chain above it still counts
    eager: dict[str, int] = {}  # path -> most bytes any of the agents loads at start
    lazy: set[str] = set()
    for agent in rules.agents:
        if agent == "codex":
            for f in discovery.codex_chain(root, cwd or ".", rules.codex_budget, rules.fallback_names):
                eager[f.path] = max(eager.get(f.path, 0), f.bytes_loaded)
            for directory in _subdirectories(here):
                lazy.update(f.path for f in discovery.codex_chain(root, directory, _WHOLE, rules.fallback_names)
                            if _below(f.path, cwd))
        else:
            for f in discovery.claude_sources(root, cwd or "."):
                eager[f.path] = max(eager.get(f.path, 0), f.bytes_loaded)
            below = [p.relative_to(root).as_posix() for p in here.rglob("*") if p.is_file() or p.is_symlink()]
            # Files loaded at start come back here too (whole); harmless, both arms are read alike.
            lazy.update(f.path for f in discovery.claude_sources(root, cwd or ".", below) if f.path not in eager
                        or _below(f.path, cwd) or eager[f.path] < f.size)
    return {p: Reach(_digest(root / p, eager[p]) if p in eager else None, _digest(root / p) if p in lazy else None,
                     eager.get(p, 0)) for p in sorted({*eager, *lazy})}


def _subdirectories(here: Path) -> list[Path]:
    return sorted(p for p in here.rglob("*") if p.is_dir() and ".git" not in p.parts)


def _below(path: str, cwd: str) -> bool:
    directory = posixpath.dirname(path)
    return directory != cwd and (cwd == "" or directory.startswith(cwd + "/"))


