"""Names shaped like paths that IG002 should not call stale: code names and illustrations.

Code names: a dotted module path (`unittest.mock.patch`, `mypkg.api.client`), words joined by a
slash around a keyword (`if/pytest.fail`: "an if, then pytest.fail"), a quoted string value whose
first segment is no directory here (`'workers-ai/account123'`). Illustrations: a name holding
a version placeholder (`.github/PR_DESCRIPTION_X.Y.Z.md`), a name in a table row that grades names
("| `engine_test.py` | ❌ Wrong |") or in a column of commit scopes, labels, tags or branches,
and a path in a code block under a "# BAD" comment.
"""

from __future__ import annotations

import keyword
import re
import sys

from instruction_gate.lint import markdown

_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
#: `X.Y.Z`, `x.y`, `N.N.N`: a version to fill in, not a file of this checkout.
_VERSION_PLACEHOLDER = re.compile(r"(?<![A-Za-z0-9])(?:[Xx]\.[Yy](?:\.[Zz])?|[Nn]\.[Nn](?:\.[Nn])?)(?![A-Za-z0-9])")
#: Words that join alternatives in prose about code: `if/pytest.fail`, `try/except`, `and/or`.
_JOINING_WORDS = frozenset(k.lower() for k in keyword.kwlist) | {"catch", "throw", "unless", "then", "switch"}
#: A table cell grading a name as right or wrong: the rows are naming examples.
_VERDICT = re.compile(r"(?i)[✅❌✔✗✘]|\|\s*(?:\*\*)?(?:correct|incorrect|wrong|good|bad)\b")
#: A comment in a code block saying what follows is what not to do.
_BAD_EXAMPLE = re.compile(r"(?i)^\s*(?:#|//|--|;)\s*(?:[❌✗✘]\s*)?(?:bad|wrong|incorrect|don'?t|do\s+not|avoid|never)\b|^\s*(?:#|//)\s*[❌✗✘]")
#: A table column of names that are not files: commit scopes, labels, tags, branches.
_NOT_FILES = re.compile(r"(?i)^\W*(?:commit\s+)?(?:scopes?|labels?|tags?|branch(?:es)?|prefix(?:es)?)\W*$")
_COMMENT = re.compile(r"^\s*(?:#|//|--|;)")


def code_name(name: str, dirs: frozenset[str]) -> bool:
    """A dotted module path or keyword-joined words: code, not a file."""
    segments = name.split(".")
    if "/" not in name and len(segments) >= 3 and all(_IDENTIFIER.fullmatch(s) for s in segments):
        # the first segment a standard module, or the dotted package a directory of this tree
        if segments[0] in sys.stdlib_module_names or "/".join(segments[:-1]) in dirs:
            return True
    first, slash, _ = name.partition("/")
    return bool(slash) and first.lower() in _JOINING_WORDS and first not in dirs


def quoted_value(name: str, line: str, column: int, dirs: frozenset[str]) -> bool:
    """`'cloudflare-workers-ai/account123'`: a string literal in code, a key or an id, when its
    first segment names no directory of this tree (a quoted `'src/app.py'` is still a path)."""
    quote = line[column - 1:column] if column > 0 else ""
    first = name.split("/", 1)[0]
    return quote in ("'", '"') and line[column + len(name):column + len(name) + 1] == quote and first not in dirs


def _column_header(lines: tuple[markdown.Line, ...], index: int, column: int) -> str:
    """The header cell above `column` of the table row `lines[index]` ("" outside a table)."""
    start = index
    while start > 0 and lines[start - 1].text.lstrip().startswith("|") and not lines[start - 1].in_code:
        start -= 1
    cell = lines[index].text[:column].count("|")
    header = lines[start].text.split("|")
    return header[cell] if start < index and cell < len(header) else ""


def illustration(name: str, lines: tuple[markdown.Line, ...], index: int, column: int = 0) -> bool:
    """Whether the name, on `lines[index]` at `column`, is a form or an example rather than this tree's file."""
    if _VERSION_PLACEHOLDER.search(name):
        return True
    line = lines[index]
    if not line.in_code:
        if not line.text.lstrip().startswith("|"):
            return False
        return bool(_VERDICT.search(line.text) or _NOT_FILES.search(_column_header(lines, index, column)))
    for before in reversed(lines[:index + 1]):  # the nearest comment above, in the same block
        if not before.in_code or before.text.lstrip().startswith(("```", "~~~")):
            return False
        if _COMMENT.match(before.text):
            return bool(_BAD_EXAMPLE.match(before.text))
    return False
