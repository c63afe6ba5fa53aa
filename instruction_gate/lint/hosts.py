"""IG010: URLs to hosts outside the policy's allow-list (the agent may fetch or trust them)."""

from __future__ import annotations

import re
from typing import Iterator
from urllib.parse import urlsplit

from instruction_gate.lint import markdown
from instruction_gate.lint.context import LintContext
from instruction_gate.lint.model import Finding

_URL = re.compile(r"\b(?:https?|ftp|wss?)://[^\s<>()\[\]\"'`]+", re.IGNORECASE)
#: Names reserved for examples and for this machine (RFC 2606, RFC 6761): nothing to fetch there.
_RESERVED = re.compile(r"(?:^|\.)(?:example\.(?:com|net|org)|example|test|invalid|localhost)$|^(?:127\.\d+\.\d+\.\d+|::1)$")


def _reserved(host: str) -> bool:
    return bool(_RESERVED.search(host.lower().rstrip(".")))


def check(ctx: LintContext) -> Iterator[Finding]:
    for source, text in sorted(ctx.texts.items()):
        for line in markdown.lines(text):
            for match in _URL.finditer(line.text):
                url = match.group(0).rstrip(".,;:!?*_")
                try:
                    host = urlsplit(url).hostname or ""
                except ValueError:
                    host = ""
                if host and (ctx.policy.host_allowed(host) or _reserved(host)):
                    continue
                yield Finding("IG010", source, line.number,
                              f"URL to `{host or 'an unparsable host'}`, a host not on the allow-list (policy lint.allowed_hosts).",
                              f"url:{url}", match.start() + 1)
