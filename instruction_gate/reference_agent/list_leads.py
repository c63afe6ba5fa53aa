"""List leads: a paragraph that introduces the list below it, and commands an item abbreviates from above."""

from __future__ import annotations

import re
from typing import Callable

from instruction_gate.reference_agent import clauses, documents
from instruction_gate.reference_agent.kinds import SUITE_SHAPED, Found
from instruction_gate.reference_agent.command_text import is_command, runnable_as_written, runs_the_suite
from instruction_gate.reference_agent.phrases import (
    APPROVE_LEAD, BARE_DOC, BEFORE_FINISHING, CODE, SLOT_RE, FINISHING, NEVER_LEAD, PATH_LIKE, PROTECT_LEAD, RUN_LIST_LEAD, USE_TOOL_LEAD, conditional, situation,
)


def list_lead(paragraph: str) -> str | None:
    low = paragraph.lower().strip()
    for kind, pattern in (("run", USE_TOOL_LEAD), ("protect", PROTECT_LEAD), ("approve", APPROVE_LEAD),
                          ("never", NEVER_LEAD), ("never", _FORBIDDEN_LEAD)):
        if pattern.search(low):
            return kind
    if _READ_LEAD.match(low) and not conditional(low) and not situation(low):
        return "read"  # "Read these before changing code:" over a list of documents
    if RUN_LIST_LEAD.search(low) and not conditional(low) and not situation(low):
        # "At a minimum, from `docs/` run:": each item that is only a command is a step; "… before creating
        # a pull request:": and the suite among them is run to pass
        return "finish" if BEFORE_FINISHING.search(low) else "run"
    return None


#: A heading that is itself the occasion of its list: "## Before Every Commit", "### Before submitting a PR",
#: "## Pre-commit checklist". Only the whole title counts: "## Committing changes" describes, it does not lead.
_FINISHING_HEADING = re.compile(
    r"^\W*(?:(?:checks?|steps?|checklist)\s+)?(?:before\s+(?:(?:every|each|any)\s+)?(?:commit|push|pr|pull\s+request)s?|"
    rf"before\s+{FINISHING}(?:\s+(?:a|your|the)\s+(?:change|pr|pull\s+request|commit)s?)?|"
    r"pre-?(?:commit|push|pr|merge)\s+(?:checklist|checks|steps))\W*$")


#: A time every task passes through: "before changing code", "before you start", "before making changes".
_EVERY_TASK_START = (r"(?:before\s+(?:you\s+)?(?:start(?:ing)?|begin(?:ning)?|chang(?:e|ing)|modify(?:ing)?|edit(?:ing)?|"
                     r"touch(?:ing)?|writ(?:e|ing)|work(?:ing)?(?:\s+on)?|contribut(?:e|ing)|cod(?:e|ing)|(?:make|making)\s+"
                     r"(?:any\s+)?changes(?:\s+to)?)(?:\s+(?:any\s+|the\s+)?(?:code|changes|anything|this\s+"
                     r"(?:repo|repository|project|codebase)))?)")
#: A paragraph introducing documents to read on every task: "Read these before changing code:", "Required reading:".
_READ_LEAD = re.compile(r"^[\W_]*(?:please\s+)?(?:(?:always|first)\s+)?(?:(?:read|review|consult|study)\b(?:\s+(?:these|the\s+"
                        r"following|this|all\s+of\s+these))?(?:\s+(?:docs?|documents?|files?|guides?|pages?|links?))?"
                        rf"(?:\s+first)?(?:\s+{_EVERY_TASK_START})?|(?:required|mandatory|essential)\s+reading)[\s*_]*:[\s*_]*$")
#: A heading naming documents every task reads first: "## Read before changing code", "## Required reading".
_READ_HEADING = re.compile(rf"^[\W_]*(?:(?:read|review)\s+(?:this\s+|these\s+|the\s+following\s+)?(?:first|{_EVERY_TASK_START})|"
                           r"(?:required|mandatory|essential)\s+reading|read\s+first|must\s+read)[\W_]*$")


def heading_lead(title: str) -> str | None:
    """What a heading makes of the list right under it: "finish" for a finishing occasion, "read" for
    documents every task reads first, else None."""
    if _READ_HEADING.match(title.lower()):
        return "read"
    return "finish" if _FINISHING_HEADING.match(title.lower()) else None


def led_item(lead: str | None, clause: str, codes: list[str], section: str, subject: str | None,
             read_clause: Callable[[str, list[str], str, str | None], Found]) -> Found | None:
    """The directives of a list item under a paragraph that introduces the list, or None to read it as usual:
    under "Use `ruff` for linting:" an item that is only a command is a step; under "Do not edit these:"
    the path an item opens with is protected; under "**Ask first**" what an item names needs approval;
    under "**Never**" each item is a prohibition, read by `read_clause` (the clause grammar)."""
    low = clause.lower()
    # an item that is only a command, or a command and what it does ("`make lint` – run the linter")
    if lead in ("run", "finish") and (only := _COMMAND_ITEM.fullmatch(low)) and \
            not (only.group(2) and (conditional(only.group(2)) or situation(only.group(2)))):
        command = codes[int(only.group(1))]
        if not runnable_as_written(command):
            return None
        # the suite among the steps is the test command (settled against a named one once the file is read)
        suite = runs_the_suite(command) or bool(only.group(2) and _SUITE_WORDS.search(only.group(2)))
        return [(SUITE_SHAPED if suite else "run", command)] + ([("verify", None)] if suite and lead == "finish" else [])
    if lead == "read":
        # each document the item names, by link or in backticks; an item naming none is read as usual
        named = [c for c in clauses.slots_after(low, 0, codes) if BARE_DOC.fullmatch(c)]
        named += [d for d in documents.linked(SLOT_RE.sub(" ", clause)) if d not in named]
        return [("read", d) for d in named] or None
    if lead == "protect" and subject and PATH_LIKE.match(subject) and re.match(r"^\W*\x00\d+\x00", low):
        return [("protect_path", subject)]
    if lead == "approve":
        return [("approve_command" if is_command(t) else "approve_edit", t) for t in clauses.slots_after(low, 0, codes)]
    if lead == "never" and (label := _ITEM_LABEL.match(low)):
        # "**NO force pushes**: `git push --force`, `git push -f`": the commands after the label
        return [("forbid_command", c) for c in clauses.slot_list(low, label.end(), codes) if is_command(c)]
    if lead == "never":
        return read_clause("never " + clause, codes, section, subject)
    return None


#: A title-only paragraph naming what is forbidden: "**Strictly Forbidden Git Operations**:", "Prohibited commands:".
_FORBIDDEN_LEAD = re.compile(r"^[\W_]*(?:[\w-]+\s+){0,3}?(?:forbidden|prohibited|banned|disallowed)(?:\s+[\w-]+){0,3}[*_\s]*:[\W_]*$")
_COMMAND_ITEM = re.compile(r"\W*\x00(\d+)\x00\W*(?:[-–—:]\s*([^\x00]*))?")
_SUITE_WORDS = re.compile(r"\b(?:run|execute|runs|executes)\s+(?:the\s+|all\s+)?(?:(?:full|whole|unit)\s+)?(?:tests|test\s+suite)\b")
#: A list item's label before what it lists: "**NO force pushes**:".
_ITEM_LABEL = re.compile(r"^[\W_]*[^\x00:]{1,60}?[*_]*:[*_\s]*(?=\x00)")


def code_spans(lines) -> list[tuple[int, str]]:
    return [(line.number, m.group(1).strip()) for line in lines for m in CODE.finditer(line.text)]


def written_above(short: str, number: int, spans: list[tuple[int, str]]) -> tuple[str, int] | None:
    """The first command before line `number` that `short` abbreviates (`go build` of `go build -mod=readonly work`):
    where the file spells the command out, ahead of its variants."""
    full = [(code, line) for line, code in spans if line < number and code.startswith(short + " ")
            and runnable_as_written(code)]
    return full[0] if full else None
