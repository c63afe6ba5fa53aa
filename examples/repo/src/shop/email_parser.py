"""Order emails: sender addresses and order lines."""

from __future__ import annotations

import re

_ADDRESS = re.compile(r"^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$")
_ORDER_LINE = re.compile(r"^\s*([A-Z0-9-]+)\s*x\s*(\d+)\s*$", re.IGNORECASE)


def parse_address(raw: str) -> tuple[str, str]:
    """Split `Jane Doe <jane@example.com>` into (display name, address); the name may be empty."""
    text = raw.strip()
    if text.endswith(">") and "<" in text:
        name, _, rest = text.rpartition("<")
        address = rest[:-1].strip()
        name = name.strip()
        if len(name) >= 2 and name[0] == name[-1] == '"':
            name = name[1:-1].replace('\\"', '"')
    else:
        name, address = "", text
    if not _ADDRESS.match(address):
        raise ValueError(f"not an email address: {raw!r}")
    return name, address.lower()


def parse_order_lines(body: str) -> list[tuple[str, int]]:
    """Order lines `SKU x quantity`; other lines (greetings, signatures) are ignored."""
    lines = []
    for line in body.splitlines():
        match = _ORDER_LINE.match(line)
        if match:
            lines.append((match.group(1).upper(), int(match.group(2))))
    return lines
