"""What a heading makes of the block right under it, by the class of its title.

A fenced block with no lead-in sentence is read from its heading alone, so the heading's class
decides: a title naming the every-change routine of building, testing, checking or verifying
("## Build and check", "### Verification", "## Before committing") makes the block's command
lines steps; a title naming a collection ("Common commands", "Useful commands", "Reference",
"Cheat sheet") makes them a reference list, never orders. Every other title says nothing here.

Below the document's title, a section whose title names one topic ("Database migrations", "Docker")
rather than routine work, a part of the code base or rules in general (`is_topic`) keeps a bare
"Run `X`" to that topic: only a line that says it is for every change is a step there.
"""

from __future__ import annotations

import re
from typing import Literal

HeadingClass = Literal["steps", "reference"]

#: Words naming a check a change passes (each alone, or "build" joined to one of them).
_CHECK_WORD = r"(?:check(?:s|ing)?|verif(?:y|ying|ication)|validat(?:e|ing|ion)|lint(?:ing)?|test(?:s|ing)?)"
#: "Build and check", "Build & Test", "Lint, test and build", "Testing and verification": two or more routine jobs.
_ROUTINE_PAIR = re.compile(rf"^(?:(?:build(?:ing)?|format(?:ting)?|{_CHECK_WORD})(?:\s*(?:,|&|\+|/|\band\b|,\s*and\b)\s*)){{1,3}}"
                           rf"(?:build(?:ing)?|format(?:ting)?|{_CHECK_WORD})$")
#: "Verification", "Checks", "Quality checks", "Quality gates", "Pre-commit checks", "Validation steps".
_CHECKS_TITLE = re.compile(r"^(?:(?:quality|required|local|ci|pre-?(?:commit|push|pr|merge))\s+)?(?:checks|verification|"
                           r"validation|gates?)(?:\s+steps)?$")
#: "Before committing", "Before you push", "Before opening a pull request".
_BEFORE_TITLE = re.compile(r"^before\s+(?:(?:every|each|any|you)\s+)?(?:commit(?:ting)?|push(?:ing)?|submitting|finishing|"
                           r"(?:opening|creating|submitting)\s+(?:a\s+|your\s+)?(?:pr|pull\s+request)|"
                           r"(?:a\s+)?(?:pr|pull\s+request))s?$")
#: A collection of commands to pick from: "Common commands", "Useful commands", "Reference", "Cheat sheet".
_REFERENCE_TITLE = re.compile(r"\b(?:common|useful|handy|helpful|available|other|key|frequently\s+used|everyday|quick|"
                              r"more|additional|misc(?:ellaneous)?)\s+(?:commands|scripts|tasks|recipes|targets)\b|"
                              r"\b(?:reference|cheat\s*-?\s*sheet|overview|commands?\s+(?:list|summary|index))\b|"
                              r"^(?:commands|scripts|make\s+targets)$")
#: What a title may carry around its words: numbering, emphasis, a trailing colon, an emoji.
_TRIM = re.compile(r"^[\W\d_]*(?:step\s+\d+\W*)?|[\W_]*$")


def heading_class(title: str) -> HeadingClass | None:
    """The class of a lower-cased heading title, or None when the title says neither."""
    # a qualifier in brackets says where, not what: "Build and test (Rust)"
    words = _TRIM.sub("", re.sub(r"\s*\([^)]*\)\s*", " ", title.lower()).strip())
    if _REFERENCE_TITLE.search(words):
        return "reference"
    if _ROUTINE_PAIR.match(words) or _CHECKS_TITLE.match(words) or _BEFORE_TITLE.match(words):
        return "steps"
    return None


#: Titles of sections about the work itself (how to build, test, check, contribute, set up), a language or part
#: of the code base, or rules in general: a bare order under one of these may be every change's.
_ROUTINE_WORDS = re.compile(
    r"\b(?:develop\w*|workflows?|test\w*|build\w*|check\w*|lint\w*|format\w*|verif\w*|valid\w*|command\w*|contribut\w*|"
    r"guidelines?|rules?|practices?|instructions?|before|after|commit\w*|pull\s+requests?|prs?|setup|set\s+up|install\w*|"
    r"getting\s+started|quick\s*start|quality|ci|agents?|claude|gemini|copilot|style|conventions?|process|steps?|checklist|"
    r"done|finish\w*|tasks?|local\w*|environment|tooling|tools|usage|working|work|essentials?|requirements?|important|"
    r"critical|mandatory|required|always|never|do|don'?t|general|project|repo(?:sitory)?|workspace|monorepo|packages?|"
    r"code|coding|changes?|python|rust|go|golang|typescript|javascript|js|ts|node(?:\.js)?|java|kotlin|swift|ruby|php|"
    r"elixir|c#|\.net|dotnet|c\+\+|c|zig|scala|dart|flutter|frontend|backend|server|client|web|ui|docs?|documentation)\b")


def is_topic(title: str) -> bool:
    """Whether a lower-cased section title names one topic ("Database migrations", "Docker", "Releasing a
    version") rather than routine work, a part of the code base or rules in general."""
    words = re.sub(r"\s*\([^)]*\)\s*", " ", title.lower()).strip()
    return bool(re.search(r"[a-z]", words)) and not _ROUTINE_WORDS.search(words)
