"""A task prompt from a fix commit's message and the tests that will judge it; never the diff.

The prompt does not tell the agent how to verify its work (which commands to run): that is the
instruction files' job, and a prompt that says it would make the suite blind to an edit that
removes it. Prompts are written for review: what needs a reader's eye is flagged.
"""

from __future__ import annotations

import re

#: `fix:`, `fix(cli):`, `[fix]`, `BUG:` — conventions that say nothing to the agent.
PREFIX = re.compile(r"^\s*(\[[^\]]{1,20}\]\s*|[A-Za-z]{2,12}(\([^)]{1,30}\))?!?:\s*)+")
#: ` (#123)`, `closes #12`, `GH-5`: references the agent cannot follow.
REFERENCES = re.compile(r"\s*\((?:#|gh-)\d+\)|\b(?:closes|fixes|resolves|refs?)\s+#\d+\b|\bGH-\d+\b", re.IGNORECASE)
TRAILER = re.compile(r"^[A-Z][\w-]+(-by|-authored-by)?:\s", re.MULTILINE)
MAX_BODY_CHARS = 800


def _clean_body(body: str) -> str:
    kept = []
    for paragraph in re.split(r"\n\s*\n", body.strip()):
        if not paragraph.strip() or TRAILER.match(paragraph.strip()):
            continue
        if re.search(r"^(diff --git|@@ |\+\+\+ |--- a/)", paragraph, re.MULTILINE):
            continue  # a pasted diff would hand over the solution
        kept.append(REFERENCES.sub("", paragraph.strip()))
    text = "\n\n".join(kept)
    return text if len(text) <= MAX_BODY_CHARS else text[:MAX_BODY_CHARS].rsplit(" ", 1)[0] + " …"


def subject_sentence(subject: str) -> str:
    text = REFERENCES.sub("", PREFIX.sub("", subject)).strip().rstrip(".")
    return (text[:1].upper() + text[1:] + ".") if text else ""


def write(subject: str, body: str, node_ids: tuple[str, ...]) -> tuple[str, list[str]]:
    """The prompt, and what a reviewer should check in it."""
    sentence = subject_sentence(subject)
    flags = []
    if len(sentence.split()) < 4:
        flags.append("the commit subject is short; say what is wrong in words a user would use")
    if re.search(r"\b(use|replace|switch|call|add|return|pass)\b.+\b(instead|rather)\b", sentence, re.IGNORECASE):
        flags.append("the commit subject may state the fix rather than the problem")
    parts = [f"Something is wrong in this repository. The maintainers describe it as: {sentence}"]
    if body := _clean_body(body):
        parts.append(body)
    tests = "\n".join(f"- `{node}`" for node in node_ids)
    parts.append("Fix it in the code. These tests (not in your working tree) will check the fix:\n" + tests)
    return "\n\n".join(parts) + "\n", flags
