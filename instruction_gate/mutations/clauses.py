"""Whether a directive is a whole imperative clause that can be turned into its opposite rule."""

from __future__ import annotations

import re

from instruction_gate.lint import markdown

_PAIRS = {"(": ")", "[": "]", "{": "}"}
#: Punctuation a clause may trail off with before its sentence goes on ("... after finishing (").
_TRAILING = " \t\n.!;,([{-\u2013\u2014"
#: What may stand between a sentence's start and a directive that opens it: a list marker,
#: emphasis, a short label ("Docs:") and words that leave the clause the directive's own
#: ("Please", "You must", "Then"). Anything else is a subject or a description the opposite would
#: drop or misread: "Public APIs must always have docstrings" inverts to "Never have docstrings",
#: "… and should generally be avoided" to "Never generally be avoided".
_OPENING = re.compile(r"(?i)^[\s>*_+\-\d.)]*(?:[^:\n`]{1,40}:[*_\s]*)?"
                      r"(?:(?:please|you|we|should|must|and|then|also|so)[*_]*\s+)*[*_]*$")

_DANGLING = re.compile(r"(?i)[\s,]+(?:but|and|or|so|then)$")
#: A verb straight followed by a preposition has lost its object to a code span or an earlier
#: line ("`strict-no-cover`. Use for lines covered on some platforms"): its opposite says nothing.
_NO_OBJECT = re.compile(r"(?i)^\W*[a-z]+\s+(?:for|in|on|at|by|as|when|if)\b")
#: An "action" that is a subject with its own verb: the imperative word was a noun ("Commit
#: messages should be concise", "Release tag creation … remain owned by …").
_SUBJECT = re.compile(r"(?i)^\W*(?:[\w/-]+\s+){1,6}?(?:should|must|is|are|remain|remains|will|shall|cannot|can)\b")


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
    trailing punctuation), and only a marker, a label or "please"/"you must" before it in its
    sentence (`_OPENING`). None otherwise: the opposite of a fragment is no grammatical rule."""
    if _pairing(before)[0] or written.rstrip().endswith(":") or not _OPENING.match(before):
        return None
    # Emphasis closing around the whole rule ("**Always use X**") is the block's, not the action's,
    # and a conjunction the next rule takes over ("Prefer X, but do not …") is no part of it.
    action = _DANGLING.sub("", action.rstrip(_TRAILING + "*_")).rstrip(_TRAILING)
    if _SUBJECT.match(markdown.without_code_spans(action)) or _NO_OBJECT.match(action):
        return None
    if not action or action.endswith(":") or any(_pairing(action)) or \
            markdown.without_code_spans(action).count("**") % 2:
        return None
    return action
