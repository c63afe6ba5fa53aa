"""Per-task exposure: the instruction bytes a task's agent can load, per arm, from git objects.

Nothing runs an agent. Each arm's instruction files are written into a private directory
(`arm_files.py`), and the agents' own discovery rules (`agents/loading.py`, shared with the
adapters, the reference agent and the lint) say what reaches the agent started in its `cwd`:

* eagerly: what each agent loads at start (the Codex chain cut at its byte budget, Claude's
  memory files with their imports, ...);
* lazily: what it may load once it touches files below `cwd`, whole, counted only for the agents
  whose CLI sends that name lazily: Claude Code's nested memory files, Gemini CLI's just-in-time
  context files, OpenCode's files attached to a read, Cursor's nested AGENTS.md (its
  documentation). Codex loads nothing lazily (its prompt only asks the model to read a nested
  AGENTS.md; the CLI sends the start-up chain alone). Every file below `cwd` counts as touched,
  conservatively;
* path-scoped rules (Copilot's `applyTo`, Cursor's `globs`, Claude Code's `paths`): only when a
  file the task can touch (`touchable`: its cwd's files, its fixture's and solution's paths)
  matches; Cursor's description-only rules count as possibly loaded;
* skills (`agents/skills.py`): every skill an agent lists reaches every task of that agent.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from instruction_gate.agents.codex import discovery as codex_discovery
from instruction_gate.agents.loading import LOADERS, LoadSettings, agents_of, names_of, scoped_reached, skills_reached

@dataclass(frozen=True)
class Discovery:
    """Which discovery rules the evaluated agent follows, and the options that shape them."""

    mode: str = "both"  #: an agent of `agents.loading.LOADERS`, `both` (Codex and Claude Code) or `all`
    codex_budget: int = codex_discovery.CODEX_BUDGET_BYTES
    fallback_names: tuple[str, ...] = ()
    gemini_names: tuple[str, ...] = LoadSettings().gemini_names
    opencode_claude_fallback: bool = True
    #: Why the agent, as configured, may load files these rules cannot predict ('' when it cannot)
    unbounded: str = ""

    @property
    def agents(self) -> tuple[str, ...]:
        return agents_of(self.mode)

    @property
    def settings(self) -> LoadSettings:
        return LoadSettings(self.codex_budget, self.fallback_names, self.gemini_names, self.opencode_claude_fallback)

    @property
    def import_syntaxes(self) -> tuple:
        """How the agents of this mode read `@path` imports (none follow them: no imports)."""
        return tuple(LOADERS[a].imports.parse for a in self.agents if LOADERS[a].imports is not None)

    @property
    def names(self) -> frozenset[str]:
        """Base names an agent of this mode picks up by itself in any directory."""
        return names_of(self.mode, self.settings)


@dataclass(frozen=True)
class Reach:
    """How much of one file can reach the agent: a digest of the eager bytes and of the whole file."""

    eager: str | None  #: sha256 of the bytes loaded at start (a budget may cut them), None when not eager
    lazy: str | None  #: sha256 of the whole file when reachable lazily (below cwd), else None
    eager_bytes: int = 0  #: how many bytes were loaded at start
    #: (agent, how) for each agent that can load it: "at start", "below its cwd", or what pulls a
    #: scoped rule in. Not part of equality: the arms differ only by what the bytes are.
    agents: tuple[tuple[str, str], ...] = field(default=(), compare=False)


Exposure = dict[str, Reach]  #: repository path -> what of it can reach the agent


def _digest(path: Path, limit: int | None = None) -> str:
    with path.open("rb") as handle:
        return hashlib.sha256(handle.read(limit) if limit is not None else handle.read()).hexdigest()


def reachable(root: Path, cwd: str, rules: Discovery, touchable: Iterable[str] | None = None,
              any_file: bool = False) -> Exposure:
    """What of each instruction file under `root` can reach an agent started in `cwd`, and which
    agent loads it how. `touchable`: repository paths the task can touch, for path-scoped rules
    (default: the files under `root` below `cwd`); `any_file`: every scoped rule counts, whatever
    it matches (what could be loaded from `cwd` at all)."""
    cwd = "" if cwd in (".", "") else cwd.strip("/")
    here = root / cwd
    if not here.is_dir():
        here.mkdir(parents=True)  # a cwd without instruction files: the chain above it still counts
    eager: dict[str, int] = {}  # path -> most bytes any of the agents loads at start
    lazy: set[str] = set()
    how: dict[str, dict[str, str]] = {}  # path -> agent -> how it loads it (first reason wins)
    below = [p.relative_to(root).as_posix() for p in here.rglob("*")
             if (p.is_file() or p.is_symlink()) and ".git" not in p.relative_to(root).parts]
    touchable = below if touchable is None else list(touchable)
    for agent in rules.agents:
        loader = LOADERS[agent]
        for f in loader.at_start(root, cwd, rules.settings):
            eager[f.path] = max(eager.get(f.path, 0), f.bytes_loaded)
            how.setdefault(f.path, {}).setdefault(agent, "at start")
        # Files loaded at start may come back here too (whole); harmless, both arms are read alike.
        for f in loader.on_touch(root, cwd, below, rules.settings) if loader.sends_later else ():
            lazy.add(f.path)
            how.setdefault(f.path, {}).setdefault(agent, "below its cwd")
        for rule, why in scoped_reached(agent, root, cwd, None if any_file else touchable):
            lazy.add(rule.path)
            how.setdefault(rule.path, {}).setdefault(agent, why)
        for path, why in skills_reached(agent, root, cwd):  # a skill reaches every task of its agents
            lazy.add(path)
            how.setdefault(path, {}).setdefault(agent, why)
    return {p: Reach(_digest(root / p, eager[p]) if p in eager else None, _digest(root / p) if p in lazy else None,
                     eager.get(p, 0), tuple(sorted(how.get(p, {}).items())))
            for p in sorted({*eager, *lazy})}
