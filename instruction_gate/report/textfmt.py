"""Text formatting shared by the summary, the annotations and the messages (numbers: verdict/figures.py).

Record strings (commands, paths, reasons) can come from the agent working under untrusted
candidate instructions, so everything put into Markdown is escaped and shortened.
"""

from __future__ import annotations

import re

from instruction_gate.console import escape_controls

#: Characters that could start emphasis, code, links, HTML or table cells in inline text.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>|~])")


def clip(text: str, limit: int = 200) -> str:
    """One line, control characters written out (`\\x1b`: an escape sequence from the candidate
    must not reach a terminal that `cat`s summary.md), at most `limit` characters."""
    text = escape_controls(" ".join(str(text).split()))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def document(text: str) -> str:
    """A whole Markdown report as written to a file or the job summary: tabs and newlines kept,
    every other control character written out, whichever helper built the line."""
    return escape_controls(text)


def md(text: object, limit: int = 200) -> str:
    """Inline Markdown-safe text: one line, special characters escaped, length capped."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", clip(str(text), limit))


def code(text: object, limit: int = 120, in_table: bool = True) -> str:
    """Inline code span that survives backticks inside `text`, and pipes in a table cell (outside
    a table GitHub would show the escaping backslash)."""
    body = clip(str(text), limit)
    body = body.replace("|", "\\|") if in_table else body
    fence = "`" * (max((len(run) for run in re.findall(r"`+", body)), default=0) + 1)
    pad = " " if body.startswith("`") or body.endswith("`") else ""
    return f"{fence}{pad}{body}{pad}{fence}" if body else ""
