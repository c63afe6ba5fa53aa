"""Placeholders in a name the text gives as a form to fill in: `tox -e <env>`, `make test-{name}`,
`npm run build:$PKG`, `nox -s tests-...`, `tox -e ENV`.

Such a name is not an unknown name: it stands for any name of that form, so it is checked only
for whether some defined name has the form (`py3.14-{integration}` fits `py3.14-django`).
"""

from __future__ import annotations

import re
from typing import Iterable

#: `<env>`, `{version}` (no comma: `{a,b}` lists alternatives), `${VAR}`, `$(VAR)`, `$VAR`,
#: `...`, and an UPPER_CASE word of three letters or more standing alone in the name.
_PLACEHOLDER = re.compile(r"<[^<>]+>|\{[^{},]*\}|\$\{[^}]*\}|\$\([^)]*\)|\$\w+|\.\.\.|…"
                          r"|(?<![A-Za-z0-9])[A-Z][A-Z_]+[A-Z](?![A-Za-z0-9])")
#: A path segment that is a generic word, not a name (`tests/module/`, `tests/path.py`,
#: `tests/path/test_file.py`, `python myagent.py`): a form to fill in with a real one.
GENERIC_SEGMENT = re.compile(r"(?:^|(?<=[\s/=]))(?:(?:test_file|(?:test_)?(?:path|module|directory|folder))(?:\.\w+)?"
                             r"|my(?:agent|app|project|module|package|script|service|plugin|component|feature|tool|lib)"
                             r"\w*(?:\.\w+)?)(?=[/\s]|$)")
#: What a placeholder becomes in a masked name: a character no defined name holds.
HOLE = "\x00"


def mask(name: str) -> str:
    """The name with each placeholder replaced by one `HOLE`."""
    return _PLACEHOLDER.sub(HOLE, name)


def only_holes(masked: str) -> bool:
    return bool(masked) and not masked.strip(HOLE)


def fits(masked: str, known: Iterable[str]) -> bool:
    """Whether some known name has the masked name's form (is that name, when it has no hole)."""
    if HOLE not in masked:
        return masked in known
    form = re.compile(".+".join(re.escape(part) for part in masked.split(HOLE)))
    return any(form.fullmatch(name) for name in known)
