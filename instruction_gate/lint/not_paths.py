"""Names in code spans that look like paths but are not this repository's files (IG002 leaves them alone).

Branches, headers, extensions, git refs, function arities, example and placeholder segments, code
identifiers, other repositories' files, naming-style samples, illustrations, things a tool or the
reader makes, contrasts, served URLs and owner/name repositories.
"""

from __future__ import annotations

import bisect
import re

from instruction_gate.lint import generated, illustrations, markdown, placeholders
from instruction_gate.lint.context import LintContext
from instruction_gate.lint.references import Reference


#: Prose about branches names them in code spans: `feature/new-cli-command` is not a path.
_BRANCH = re.compile(r"\bbranch(?:es)?\b", re.IGNORECASE)
#: Bare header names (`stdarg.h`) are the system's or a dependency's, found by the compiler.
_HEADER = re.compile(r"^[\w\-.]+\.(h|hh|hpp|hxx)$")


#: Prose about repositories names them as owner/name: `acme/widgets` is a repository, not a path.
_REPOSITORY = re.compile(r"\b(?:repo|repos|repository|repositories|fork|forks|upstream|github|gitlab|"
                         r"organi[sz]ations?|org|package|packages|crate|crates|module|"
                         r"docker|podman|images?|containers?)\b", re.IGNORECASE)  # an image: `owner/tool`
_OWNER_NAME = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
#: A file extension named alone (`.py`, `.md`) speaks of a kind of file, not of a file.
_BARE_EXTENSION = re.compile(r"^\*?(?:\.[A-Za-z0-9]{1,6}){1,2}$")
#: A git ref (`refs/heads/main`, `refs/tags/v1.2`): a name in the repository's history, not a file.
_GIT_REF = re.compile(r"^refs/(?:heads|tags|remotes|pull|notes)/")
#: A name with an arity (`GenServer.call/3`, `dbg/1`): a function, not a path.
_ARITY = re.compile(r"/\d+$")
#: Example paths: `tests/specs/my_feature/`, `src/your_module.py`, `foo/bar`, `path/to/test.py`.
_EXAMPLE_SEGMENT = re.compile(r"(?:^|/)path/to/|(?:^|/)(?:my|your|some|example|sample)[_-]\w+|(?:^|/)(?:foo|bar|baz|xxx)(?:/|\.|$)|(?:^|/|_)(?:foo|baz|xxx)[_-]|_(?:foo|baz|xxx)\."
                              r"|(?i:(?:^|/)(?:kebab-case|camel-?case|pascal-?case|snake_case)(?![a-z0-9]))"  # a naming style
                              # `test_specific_test.py`, `test_action_EventNameHere.py`: a name to fill in
                              r"|[_-](?:specific|example|sample)[_-]|[a-z0-9](?:Here|HERE)(?=[._-]|$)")
#: "`settings.profile.tsx` → `/settings/profile`": a file name shown with the URL it becomes, a convention.
_MAPPED_TO_URL = re.compile(r"`[^`]+`\s*(?:→|->|=>)\s*`/")


#: A sentence placing a file in another repository.
_OTHER_REPOSITORY = re.compile(r"\b(?:in|from|of)\s+(?:that|the\s+other|another|the\s+upstream|their)\s+"
                               r"(?:repo|repository|project)\b", re.IGNORECASE)
#: "install it inside Fabric (in `Resources/builtin/`, …)", "on the server (`/srv/app/`)": a place in another
#: system, named just before the path.
_OTHER_SYSTEM = re.compile(r"\b(?:inside|within|on|in)\s+(?:the\s+|a\s+|an\s+)?(?:(?:docker\s+)?containers?|servers?|"
                           r"vms?|virtual\s+machines?|clusters?|devices?|hosts?|pods?|remote\s+\w+|[A-Z][\w-]*)\s*"
                           r"[(,—–]\s*(?:in|at|under|into)?\s*$")
#: A sentence about naming: a bare file name in it shows the style (`snake_case` (e.g., `abstract_operator.cpp`)).
_NAMING = re.compile(r"(?i)\bnaming(?:\s+conventions?)?\b")
#: "Directories: lowercase with dashes (`components/auth-wizard/`)": a path shown as a name's shape.
_NAME_SHAPE = re.compile(r"(?i)\b(?:lower-?case|upper-?case|with\s+(?:dashes|hyphens|underscores)|"
                         r"snake_case|kebab-case|camel-?case|pascal-?case)\b")
#: "Runtime or generated dirs: `_build/`, `log/`": places a run creates, listed so they are left alone.
_RUNTIME_LIST = re.compile(r"(?i)\b(?:runtime|generated|build\s+outputs?|temporary|local|cache)\s+"
                           r"(?:or\s+\w+\s+)?(?:dirs?|directories|folders|files|artifacts)\b")
#: "Do not commit `.venv/`", "Keep artifacts out of git": what the sentence keeps out of the repository is
#: absent from it by design.
_KEPT_OUT_OF_GIT = re.compile(r"(?i)\b(?:(?:do\s+not|don't|never|must\s+not|should\s+not)\s+(?:ever\s+)?"
                              r"(?:commit|check\s+in|add\s+(?:\w+\s+)?to\s+(?:git|the\s+repo(?:sitory)?))|"
                              r"out\s+of\s+(?:git|version\s+control|the\s+repo(?:sitory)?)|git-?ignored|untracked)\b")
#: "`Fixture/`, `Source/`, `Expected/` directories are skipped": names any directory may have, not paths.
_DIRECTORY_NAMES = re.compile(r"(?:[\s,]*(?:(?:and|or)\s+)?`[^`/]+/?`)*[\s,]*(?:directories|folders|dirs)\b")
#: A sentence about a running server or browser: `.html` paths in it are URLs, not files.
_SERVED = re.compile(r"\b(?:dev\s+server|server|browser|localhost|url)\b", re.IGNORECASE)


#: Words that introduce an illustration: a missing path after them is an example, not a stale reference.
_EXAMPLE_INTRO = re.compile(r"\b(?:e\.g\.|eg\.|for\s+example|for\s+instance|such\s+as|like)(?:\s|$)", re.IGNORECASE)
#: "(e.g., `tools/release.rb`)": an example that still names this repository's place when its first directory
#: exists here (a stale file in `tools/`), and a scheme for places that may not exist otherwise.
_EXAMPLE_COMMA = re.compile(r"\b(?:e\.g\.|eg\.|for\s+example|for\s+instance),\s*$", re.IGNORECASE)
_CLAUSE_END = re.compile(r"(?<!e\.g)(?<!i\.e)[.!?;]\s")


def _clause_before(prose: str, offset: int) -> str:
    """The sentence that holds `offset`, up to it ("e.g." and "i.e." do not end a sentence)."""
    before = prose[:max(offset, 0)]
    ends = [m.end() for m in _CLAUSE_END.finditer(before)]
    return before[ends[-1] if ends else 0:]


def _sentence_around(prose: str, offset: int) -> str:
    starts = [0] + [m.end() for m in re.finditer(r"[.!?;]\s", prose[:max(offset, 0)])]
    end = re.search(r"[.!?;](?:\s|$)", prose[max(offset, 0):])
    return prose[starts[-1]:offset + end.end() if end else len(prose)]


#: A piece of a file name (`_test.rb`, `-config.json`): a suffix the text describes, not a file.
_NAME_FRAGMENT = re.compile(r"^[_-][\w.-]+$")
#: "(NOT `spec/`)", "instead of `lib/old.rb`": a contrast naming the path as what the project does not use.
_NEGATED = re.compile(r"(?i)(?:\(\s*(?:not|no)|\binstead\s+of|\brather\s+than)\W*$")


#: `Rails/AssertNot`, `Style/StringLiterals`: a namespaced name in PascalCase (a RuboCop cop, a module).
_PASCAL_PATH = re.compile(r"^[A-Z][a-z0-9]+\w*(?:/[A-Z][a-z0-9]+\w*)+$")


def _identifier_path(ref: Reference, ctx: LintContext) -> bool:
    """A name shaped like a path that names code, not a file: a namespaced PascalCase name, or in a Go
    module a package import path (`testify/mock`, `x/tools/go/packages`), next to a composer.json a
    Composer package (`symfony/mcp-bundle`). Only when its first segment
    names nothing in the repository, so a stale path of this tree is still a stale path."""
    name = ref.name
    if "/" not in name or name.endswith("/") or name.startswith((".", "/")) or "." in name.rsplit("/", 1)[-1]:
        return False
    first = name.split("/", 1)[0]
    if first in ctx.dirs or first in ctx.basenames or any(d.rsplit("/", 1)[-1] == first for d in ctx.dirs):
        return False
    if name.islower() and name.count("/") == 1 and "composer.json" in ctx.basenames:
        return True  # Composer names every package vendor/name: `symfony/mcp-bundle`
    return bool(_PASCAL_PATH.match(name)) or (name.islower() and "go.mod" in ctx.basenames)


#: Words right after a name saying the file is made for the task and removed again.
_TEMPORARY = re.compile(r"(?i)[\s,]*(?:\(?(?:a\s+)?temporary\b|(?:file\s+|scratch\s+file\s+)?(?:that|which)\s+(?:you\s+)?"
                        r"(?:can|should|must|will|may)\s+(?:be\s+)?(?:deleted?|removed?)\b)")


#: A bare file name the sentence forbids using or committing: absent from the tree on purpose.
_PROHIBITED_USE = re.compile(r"(?i)\b(?:do\s+not|don'?t|never|must\s+not)\s+(?:use|read|open|load|commit|add|copy|check\s+in)\b")
#: A sentence placing a bare file name outside the repository: an agent's memory, the user's machine.
_ELSEWHERE = re.compile(r"(?i)\b(?:user-specific|per-user|personal|your\s+(?:machine|home|computer)|home\s+directory|"
                        r"outside\s+(?:the|this)\s+(?:repo|repository|project)|memory|"
                        r"(?:does\s+not|doesn't|don't|do\s+not)\s+belong\s+in\s+(?:the|this)\s+(?:repo|repository|project))\b")


def not_a_path(ref: Reference, text: str, lines: tuple[markdown.Line, ...], ctx: LintContext) -> bool:
    if _HEADER.match(ref.name) or _BARE_EXTENSION.match(ref.name) or _ARITY.search(ref.name) or \
            _EXAMPLE_SEGMENT.search(ref.name) or placeholders.GENERIC_SEGMENT.search(ref.name) or \
            _NAME_FRAGMENT.match(ref.name) or _identifier_path(ref, ctx) or \
            (_GIT_REF.match(ref.name) and "refs" not in ctx.dirs):
        return True
    line = lines[ref.line - 1]
    if illustrations.code_name(ref.name, ctx.dirs) or illustrations.illustration(ref.name, lines, ref.line - 1, ref.column) or \
            illustrations.quoted_value(ref.name, line.text, ref.column, ctx.dirs):
        return True
    if lines[ref.line - 1].in_code:
        return False
    offset = lines[ref.line - 1].start + ref.column
    found = markdown.blocks(text)
    index = bisect.bisect_right([b.start for b in found], offset) - 1
    block = found[index] if index >= 0 and found[index].start <= offset < found[index].end else None
    prose = text[block.start:block.end] if block is not None else ""
    if _BRANCH.search(prose) and "." not in ref.name.rsplit("/", 1)[-1]:
        return True
    sentence = _sentence_around(prose, offset - (block.start if block is not None else 0))
    if _OTHER_REPOSITORY.search(sentence):
        return True  # "see `docs/x.md` in that repo": another repository's file
    if ("/" not in ref.name and _NAMING.search(sentence)) or _NAME_SHAPE.search(sentence):
        return True  # a file name showing a naming style, not a file of this tree
    if _RUNTIME_LIST.search(sentence) or _KEPT_OUT_OF_GIT.search(sentence):
        return True  # "Runtime or generated dirs: `log/`", "Do not commit `.venv/`": absent from a checkout
    if "/" not in ref.name.rstrip("/") and _DIRECTORY_NAMES.match(line.text, line.text.find("`", ref.column + len(ref.name)) + 1):
        return True  # "`Fixture/`, `Expected/` directories are auto-skipped": any directory of that name
    if "/" not in ref.name and _MAPPED_TO_URL.search(line.text):
        return True
    if "/" not in ref.name and (_PROHIBITED_USE.search(sentence) or _ELSEWHERE.search(sentence)):
        return True  # "Do not use `old-key.txt`", "memory (`MEMORY.md`) for user-specific …": no file of this tree
    before = _clause_before(prose, offset - (block.start if block is not None else 0))
    if _EXAMPLE_COMMA.search(before.rstrip("` ")) and ref.name.split("/", 1)[0] not in ctx.dirs | ctx.basenames:
        return True  # "overrides in per-framework subdirectories (e.g., `.publicApi/net462/`)"
    if _EXAMPLE_INTRO.search(before):
        return True  # "e.g. for layouts, it's `layouts/page.html`": an illustration, not this repository's file
    if _OTHER_SYSTEM.search(before.rstrip("` ")) and ref.name.split("/", 1)[0] not in ctx.dirs:
        return True  # "inside Fabric (in `Resources/builtin/`)": a path in another product, not in this tree
    if _NEGATED.search(before.rstrip("` ")):
        return True  # "(NOT `spec/` - Rails uses Minitest)": named as what the repository does not have
    if generated.made_by_a_tool(prose, offset - (block.start if block is not None else 0), ref.name):
        return True  # "Creates `commands.gen.ts`", "`names.json` is generated by `make names`": made on demand
    local = offset - (block.start if block is not None else 0)
    after = prose[local + len(ref.name):local + len(ref.name) + 80].lstrip("`")
    if _TEMPORARY.match(after):
        return True  # "a `PLAN.md` file that can be deleted afterwards": made for the task, absent until then
    if generated.made_by_the_reader(before):
        return True  # "Include a `RELEASE.md` file": the reader is told to write it, so it is absent until then
    if ref.name.endswith((".html", ".htm")) and _SERVED.search(sentence):
        return True  # a page a running server serves, named by its URL path
    # owner/name in prose about repositories, when no such first directory exists anywhere
    first = ref.name.split("/", 1)[0]
    return "." not in ref.name.rsplit("/", 1)[-1] and bool(_OWNER_NAME.match(ref.name) and _REPOSITORY.search(prose) and first not in ctx.dirs
                and first not in ctx.basenames)
