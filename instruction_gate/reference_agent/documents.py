"""Documents a clause names: its Markdown links' targets and bare file names."""

from __future__ import annotations

import re
from urllib.parse import unquote

from instruction_gate.reference_agent.phrases import BARE_DOC

#: A Markdown link's target: `](docs/guide.md)` or `](<docs/my guide.md>)`.
_LINK_TARGET = re.compile(r"\]\(\s*(?:<([^>\n]*)>|([^)\s]+))[^)]*\)")
_DOC_SUFFIX = re.compile(r"\.(?:md|rst|txt)$")


def linked(clause: str) -> list[str]:
    """The documents a clause names, in order: its links' targets each as one path (percent-decoded:
    `%0A` is a newline inside that path, never a line that starts another; no tail of a target such
    as `linkinject.md` of `docs/%0A::error::linkinject.md` is read as a name) and bare names."""
    found: list[tuple[int, str]] = []
    for match in _LINK_TARGET.finditer(clause):
        target = re.split(r"[#?]", match.group(1) or match.group(2), maxsplit=1)[0]
        if target and not re.match(r"[A-Za-z][\w+.-]*:|//", target) and _DOC_SUFFIX.search(target):
            found.append((match.start(), unquote(target)))
    prose = _LINK_TARGET.sub(lambda m: "]" + " " * (len(m.group()) - 1), clause)  # positions kept
    found += [(m.start(), m.group(1)) for m in BARE_DOC.finditer(prose)]
    return [doc for _, doc in sorted(found)]
