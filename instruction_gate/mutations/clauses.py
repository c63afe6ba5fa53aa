"""Whether a directive is a whole imperative clause that can be turned into its opposite rule."""

from __future__ import annotations

import re

from instruction_gate.lint import markdown

_PAIRS = {"(": ")", "[": "]", "{": "}"}
#: Punctuation a clause may trail off with before its sentence goes on ("... after finishing (").
_TRAILING = " \t\n.!;,([{-\u2013\u2014"


def _pairing(text: str) -> tuple[bool, bool]:
    """(something is still open at the end, a closer matched nothing): brackets outside code
    spans, backtick runs and double quotes."""
    if len(re.findall(r"`+", text)) % 2 or text.count('"') % 2:
        return True, False
    stack: list[str] = []
    for char in markdown.without_code_spans(text):
        if char in _PAIRS:
            stack.append(_PAIRS[char])
        elif char in _PAIRS.values() and (not stack or stack.pop() != char):
            return bool(stack), True
    return bool(stack), False


def whole_clause(before: str, action: str, written: str = "") -> str | None:
    """The action cleaned of trailing punctuation, when the directive opens a clause of its own:
    nothing left open before it in its sentence (not "(don't batch)" inside parentheses, a quote or
    a code span), its own brackets, backticks and quotes paired, and no introduction to what
    follows ("Always run these:", the colon seen in `written`, the directive as written with its
    trailing punctuation). None otherwise: the opposite of a fragment is no grammatical rule."""
    if _pairing(before)[0] or written.rstrip().endswith(":"):
        return None
    action = action.rstrip(_TRAILING)
    if not action or action.endswith(":") or any(_pairing(action)):
        return None
    return action
