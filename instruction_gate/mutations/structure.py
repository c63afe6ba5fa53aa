"""Operators that remove structure: a whole Markdown section, or one rule at a time."""

from __future__ import annotations

import bisect
import re
from typing import Iterator

from instruction_gate.agents.scoped_rules import blank_front_matter
from instruction_gate.lint import codeblocks, markdown
from instruction_gate.lint.directives import directives
from instruction_gate.mutations.model import Files, Mutant, decode, snippet, splice


#: A sentence starting with one of these is an instruction even when the lint's directive finder
#: (always/never/must/should and its own imperative verbs) does not list the verb.
_IMPERATIVE = re.compile(r"^[\s*_>]*(?:run|use|keep|be|do|don't|prefer|avoid|ask|add|write|make|follow|check|"
                         r"read|open|only|update|put|place|commit|call|request|include|record|report|"
                         r"never|always|remember|ensure)\b", re.IGNORECASE)
_ITEM_MARKER = re.compile(r"\s*(?:[-*+]|\d{1,9}[.)])\s+(?:\[[ xX]\]\s+)?")


def rule_spans(text: str) -> list[tuple[int, int, int]]:
    """(start, end, line) of each rule: a list item or a prose sentence that says what to do,
    i.e. holds a directive (always/never/must/should..., an imperative such as "Run `make test`.")
    or starts with an imperative verb. Headings and descriptions ("`vendor/` holds vendored
    code.") are not rules: deleting them breaks nothing a task could depend on. Nothing inside or
    overlapping a code block is a rule (an indented block or a deeply nested fence reads as prose
    to the block reader)."""
    starts = sorted(d.start for d in directives(text))

    def instructs(start: int, end: int) -> bool:
        holds_directive = bisect.bisect_left(starts, start) < bisect.bisect_left(starts, end)
        return holds_directive or any(
            _IMPERATIVE.match(text[a:b]) for a, b in markdown.sentences(text, start, end))

    spans = []
    for block in markdown.blocks(text):
        if block.kind == "item":
            marker = _ITEM_MARKER.match(text, block.start)
            if instructs(marker.end() if marker else block.start, block.end) \
                    and not codeblocks.in_code(text, block.start, block.end):
                spans.append((block.start, _item_end(text, block), block.line))
        elif block.kind == "paragraph":
            spans += [(start, _sentence_end(text, start, end), markdown.line_of(text, start))
                      for start, end in markdown.sentences(text, block.start, block.end)
                      if instructs(start, end) and not codeblocks.in_code(text, start, end)]
    return spans


def _indent(line: str) -> int:
    return len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip())


def _item_end(text: str, item: markdown.Block) -> int:
    """Where an item ends with what it holds: the lines indented under its marker (sub-items,
    continuation paragraphs, nested code) go with it. Left behind, they would become an
    indented code block or the children of the item before."""
    own = _indent(text[item.start:text.find("\n", item.start) % (len(text) + 1)])
    end = cursor = item.end
    while cursor < len(text):
        line_end = text.find("\n", cursor) + 1 or len(text)
        line = text[cursor:line_end]
        if line.strip():
            if _indent(line) <= own:
                break
            end = line_end
        cursor = line_end
    return end


def _sentence_end(text: str, start: int, end: int) -> int:
    """A sentence after other text on its line keeps the line's break: deleting it must not join
    the paragraph to the line below (a fence opening there would no longer open)."""
    line_start = text.rfind("\n", 0, start) + 1
    return end - 1 if text[start:end].endswith("\n") and text[line_start:start].strip() else end


def delete_rule(files: Files) -> Iterator[Mutant]:
    """One mutant per rule (an instructing list item or prose sentence), deleting just that rule."""
    for path, data in sorted(files.items()):
        text = decode(data)
        for start, end, line in rule_spans(blank_front_matter(text)):  # front matter holds no rule
            yield Mutant(f"delete-rule:{path}:{line}", "delete-rule",
                         f"deleted the rule on {path}:{line}", snippet(text[start:end]),
                         {path: splice(text, start, end)}, path, line)


def delete_section(files: Files) -> Iterator[Mutant]:
    """One mutant per Markdown heading section (the heading and its body, subsections included).

    A section that holds the whole file (a title heading over everything, or the one section
    under a title with nothing else) is not deleted whole:
    that mutant would test "no instructions at all", not a section. Its own text before the first
    subsection is deleted instead, and nothing when it has none (the subsections have mutants).
    """
    for path, data in sorted(files.items()):
        text = decode(data)
        shape = blank_front_matter(text)  # `key: value` over `---` reads as a heading: no section
        sections = markdown.sections(shape)
        content = [b.start for b in markdown.blocks(shape) if b.kind != "heading"]
        for section in sections:
            if codeblocks.in_code(shape, section.start):
                continue  # a `#` comment in code the block reader took for a heading
            start, end, what = section.start, section.end, "section"
            if all(start <= at < end for at in content):  # only headings would be left
                first_subsection = next((s.start for s in sections if start < s.start < end), None)
                if first_subsection is None:
                    continue  # the file is this one section
                heading_end = text.find("\n", start) + 1 or first_subsection
                if not text[heading_end:first_subsection].strip():
                    continue  # no text of its own
                end, what = first_subsection, "the introduction of section"
            body = text[start:end]
            rules = [snippet(body[s:e]) for s, e, _ in rule_spans(body)]
            yield Mutant(f"delete-section:{path}:{section.line}", "delete-section",
                         f"deleted {what} \"{section.title}\" of {path} ({len(rules)} rule(s))",
                         "; ".join(rules) or snippet(body),
                         {path: splice(text, start, end)}, path, section.line)
