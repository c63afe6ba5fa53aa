"""A task prompt from a fix commit's subject and the tests that will judge it; never the diff.

Only the subject: commit bodies describe the fix more often than the problem ("Fixed in three
places: ...", "Return these literals unquoted"), and would hand the agent the solution. The
prompt does not tell the agent how to verify its work either: that is the instruction files'
job, and a prompt that says it would make the suite blind to an edit that removes it. Prompts
are written for review: what needs a reader's eye is flagged.
"""

from __future__ import annotations

import re

#: `fix:`, `fix(cli):`, `[fix]`, `BUG:`, `- `, `Issue 12:` — conventions that say nothing to the agent.
PREFIX = re.compile(r"^\s*([-*]\s+|\[[^\]]{1,20}\]\s*|issue\s*#?\d+\s*[:-]?\s*|[A-Za-z]{2,12}(\([^)]{1,30}\))?!?:\s*)+",
                    re.IGNORECASE)
#: ` (#123)`, `closes #12`, `Fix #12:`, `PR #5`, `GH-5`, URLs: references the agent cannot follow.
REFERENCES = re.compile(r"\s*\((?:#|gh-)\d+\)|\b(?:closes|fixes|fix|resolves|refs?|pr|issue)\s+#\d+(?:\s*,\s*#\d+)*:?|"
                        r"\bGH-\d+\b|https?://\S+|\s#\d+\b", re.IGNORECASE)


def subject_sentence(subject: str) -> str:
    text = re.sub(r"\s+", " ", REFERENCES.sub("", PREFIX.sub("", subject))).strip().rstrip(".,;: ")
    return (text[:1].upper() + text[1:] + ".") if text else ""


#: Subjects that say what was done to the code rather than what was wrong.
STATES_FIX = re.compile(r"^(use|replace|switch|call|add|return|pass|emit|escape|handle|remove|drop|make|set|"
                        r"avoid|ensure|change|update|move|rename|wrap|skip|catch|raise|convert|strip|quote)\b"
                        r"|\b(instead of|rather than)\b|^fix(es|ed)?\s+\S+\s+to\s|^(detailed|better|improved?|more|new)\b",
                        re.IGNORECASE)


def write(subject: str, node_ids: tuple[str, ...], tests_visible: bool = False) -> tuple[str, list[str]]:
    """The prompt, and what a reviewer should check in it."""
    sentence = subject_sentence(subject)
    flags = []
    if len(sentence.split()) < 4:
        flags.append("the commit subject is short; say what is wrong in words a user would use")
    if STATES_FIX.search(sentence):
        flags.append("the commit subject may state the fix rather than the problem")
    parts = [f"Something is wrong in this repository. The maintainers describe it as: {sentence}"]
    tests = "\n".join(f"- `{node}`" for node in node_ids)
    where = "in your working tree" if tests_visible else "not in your working tree"
    parts.append(f"Fix it in the code. These tests ({where}) will check the fix:\n" + tests)
    return "\n\n".join(parts) + "\n", flags
