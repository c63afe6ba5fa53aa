"""IG010: URLs the agent is told to fetch from, to hosts outside the policy's allow-list.

A URL counts when its sentence (or its line of a code block) has the agent fetch, download,
install, clone, call, open or read it (`curl https://…`, "Fetch the setup from https://…",
`pip install --index-url https://…`). A reference link ("Type syntax reference: https://…",
"Follow the [Conventional Commits](https://…) standard") is something a reader may follow, not
something the agent is told to take in, so it is not reported. A table row is read on its own
(a table of documentation links is reference material, however many rows it has), and the words
of every URL are left out, not only of the URL at hand ("send-data" in a neighbour's path is no
verb). A URL inside a code example in a programming language (a ```python block) is that program's
data, not something the agent fetches; shell blocks still count. A host is reported once per file, at its
first fetched URL.
"""

from __future__ import annotations

import bisect
import re
from typing import Iterator
from urllib.parse import urlsplit

from instruction_gate.lint import markdown
from instruction_gate.lint.context import LintContext
from instruction_gate.lint.model import Finding
from instruction_gate.lint.references import CODE_LANGUAGES

_URL = re.compile(r"\b(?:https?|ftp|wss?)://[^\s<>()\[\]\"'`]+", re.IGNORECASE)
#: Names reserved for examples and for this machine (RFC 2606, RFC 6761): nothing to fetch there.
_RESERVED = re.compile(r"(?:^|\.)(?:example\.(?:com|net|org)|example|test|invalid|localhost)$|^(?:127\.\d+\.\d+\.\d+|::1)$")


#: Verbs and programs that make the agent fetch, run, send to or read what is at a URL.
_FETCHING = re.compile(r"\b(?:curl|wget|fetch\w*|download\w*|install\w*|clone|cloning|pull|pulling|pip|npm|npx|pnpm|yarn|"
                       r"uvx|pipx|go\s+get|iwr|irm|invoke-(?:webrequest|restmethod)|call|calls|calling|post|posting|"
                       r"send|sending|upload\w*|source|import|load|loading|open|opening|visit|browse|read|reading|"
                       r"pipe|piping|execute|run|running|registry|index-url|feed|mirror)\b", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.!?;](?:\s|$)")


def _sentence(text: str, start: int, end: int) -> str:
    """The sentence of `text` around [start, end) (URLs hold dots, but never a dot and a space)."""
    before = [m.end() for m in _SENTENCE_END.finditer(text, 0, start)]
    after = _SENTENCE_END.search(text, end)
    return text[before[-1] if before else 0:after.end() if after else len(text)]


#: Verbs that fetch whatever the URL names, even a linked one: "Download [the model](https://…)". Package
#: managers named in prose are nouns ("[Volta](https://…) for Node.js/Yarn/PNPM version management").
_STRONG_FETCHING = re.compile(r"\b(?:curl|wget|fetch\w*|download\w*|install\w*|clone|cloning|"
                              r"go\s+get|iwr|irm|invoke-(?:webrequest|restmethod))\b", re.IGNORECASE)


def _fetched(around: str, linked: bool = False) -> bool:
    """A linked URL (`[text](https://…)`) is a reference unless a fetching verb governs it: "once you open the PR"
    in the same sentence does not open the link."""
    words = _URL.sub(" ", around)  # words inside URLs do not count
    return bool((_STRONG_FETCHING if linked else _FETCHING).search(words))


def _reserved(host: str) -> bool:
    return bool(_RESERVED.search(host.lower().rstrip(".")))


def check(ctx: LintContext) -> Iterator[Finding]:
    for source, text in sorted(ctx.texts.items()):
        reported: set[str] = set()
        blocks = markdown.blocks(text)
        starts = [b.start for b in blocks]
        languages = markdown.fence_languages(text)
        for line in markdown.lines(text):
            if line.in_code and languages.get(line.number) in CODE_LANGUAGES:
                continue  # `task='Visit https://…'` in a Python example: the program's data, not the agent's fetch
            index = bisect.bisect_right(starts, line.start) - 1
            block = blocks[index] if index >= 0 and line.start < blocks[index].end else None
            prose = text[block.start:block.end] if block is not None else line.text
            base = line.start - (block.start if block is not None else line.start)
            for match in _URL.finditer(line.text):
                url = match.group(0).rstrip(".,;:!?*_")
                at = base + match.start()
                in_row = line.text.lstrip().startswith("|")
                around = line.text if line.in_code or in_row else _sentence(prose, at, at + len(url))
                if not _fetched(around, linked=line.text[:match.start()].endswith("](")):
                    continue  # a reference link, not something the agent is told to fetch
                try:
                    host = urlsplit(url).hostname or ""
                except ValueError:
                    host = ""
                if host and (ctx.policy.host_allowed(host) or _reserved(host)) or host in reported:
                    continue
                reported.add(host)
                yield Finding("IG010", source, line.number,
                              f"URL to `{host or 'an unparsable host'}`, a host not on the allow-list (policy lint.allowed_hosts).",
                              f"url-host:{host or url}", match.start() + 1)
