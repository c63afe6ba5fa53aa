"""Where each agent's `@path` imports lead in one revision, and why one does not load.

One walk per agent and per file it loads by name, breadth first (the shortest chain decides
the depth), by the agent's own `ImportRules` from the registry. The lint (IG003, IG012), the
chain builder and `explain` all read these records, so they never disagree about an import.
"""

from __future__ import annotations

import posixpath
import re
from collections import deque
from dataclasses import dataclass
from typing import Iterable, Iterator

from instruction_gate.agents.loading import LOADERS, LoadSettings, importing_agents
from instruction_gate.lint.tree import Tree, directories, real_path, resolve
from instruction_gate.untrusted import INSTRUCTION_CAP_BYTES, decode_instruction, is_path_text

_PUNCTUATION = ".,;:!?)]}'\""
#: An npm scoped package (`@bunli/core` -> `bunli/core`): lower case, one slash, no extension. When
#: no such directory holds it, it is a mention of the package, not a path to a missing file.
_PACKAGE = re.compile(r"^[a-z0-9][a-z0-9_-]*/[a-z0-9][a-z0-9_-]*$")
#: Words people write after `@` expecting an include directive; no agent has one.
_DIRECTIVES = ("import", "include")


@dataclass(frozen=True)
class Import:
    """One `@reference` as one agent meets it."""

    agent: str
    root: str  #: the file the agent loaded by name
    source: str  #: the file the reference is written in (its real repository path)
    ref: str  #: verbatim
    named: str | None  #: the repository path it names, before symlinks are followed
    target: str | None  #: the real repository path it names, None when that is outside
    #: None when the agent loads it; else control, outside, loop (links that never end), missing, punctuation,
    #: scope, depth, mention (no path shape: no slash, no extension; or an npm package, `@scope/name`) or
    #: directive (`@import x.md`)
    problem: str | None
    depth: int  #: import level of the target below `root`

    @property
    def base(self) -> str:
        return self.ref.rstrip(_PUNCTUATION) or self.ref


#: Why an import does not load, in a few words (for `explain`).
REASONS = {
    "control": "a control character in it names no file", "outside": "outside the repository",
    "loop": "a symlink loop",
    "missing": "no such file", "punctuation": "the trailing punctuation is read as part of the path",
    "scope": "outside the working directory", "depth": "past the agent's import depth limit",
    "mention": "names no file: a mention?",
    "directive": "`@import` is not import syntax",
}


class _Files:
    """Existence and contents of one tree's paths, symlinked directories resolved."""

    def __init__(self, tree: Tree):
        self.tree = tree
        #: Where the repository is on this machine: an absolute import naming a file there loads it.
        where = getattr(tree, "root", None) or getattr(tree, "repo", None)
        self.absolute_root = posixpath.normpath(str(where)) if where is not None and str(where).startswith("/") else None
        self.files = tree.files()
        self.dirs = directories(self.files)

    def real(self, path: str) -> str | None:
        return real_path(path, self.tree.link_target)

    def exists(self, path: str | None) -> bool:
        return path is not None and (path in self.files or path in self.dirs)

    def text(self, path: str, limit: int = INSTRUCTION_CAP_BYTES) -> str | None:
        data = self.tree.read(path)
        return None if data is None else decode_instruction(data[:limit])


def _named(importer: str, ref: str, absolute_root: str | None = None) -> str | None:
    if absolute_root and ref.startswith(absolute_root + "/"):
        joined = posixpath.normpath(ref[len(absolute_root) + 1:])  # this repository's file, spelled absolute
    elif ref.startswith(("~", "/")):
        return None  # the home directory or another absolute path: never a file of this revision
    else:
        joined = posixpath.normpath(posixpath.join(posixpath.dirname(importer), ref))
    return None if joined == ".." or joined.startswith("../") else joined.removeprefix("./")


def _problem(files: _Files, importer: str, ref: str, root: str, scope: str) -> tuple[str | None, str | None, str | None]:
    """(problem, named path, real path) of one reference."""
    base = ref.rstrip(_PUNCTUATION) or ref
    if not is_path_text(ref):
        return "control", None, None
    if base in _DIRECTIVES:
        return "directive", None, None
    if _path_alias(files, base):
        return "alias", None, None
    named = _named(importer, ref, files.absolute_root)
    real = files.real(named) if named is not None else None
    if not files.exists(real):
        named = _named(importer, base, files.absolute_root)
        real = files.real(named) if named is not None else None
        if named is None or real is None:
            looped = named is not None and resolve(named, files.tree.link_target).problem == "loop"
            return ("loop" if looped else "outside"), named, None
        if not files.exists(real):
            shapeless = "/" not in base and "." not in base
            mention = shapeless or (_PACKAGE.match(base) and not files.exists(posixpath.dirname(named)))
            return ("mention" if mention else "missing"), named, real
        if base != ref:
            return "punctuation", named, real
    if scope == "cwd" and not _inside(home_directory(root), named):
        return "scope", named, real
    return None, named, real


def _path_alias(files: _Files, ref: str) -> bool:
    """`@/lib/utils` (ref `/lib/utils`): the `@/` alias bundlers map to a source root, naming a module
    that is in this tree below some directory (`src/lib/utils.ts`), with or without its extension.
    An absolute path to anything else (`@/etc/hosts`) is still an import from outside."""
    if not ref.startswith("/") or ref.startswith("//") or len(ref) < 2:
        return False
    tail = ref.rstrip("/")
    return any(("/" + d).endswith(tail) for d in files.dirs) or any(
        ("/" + f).endswith(tail) or ("/" + f).rsplit(".", 1)[0].endswith(tail) for f in files.files)


def home_directory(path: str) -> str:
    """The directory a file is loaded for: its own, or the one holding its `.claude/` folder."""
    parts = path.split("/")[:-1]
    return "/".join(parts[:parts.index(".claude")] if ".claude" in parts else parts)


def _inside(directory: str, path: str) -> bool:
    return not directory or path.startswith(directory + "/")


def walk(files: _Files, agent: str, root: str) -> Iterator[Import]:
    """Every reference `agent` meets loading `root` and what it imports, within its depth limit."""
    rules = LOADERS[agent].imports
    start = files.real(root) or root
    depth = {start: 0}
    queue = deque([(root, start)])
    while queue:
        named_path, real = queue.popleft()
        text = files.text(real, rules.scan_bytes)
        for ref in rules.parse(text) if text is not None else ():
            problem, named, target = _problem(files, named_path, ref, root, rules.scope)
            if problem == "alias":
                continue  # a TypeScript path alias naming a module of this tree, not an import
            level = depth[real] + 1
            if problem is None and depth[real] >= rules.max_depth:
                if target in depth:
                    continue  # already loaded through a shorter chain
                problem = "depth"
            elif depth[real] >= rules.max_depth:
                continue  # the agent never gets this far, so it never fails here
            yield Import(agent, root, real, ref, named, target, problem, level)
            if problem is None and target not in depth:
                depth[target] = level
                queue.append((named, target))


def imports(tree: Tree, roots: Iterable[str], settings: LoadSettings = LoadSettings()) -> list[Import]:
    """The references every importing agent meets, starting from the files in `roots` it loads by name."""
    files = _Files(tree)
    return [found for root in sorted(set(roots)) for agent in importing_agents(root, settings)
            for found in walk(files, agent, root)]


def loaded(found: Iterable[Import]) -> dict[str, str]:
    """Named path -> real path of every file an import loads."""
    return {i.named: i.target for i in found if i.problem is None and i.named and i.target}
