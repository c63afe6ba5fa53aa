"""Each agent's instruction-loading rules behind one interface.

Everything that reasons about what reaches an agent without running it — the reference
agent, `explain`, the lint and impact analysis — asks this registry, so an agent added here
is known to all of them at once. The rules themselves live in `discovery*.py`, shared with
the adapters that report them from real runs.
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

from instruction_gate import globs
from instruction_gate.agents import skills
from instruction_gate.agents.claude import discovery as claude_discovery
from instruction_gate.agents.codex import discovery as codex_discovery
from instruction_gate.agents.copilot import discovery as copilot_discovery
from instruction_gate.agents.cursor import discovery as cursor_discovery
from instruction_gate.agents.discovery import LoadedFile, dirs_root_to_cwd, project_root, resolve
from instruction_gate.agents.gemini.discovery import (
    GEMINI_IMPORT_DEPTH, WHOLE_FILE_BYTES, context_names, gemini_imports, gemini_sources, start_failure as gemini_start_failure,
)
from instruction_gate.agents.gemini.home import workspace_hazards as gemini_hazards
from instruction_gate.agents.opencode.home import workspace_hazards as opencode_hazards
from instruction_gate.agents.opencode.discovery import opencode_names, opencode_sources, read_attachments
from instruction_gate.agents.gemini.adapter import DEFAULT_CONTEXT_FILES
from instruction_gate.agents.scoped_rules import ScopedRule, matches, rules_in
from instruction_gate.untrusted import INSTRUCTION_CAP_BYTES


@dataclass(frozen=True)
class LoadSettings:
    """Adapter options that change what an agent loads."""

    codex_budget: int = codex_discovery.CODEX_BUDGET_BYTES  #: Codex's `project_doc_max_bytes`
    fallback_names: tuple[str, ...] = ()  #: Codex's `project_doc_fallback_filenames`
    #: Gemini CLI's `context.fileName`, as the gemini adapter sets it (its `context_files` option)
    gemini_names: tuple[str, ...] = DEFAULT_CONTEXT_FILES
    #: OpenCode's `CLAUDE.md` fallback (the opencode adapter's `claude_fallback` option)
    opencode_claude_fallback: bool = True
    #: The repository's own absolute path when discovery runs on a private copy of it: an
    #: absolute `@import` naming a file there loads that file of the copy.
    repo_path: str | None = None


@dataclass(frozen=True)
class ImportRules:
    """How an agent inlines `@path` imports found in the files it loads."""

    #: The references in a text the agent tries to import, verbatim, in document order.
    parse: Callable[[str], list[str]]
    #: Whether the agent follows imports in this repository-relative file when it loads it.
    follows: Callable[[str, LoadSettings], bool]
    #: Levels of imported files loaded below a loaded file (an import of an import is level 2).
    max_depth: int
    #: Where a target must lie: "cwd" (at or below the working directory, which is at or below
    #: the directory of the file the agent loaded by name) or "project" (inside the project root).
    scope: str
    #: A failed import is replaced by an error text the model reads (else the `@path` stays as is).
    failure_text: bool
    #: How much of a file is searched for imports (Gemini CLI follows them past the 1 MiB read cap).
    scan_bytes: int = INSTRUCTION_CAP_BYTES


def _claude_follows(path: str, settings: LoadSettings) -> bool:
    parts = path.split("/")
    return parts[-1] in ("CLAUDE.md", "CLAUDE.local.md") or (
        path.endswith(".md") and ".claude" in parts and "rules" in parts[parts.index(".claude"):])


CLAUDE_IMPORTS = ImportRules(claude_discovery.claude_imports, _claude_follows, claude_discovery.CLAUDE_IMPORT_HOPS,
                             scope="cwd", failure_text=False)
GEMINI_IMPORTS = ImportRules(gemini_imports, lambda p, s: p.rsplit("/", 1)[-1] in context_names(s.gemini_names),
                             GEMINI_IMPORT_DEPTH, scope="project", failure_text=True, scan_bytes=WHOLE_FILE_BYTES)


@dataclass(frozen=True)
class Loader:
    """How one agent finds its instruction files in a checked-out tree."""

    agent: str
    label: str  #: the product's name, for people
    #: Base names the agent loads by itself in any directory it considers.
    names: Callable[[LoadSettings], frozenset[str]]
    #: The files loaded at start in `cwd`, in the order the agent sends them, cut where it cuts.
    at_start: Callable[[Path, str, LoadSettings], list[LoadedFile]]
    #: Files the agent may load later, whole, once it touches files below `cwd` (`touched`:
    #: repository-relative paths). Never the start-up files unless they come back whole.
    on_touch: Callable[[Path, str, list[str], LoadSettings], list[LoadedFile]]
    #: The start-up chain is cut by a byte budget the agent enforces itself.
    budgeted: bool = False
    #: How loaded files' `@path` imports are followed; None when they are plain text.
    imports: ImportRules | None = None
    #: How a file of `on_touch` reaches the model, for people (`{where}`: its directory).
    later_how: str = "later: once the agent touches files in {where}/"
    #: The CLI itself sends the files of `on_touch` (False: only its prompt asks the model to read
    #: them, so they count for `explain` but not for impact analysis).
    sends_later: bool = True
    #: Why the CLI stops before any request when started in `cwd` (its adapter fails the run
    #: and reports no file), or None.
    start_failure: Callable[[Path, str, LoadSettings], str | None] | None = None
    #: Workspace files in `cwd` and above that make its adapter refuse the run unless
    #: `workspace_settings=trust` (repository-relative).
    refused_config: Callable[[Path, str], list[str]] | None = None

    @property
    def follows_imports(self) -> bool:
        return self.imports is not None


_WHOLE = 1 << 30


def _below(path: str, cwd: str) -> bool:
    directory = os.path.dirname(path)
    return directory != cwd and (cwd == "" or directory.startswith(cwd + "/"))


def _cwd(cwd: str) -> str:
    return "" if cwd in (".", "") else cwd.strip("/")


def _codex_touch(root: Path, cwd: str, touched: list[str], settings: LoadSettings) -> list[LoadedFile]:
    # Codex's system prompt tells the model to obey every AGENTS.md whose directory holds a
    # file it edits: each touched file's chain, whole, counts where it lies below `cwd`.
    here = _cwd(cwd)
    found: dict[str, LoadedFile] = {}
    for directory in sorted({os.path.dirname(p) for p in touched if _below(p, here)}):
        for f in codex_discovery.codex_chain(root, directory or ".", _WHOLE, settings.fallback_names):
            if _below(f.path, here):
                found.setdefault(f.path, f)
    return list(found.values())


def _later(sources: Callable[[list[str]], list[LoadedFile]], cwd: str, touched: list[str]) -> list[LoadedFile]:
    """What `sources(touched)` adds to `sources([])`, plus whatever of it lies below `cwd`."""
    at_start = {f.path for f in sources([])}
    here = _cwd(cwd)
    return [f for f in sources(touched) if f.path not in at_start or _below(f.path, here)]


def _claude_touch(root: Path, cwd: str, touched: list[str], settings: LoadSettings) -> list[LoadedFile]:
    return _later(lambda t: claude_discovery.claude_sources(root, cwd or ".", t), cwd, touched)


def _gemini(root: Path, cwd: str, settings: LoadSettings, touched: list[str] = ()) -> list[LoadedFile]:
    return gemini_sources(root, cwd or ".", file_names=settings.gemini_names, touched_paths=touched,
                          absolute_root=settings.repo_path)


def _gemini_touch(root: Path, cwd: str, touched: list[str], settings: LoadSettings) -> list[LoadedFile]:
    # Gemini CLI adds a subdirectory's context files just in time, when a tool touches it.
    return _later(lambda t: _gemini(root, cwd, settings, t), cwd, touched)


def _opencode(root: Path, cwd: str, settings: LoadSettings, touched: list[str] = ()) -> list[LoadedFile]:
    fallback = settings.opencode_claude_fallback
    return opencode_sources(root, cwd or ".", claude_fallback=fallback,
                            attached=read_attachments(root, cwd or ".", touched, claude_fallback=fallback))


def _opencode_touch(root: Path, cwd: str, touched: list[str], settings: LoadSettings) -> list[LoadedFile]:
    # OpenCode attaches a subdirectory's instruction file to the result of reading a file there.
    return _later(lambda t: _opencode(root, cwd, settings, t), cwd, touched)


LOADERS: dict[str, Loader] = {
    "codex": Loader(
        "codex", "Codex",
        names=lambda s: frozenset({*codex_discovery.CODEX_NAMES, *s.fallback_names}),
        at_start=lambda root, cwd, s: codex_discovery.codex_chain(root, cwd or ".", s.codex_budget, s.fallback_names),
        on_touch=_codex_touch, budgeted=True, sends_later=False,
        # The CLI sends only the start-up chain; its system prompt asks the model to follow the
        # AGENTS.md of directories it edits, which it may or may not open.
        later_how="may be read by the model once it edits files in {where}/: Codex's prompt asks it to; "
                  "not sent by the CLI"),
    "claude": Loader(
        "claude", "Claude Code",
        names=lambda s: frozenset(Path(n).name for n in claude_discovery.CLAUDE_NAMES),
        at_start=lambda root, cwd, s: claude_discovery.claude_sources(root, cwd or "."),
        on_touch=_claude_touch, imports=CLAUDE_IMPORTS),
    "gemini": Loader(
        "gemini", "Gemini CLI",
        names=lambda s: frozenset(Path(n).name for n in context_names(s.gemini_names)),
        at_start=_gemini, on_touch=_gemini_touch, imports=GEMINI_IMPORTS,
        start_failure=lambda root, cwd, s: gemini_start_failure(root, cwd or ".", s.gemini_names),
        refused_config=lambda root, cwd: gemini_hazards(root, root / cwd)),
    "opencode": Loader(
        "opencode", "OpenCode",
        names=lambda s: frozenset(opencode_names(s.opencode_claude_fallback)),
        at_start=_opencode, on_touch=_opencode_touch,
        refused_config=lambda root, cwd: opencode_hazards(root, root / cwd)),
    "copilot": Loader(
        "copilot", "GitHub Copilot CLI",
        names=lambda s: frozenset(copilot_discovery.AGENT_NAMES),
        at_start=lambda root, cwd, s: copilot_discovery.copilot_start(root, cwd or "."),
        # The CLI sends the instruction files of a file's directories up to the git root when its
        # `view` tool opens the file, below the cwd or not (`.instructions.md` files: `SCOPED`).
        on_touch=lambda root, cwd, touched, s: copilot_discovery.copilot_later(root, cwd or ".", touched),
        # Its `@path` imports are in `copilot_start`'s answer; the lint's import rule (IG003) does not
        # model them yet (absolute paths and trailing punctuation differ from Claude Code's).
        later_how="later: once the agent opens a file in {where}/"),
    "cursor": Loader(
        "cursor", "Cursor (from its documentation, not verified live)",
        names=lambda s: frozenset(cursor_discovery.CURSOR_NAMES),
        at_start=lambda root, cwd, s: cursor_discovery.cursor_sources(root, cwd or "."),
        on_touch=lambda root, cwd, touched, s: cursor_discovery.cursor_later(root, cwd or ".", touched),
        later_how="later: once the agent works on files in {where}/ (Cursor's documentation)"),
}

#: Discovery modes: one agent's rules, `both` (Codex and Claude Code, the default of the
#: reference agent since the first release) or `all` (any agent's file counts).
GROUPS: dict[str, tuple[str, ...]] = {"both": ("codex", "claude"), "all": tuple(LOADERS)}
MODES: tuple[str, ...] = (*LOADERS, *GROUPS)


def agents_of(mode: str) -> tuple[str, ...]:
    """The agents whose rules a discovery mode follows."""
    if mode in GROUPS:
        return GROUPS[mode]
    if mode in LOADERS:
        return (mode,)
    raise ValueError(f"unknown discovery mode {mode!r}; known: {', '.join(MODES)}")


def names_of(mode: str, settings: LoadSettings = LoadSettings()) -> frozenset[str]:
    """Base names any agent of `mode` picks up by itself."""
    return frozenset().union(*(LOADERS[a].names(settings) for a in agents_of(mode)))


def start_files(root: Path, cwd: str, mode: str, settings: LoadSettings = LoadSettings()) -> list[LoadedFile]:
    """The start-up files of every agent of `mode`, each path once (first agent's account wins)."""
    seen: dict[str, LoadedFile] = {}
    for agent in agents_of(mode):
        for f in LOADERS[agent].at_start(root, cwd, settings):
            seen.setdefault(f.path, f)
    return list(seen.values())


def importing_agents(path: str, settings: LoadSettings = LoadSettings()) -> tuple[str, ...]:
    """The agents that follow `@path` imports in a file at `path` when they load it."""
    return tuple(a for a, loader in LOADERS.items() if loader.imports and loader.imports.follows(path, settings))


# -- Path-scoped rules and where the formats live ----------------------------------------------

def _claude_scoped(root: Path, cwd: str) -> list[ScopedRule]:
    # `.claude/rules/*.md` with `paths:` front matter: loaded when the agent reads a matching file.
    real, here = resolve(root, cwd or ".")
    return [r for d in dirs_root_to_cwd(real, here) for r in rules_in(real, d, (".claude", "rules"), ".md", "claude")
            if r.activation == "files"]


def _copilot_scoped(root: Path, cwd: str) -> list[ScopedRule]:
    # `.github/instructions/**/*.instructions.md` of the repository root and of the working
    # directory: listed up front by `applyTo`, their text sent once a tool touches a matching file.
    real, here = resolve(root, cwd or ".")
    folders = dict.fromkeys([project_root(real, here), here])
    return [r for d in folders for r in rules_in(real, d, (".github", "instructions"), ".instructions.md", "copilot")
            if r.activation == "files"]


#: Agent -> the rule files it loads only when it touches a file their patterns match (or, for
#: Cursor's description-only rules, when the model asks for one), from the root to `cwd` and
#: below. Kept apart from `Loader.on_touch` so `explain`, the lint and impact analysis can say
#: which files pull each one in. An agent without an entry has no such rules.
SCOPED: dict[str, Callable[[Path, str], list[ScopedRule]]] = {
    "claude": _claude_scoped,
    "copilot": _copilot_scoped,
    "cursor": lambda root, cwd: cursor_discovery.cursor_scoped(root, cwd or "."),
}


def scoped_rules(agent: str, root: Path, cwd: str) -> list[ScopedRule]:
    """The path-scoped rules `agent` may load for a task started in `cwd` (none without `SCOPED`)."""
    finder = SCOPED.get(agent)
    return finder(root, cwd) if finder else []


def scoped_reached(agent: str, root: Path, cwd: str, touchable: Iterable[str] | None) -> list[tuple[ScopedRule, str]]:
    """Rules of `agent` a task can pull in, each with why: the first of `touchable` (repository paths
    the task can touch; None: any file) its patterns match, or its description (the model may choose it)."""
    paths = None if touchable is None else list(touchable)
    out = []
    for rule in scoped_rules(agent, root, cwd):
        if rule.activation == "model":
            out.append((rule, f"may pull in {rule.path} by its description"))
        elif paths is None:
            out.append((rule, f"loads {rule.path} when it touches files matching {', '.join(rule.patterns)}"))
        elif (hit := next((p for p in paths if matches(rule, p)), None)) is not None:
            out.append((rule, f"loads {rule.path} when it touches {hit} ({', '.join(rule.patterns)})"))
    return out


def skills_reached(agent: str, root: Path, cwd: str) -> list[tuple[str, str]]:
    """(SKILL.md path, how) for each skill `agent` lists for a task in `cwd` (`agents/skills.py`, verified
    live per agent): its description at start, its body once invoked, so any task of the agent can see it."""
    return [(s.path, f"lists skill {s.listed_name} ({s.path}) at start; its body loads when invoked")
            for s in skills.skill_files(root, agent, cwd or ".")]


#: Where an agent's own formats live, beside the base names of `Loader.names` (root-anchored globs).
_FORMAT_AGENTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("**/.github/copilot-instructions.md", ("copilot",)),
    ("**/.github/instructions/**/*.instructions.md", ("copilot",)),
    ("**/.cursor/rules/**/*.mdc", ("cursor",)), (".cursorrules", ("cursor",)),
    ("**/.claude/CLAUDE.md", ("claude",)), ("**/.claude/rules/**/*.md", ("claude",)),
)


def _skill_glob(directory: str) -> str:
    return f"**/{directory}/**/SKILL.md"


#: Instruction files found by where they are rather than by a base name: the formats above, then
#: skills (`agents/skills.py`: a description listed at start, the body on invocation).
FORMAT_GLOBS: tuple[str, ...] = (
    *(pattern for pattern, _ in _FORMAT_AGENTS),
    *(_skill_glob(d) for d in dict.fromkeys(d for rules in skills.SKILL_AGENTS.values() for d in rules.directories)),
)

#: `instruction_paths` for a new suite: every format a known agent loads, wherever it is.
DEFAULT_INSTRUCTION_PATHS: tuple[str, ...] = (
    "**/AGENTS.md", "**/AGENTS.override.md", "**/CLAUDE.md", "**/CLAUDE.local.md", "**/GEMINI.md", *FORMAT_GLOBS,
)


def is_instruction_file(path: str, settings: LoadSettings = LoadSettings()) -> bool:
    """A file some known agent loads by itself: by base name, or by where it is (`FORMAT_GLOBS`)."""
    return bool(loading_agents(path, settings))


def loading_agents(path: str, settings: LoadSettings = LoadSettings()) -> tuple[str, ...]:
    """The agents that load `path` by themselves (by base name, by their format's place, or as a
    skill), in registry order: who could see a change to it."""
    found = {a for a, loader in LOADERS.items() if posixpath.basename(path) in loader.names(settings)}
    found.update(a for pattern, agents in _FORMAT_AGENTS if globs.matches_any(path, (pattern,)) for a in agents)
    if posixpath.basename(path) == "SKILL.md":
        found.update(a for a, rules in skills.SKILL_AGENTS.items()
                     if globs.matches_any(path, tuple(_skill_glob(d) for d in rules.directories)))
    return tuple(a for a in LOADERS if a in found)
