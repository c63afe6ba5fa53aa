"""The directive grammar: which sentences of an instruction file the reference agent obeys.

A directive is something the file tells an agent to do on every change. The grammar is
conservative — a wrong directive (running a flag, a code example, a one-off command) is worse
than a missing one — and documented in `adapters/README.md` ("The reference agent (offline)"):

- sentences are read per paragraph and list item, across hard wraps, and split into clauses;
- `run` needs an imperative at the start of its clause ("Run `X`", "Always run `X`", "Before
  committing, run `X`", "Use `X` to format", "Lint your changes with `X`"); descriptions ("CI
  runs `X`"), options ("you can run `X`") and situations ("when debugging, run `X`") are not;
- the test command is named as such ("Run the tests with `X`", "Tests: `X`", "`X` - run all
  tests"), never a single-test variant;
- a fenced block introduced by such a clause ending in ":" ("Run these before committing:")
  contributes its command lines; other code blocks are ignored.
"""

from __future__ import annotations

import bisect
import re

from instruction_gate.lint import emphasis, markdown
from instruction_gate.untrusted import is_path_text
from instruction_gate.reference_agent import blocks, clauses, documents, headings, list_leads, prohibitions, suite_steps, tables
from instruction_gate.reference_agent.kinds import SUITE_SHAPED, Directive, DirectiveKind, Found
from instruction_gate.reference_agent.command_text import (
    is_command, is_known_program, picks_one_test, runnable_as_written, runs_the_suite,
)
from instruction_gate.reference_agent.phrases import (
    ABOVE, APPLIES_TOO, APPROVAL, ASIDE_SECTION, BARE_CONTRAST, BARE_DOC, BEFORE_FINISHING, DOCS_ONLY_EXCEPTION, CATALOGUE_LEAD, CHECKLIST,
    CHECK_ITEM, CHECK_OUTCOME, CONTRAST, EDIT_VERB, ENSURE_RUN, FINISHING_LABEL, FORBIDDEN_SECTION, GENERIC_PROCEDURE,
    INSTRUCTIONS_POINTER, LABELLED_TEST, LEAD, MUST_PASS, OTHER_PURPOSE, NO_FINISH_WITHOUT_TESTS, NOT_COMMANDS, DESCRIPTIVE_START, NEGATION, OCCASIONAL, PARTICULAR_CHANGES, PATH_LIKE, PROCEDURE_LABEL, READ,
    RUN_START, SETUP_LABEL, SITUATION, SLOT_RE, SUITE_CONDITION, TASK_START, TESTS, TESTS_PASS_COMMAND, TEST_LABEL,
    TRAILING_CONDITION, USE_START, BRACKETED_COMMAND, BROAD_CHANGE, EVERY_CHANGE, ANY_CHANGE, REQUIREMENT_STATED, REQUIRED_COLON_COMMAND, USE_WHEN_DONE, VERIFY, WITHOUT_APPROVAL, HEDGE, KIND_OF_TESTS, PART_PURPOSE,
    before_other_work, conditional, situation,
)

__all__ = ["Directive", "DirectiveKind", "is_command", "parse"]


def _commands(low: str, codes: list[str], finishing: bool) -> tuple[list[str], bool]:
    """Commands the clause orders run, and whether they run the tests."""
    # "**Test**: `task test` or `go test ./...` (run single test: `go test ./x -run T`)": the label names
    # the suite; the aside after it, one test's variant
    labelled = _VARIANT_ASIDE.sub("", low)
    if match := TEST_LABEL.match(labelled) or LABELLED_TEST.match(labelled) or TESTS_PASS_COMMAND.search(low):
        return [codes[int(match.group(1))]], True
    if match := SETUP_LABEL.match(low):
        return [codes[int(match.group(1))]], False
    if match := FINISHING_LABEL.match(low):  # "Validate before handoff: `lint`, `format`, then `test`"
        found = clauses.slot_list(low, match.end(), codes)
        return sorted(found, key=lambda c: not re.search(r"\btest", c)), any(re.search(r"\btest", c) for c in found)
    if match := MUST_PASS.match(low):
        return clauses.slot_list(low, match.end(), codes), False
    if (required := REQUIREMENT_STATED.search(low)) and (named := BRACKETED_COMMAND.search(low) or
                                                          REQUIRED_COLON_COMMAND.match(low, required.end())):
        # "Race condition testing is required (`make race`)": a requirement stated as one, its command named
        return [codes[int(named.group(1))]], False
    if match := RUN_START.match(low):
        found = clauses.slot_list(low, match.end(), codes, alternatives=False)
        if not found and (named := BRACKETED_COMMAND.search(low, match.end())):
            # "execute the build, linting and type-checking commands (`make lint-code`)": the order in words,
            # its command in brackets
            found = [codes[int(named.group(1))]]
        first = SLOT_RE.search(low, match.end())
        purpose = low[first.end():] if first else ""
        tests = bool(found and (TESTS.search(low, 0, first.start()) or
                                re.match(r"[^.]{0,60}?\bto\s+run\s+(?:(?:all|the|full|whole|entire)\s+)*(?:unit\s+)?"
                                         r"(?:tests?|test\s+suite|suite)\b", purpose)))
        return found, tests
    if match := USE_START.match(low):
        return [codes[int(match.group(1))]], bool(re.search(r"\b(?:test|testing|validat|verif)", low[match.start(1):]))
    if match := ENSURE_RUN.match(low) or (finishing and USE_WHEN_DONE.match(low)):
        return [codes[int(match.group(1))]], False
    if match := TASK_START.match(low):
        return [codes[int(match.group(1))]], bool(re.match(LEAD + r"test\b", low))
    return [], False


def _parse_clause(clause: str, codes: list[str], section: str = "", subject: str | None = None) -> Found:
    """The directives of one clause; `subject` is the path or command its list item opens with."""
    # "Always use [`uv`](https://…) instead of `pip`": a link around a command is the command
    low = _LINKED_CODE.sub(r"\1", clause.lower())
    if approval := APPROVAL.search(low):
        targets = clauses.slots_after(low, approval.end(), codes)
        kind: DirectiveKind = "approve_edit" if EDIT_VERB.search(low, approval.end()) else "approve_command"
        return [(kind, t) for t in targets]
    if NO_FINISH_WITHOUT_TESTS.search(low):
        return [("verify", None)]  # "DO NOT submit a PR without running the full test suite"
    if (negation := NEGATION.search(low)) and (lifted := WITHOUT_APPROVAL.search(low, negation.end())):
        # "Do not run `git push --force` without explicit approval": ask first, not never
        approve = {"forbid_command": "approve_command", "protect_path": "approve_edit"}
        return [(approve[kind], t) for kind, t in prohibitions.prohibition(low[:lifted.start()], codes, negation, clause, subject)]
    if negation:
        return prohibitions.prohibition(low, codes, negation, clause, subject)
    if ASIDE_SECTION.search(section):
        return []  # tips, troubleshooting, quick references: commands for when they are needed
    if (procedure := PROCEDURE_LABEL.match(low)) and not (
            GENERIC_PROCEDURE.fullmatch(label := procedure.group(1).strip()) or BEFORE_FINISHING.search(label)
            or CHECKLIST.search(label)):
        return []  # "Test AppleScript support: (1) Build with `x`": that one task's steps
    if (applies := APPLIES_TOO.match(low)) and BARE_DOC.fullmatch(codes[int(applies.group(1))]):
        return [("read", codes[int(applies.group(1))])]  # "The root `AGENTS.md` applies here too"
    if (suite := SUITE_CONDITION.match(low)) and runnable_as_written(codes[int(suite.group(1))]):
        return [("test_command", codes[int(suite.group(1))])]  # "Whenever you want to run the whole suite, run X"
    if re.match(LEAD + r"(?:use|run)\b", low) and (contrast := CONTRAST.search(low)):
        avoided = codes[int(contrast.group(1))]  # "Use `bin/roast` (not `bundle exec roast`)"
        used = codes[int(SLOT_RE.search(low).group(1))]
        # "Use `make:test --pest X` instead of `make:test --pest Feature/X`": the same command with another
        # path argument (not "`cargo check` instead of `cargo build`", nor `--force-with-lease` for `--force`)
        differ = set(used.split()) ^ set(avoided.split())
        same_command = used.split()[:1] == avoided.split()[:1] and bool(differ) and \
            all("/" in w for w in differ - set(used.split()))
        return [("forbid_command", avoided)] if is_command(avoided) and not same_command else []
    if re.match(LEAD + r"(?:use|run)\b", low) and (bare := BARE_CONTRAST.search(low)) and is_known_program(bare.group(1)):
        return [("forbid_command", bare.group(1))]  # "Use **tox** for testing (not pytest directly)"
    # "Read the relevant package's docs or `README.md`": a hedge before the document leaves it to the reader
    hedged = (hedge := HEDGE.search(low)) and not SLOT_RE.search(low, 0, hedge.start()) and \
        not BARE_DOC.search(low, 0, hedge.start())
    if (READ.match(low) or INSTRUCTIONS_POINTER.match(low)) and not situation(low) and not hedged and \
            not before_other_work(low):
        docs = [c for c in clauses.slots_after(low, 0, codes) if BARE_DOC.fullmatch(c)]
        # "[AGENTS.md](./AGENTS.md)", "[`TEMPLATE.md`](./.github/TEMPLATE.md)": a link's text and its target
        # name one document, written as its text
        named = {d.rsplit("/", 1)[-1] for d in docs}
        docs += [d for d in documents.linked(SLOT_RE.sub(" ", clause)) if d.rsplit("/", 1)[-1] not in named]
        unique = {d.removeprefix("./"): d for d in reversed(docs)}
        if docs:
            return [("read", d) for d in reversed(unique.values())]
    finishing = bool(BEFORE_FINISHING.search(low)) or bool(CHECKLIST.search(section))
    # "Before handoff, verify that the patch … tests the required behavior": tests named as what the patch
    # does are no order to run them; before finishing, the tests must be run or pass
    # ("Refactor X" → "Ensure tests pass before and after": a quoted example of a goal, not an order)
    verify = bool(VERIFY.search(_QUOTED.sub(" ", low))) or (bool(BEFORE_FINISHING.search(low)) and bool(TESTS.search(low))
                                          and bool(_RUN_OR_PASS.search(low)))
    commands, runs_tests = _commands(low, codes, finishing)
    title = section.rsplit(" / ", 1)[-1]
    if FORBIDDEN_SECTION.search(title) and (item := re.match(r"^\W*\x00(\d+)\x00", low)):
        if EDIT_VERB.search(title):  # "Generated files (never edit by hand)": its items name paths
            path = codes[int(item.group(1))]
            return [("protect_path", path)] if PATH_LIKE.match(path) else []
    if FORBIDDEN_SECTION.search(title) and EDIT_VERB.search(title) and not NEGATION.search(low) and \
            (label := re.match(r"^[\W_]*[^\x00:]{1,40}?[*_]*:[*_\s]*(?=\x00)", low)):
        # "Boundaries (avoid editing)" / "- Runtime or generated dirs: `_build/`, `deps/`": each path listed
        return [("protect_path", p) for p in clauses.slot_list(low, label.end(), codes) if PATH_LIKE.match(p)]
    if FORBIDDEN_SECTION.search(title) and (item := re.match(r"^\W*\x00(\d+)\x00", low)):
        return [("forbid_command", c) for c in [codes[int(item.group(1))]] + clauses.slot_list(low, item.end(), codes)
                if is_command(c)]
    if not commands and CHECKLIST.search(section) and (label := CHECK_ITEM.match(low)):
        commands, runs_tests = [codes[int(label.group(1))]], bool(TESTS.search(low, 0, label.start(1)))
        verify = verify or runs_tests
    elif not commands and CHECKLIST.search(section) and (outcome := CHECK_OUTCOME.match(low)):
        commands = [codes[int(outcome.group(1))]]  # "`go test` (above) is green": a test run must pass
        runs_tests = bool(re.search(r"\btest\b", commands[0]))
        verify = verify or runs_tests
    opening = SLOT_RE.search(low)
    situational = situation(low)
    last = list(SLOT_RE.finditer(low))
    after_last = DOCS_ONLY_EXCEPTION.sub(lambda m: " " * len(m.group()), low[last[-1].end():]) if last else ""
    trailing = bool(last) and bool(TRAILING_CONDITION.match(after_last) or PART_PURPOSE.match(after_last) or
                                   OTHER_PURPOSE.match(after_last))
    # "Run all conformance tests with `X`": one kind of tests, not the suite
    kind_of_tests = re.search(rf"\b{KIND_OF_TESTS}\s+(?:tests?|suite|specs?)\b", low[:opening.start()] if opening else low)
    if (situational and (not opening or situational.start() < opening.start())) or OCCASIONAL.search(low) or \
            trailing or PARTICULAR_CHANGES.search(low) or conditional(low) or kind_of_tests:
        commands = []  # one situation's command, or an optional one
    commands = [c for c in commands if runnable_as_written(c) and not picks_one_test(c)]
    found: Found = []
    if commands and not runs_tests and (suite := next((c for c in commands if runs_the_suite(c)), None)):
        # "Always run `make test` before handoff": the command is the test suite by its shape
        found.append((SUITE_SHAPED, suite))  # type: ignore[arg-type]
        found += [("run", c) for c in commands if c != suite]
        commands, verify = [], verify or finishing
    if commands and runs_tests:
        found.append(("test_command", commands[0]))
        found += [("run", c) for c in commands[1:]]
        verify = verify or bool(re.search(r"\b(?:validat|verif)", low))
    else:
        found += [("run", c) for c in commands]
    if verify:
        found.append(("verify", None))
    return found


def _replaced_commands(previous: str, clause: str, codes: list[str]) -> Found:
    """"Stage files by name, not `git add -A` or `git add .`": a clause of nothing but the commands
    an order before it replaces bans them. The order must be an imperative of its own (no code in
    it, no description: "Tests live in `tests/`, not `test/`" bans nothing)."""
    low, before = clause.lower(), previous.lower()
    if not NOT_COMMANDS.match(low) or not before or DESCRIPTIVE_START.match(before) or SLOT_RE.search(before) or \
            NEGATION.search(before) or situation(before) or not re.match(r"^\W*[a-z]+\s+\w", before):
        return []
    return [("forbid_command", codes[int(i)]) for i in re.findall(r"\x00(\d+)\x00", low)
            if is_command(codes[int(i)]) and " " in codes[int(i)].strip()]


def block_prose(block_lines) -> tuple[str, list[int]]:
    """A paragraph's or list item's lines as one text (marker and emphasis gone), and where each line starts in it."""
    joined, starts = "", []
    for index, line in enumerate(block_lines):
        prose = _MARKER.sub("", line.text) if index == 0 else line.text.strip()
        if _IMPORT_LINE.match(line.text):
            prose = ""  # `@README.md` on its own line is an import, not the start of the next sentence
        starts.append(len(joined))
        joined += prose + " "
    # "**Always** run `X`", "Do **not** edit `P`": the words without their emphasis markers
    joined, kept = emphasis.strip(joined)
    return joined, [bisect.bisect_left(kept, start) for start in starts]


def parse(text: str, source: str) -> list[Directive]:
    """Every directive in `text`, in document order; each keeps the line its clause starts on."""
    directives: list[Directive] = []
    all_lines = markdown.lines(text)
    line_starts = [line.start for line in all_lines]
    lead: tuple[DirectiveKind, str] | None = None  # a clause introducing the fenced block that follows
    aside = False  # the block that follows is introduced for one situation ("To run specific tests:")
    steps_aside = False  # the list that follows is, too
    headings_above: list[tuple[int, str]] = []  # (level, lower-case title) from the top down to here
    list_lead: str | None = None  # what the paragraph above makes of the list that follows (`list_leads.led_item`)
    spans = list_leads.code_spans(all_lines)
    above = ""  # the paragraph right before this block: what introduces a table
    for block in markdown.blocks(text):
        section = " / ".join(title for _, title in headings_above)
        if block.kind == "code":
            directives += [Directive(kind, argument, source, number, said) for kind, argument, number, said
                           in blocks.from_block(text, block, lead, section, aside)]
            lead, aside = None, False
            continue
        # the block's last line, searched in this text's own line starts (a cached lookup keyed by the
        # text compares the whole text whenever another copy of it was cached: quadratic on a large file)
        last = bisect.bisect_right(line_starts, max(block.start, block.end - 1))
        block_lines = all_lines[block.line - 1:(block.line if block.kind == "heading" else last)]
        if block.kind == "heading":
            title = _MARKER.sub("", block_lines[0].text).lower()
            if block.level == 1:
                title = _TITLE_EXAMPLE.sub(" ", title)  # "# Example shop": a project's name, not a section of examples
            headings_above = [h for h in headings_above if h[0] < block.level] + [(block.level, title)]
            lead, aside, steps_aside, above = None, False, False, ""
            list_lead = list_leads.heading_lead(title)  # "## Before Every Commit" over its list of commands
            continue
        if block.kind == "paragraph" and text[block.start:block.end].lstrip().startswith("|"):
            directives += [Directive(kind, argument, source, block.line + offset, block_lines[offset].text.strip())
                           for kind, argument, offset in tables.from_table(text[block.start:block.end], above, section)
                           if offset < len(block_lines)]
            above = ""
            continue
        joined, starts = block_prose(block_lines)
        reference = any(headings.heading_class(title) == "reference" for _, title in headings_above)
        # a section below the document's title whose heading names no routine work: one topic's section
        topical = bool(headings_above) and headings_above[-1][0] > 1 and headings.is_topic(headings_above[-1][1])
        lead = None
        if block.kind != "item":
            steps_aside = False
            list_lead = list_leads.list_lead(joined)
        opening = re.match(r"^\W*`([^`\n]+)`", joined) if block.kind == "item" else None
        subject = opening.group(1).strip() if opening else None
        previous = ""
        conditioned = carried = False  # under a condition said earlier in the item or before a ";"
        for index, (clause, codes, offset) in enumerate(clauses.located(joined)):
            number = block_lines[bisect.bisect_right(starts, offset) - 1].number
            if index == 2:
                subject = None  # "… do not edit them" deep in a long item points at a nearer noun, not its opening path
            readable = clauses.readable(clause, codes)
            led = list_leads.led_item(list_lead, clause, codes, section, subject, _parse_clause) if block.kind == "item" else None
            found = [] if steps_aside else led if led is not None else _parse_clause(clause, codes, section, subject)
            if not found and not steps_aside:
                found = _replaced_commands(previous, clause, codes)
            previous = clause
            low = clause.lower()
            if conditioned or carried:
                found = []
            if topical and led is None and not (BEFORE_FINISHING.search(low) or _INSISTS.search(low) or
                                                EVERY_CHANGE.search(low) or ANY_CHANGE.search(low)):
                # "### Database migrations" / "Run `make migrate`": a bare order under a section about one topic is
                # that topic's command; only a line saying it is for every change makes it a step there
                found = [(kind, argument) for kind, argument in found if kind != "run"]
            if reference and led is None and not (BEFORE_FINISHING.search(low) or _INSISTS.search(low)):
                # "## Common commands": a list to pick from, its test command named, nothing ordered unless
                # a line insists ("**Always run `make style` before committing.**") or a lead above the
                # list does ("Run these before committing:")
                found = [(kind, argument) for kind, argument in found if kind != "run"]
            # "- If you update Rust types, regenerate …. Run `cargo check` first": the item's opening condition
            # holds for its later sentences; "Use ASan for ownership changes; follow `X`": and across a ";"
            conditioned = conditioned or (block.kind == "item" and index == 0 and bool(SCOPED_LEAD.match(low))
                                          and bool(conditional(low)))
            # (not any condition: "If you do open a PR: reference the issue; run `make check`" is every change's)
            carried = low.rstrip(" *_").endswith(";") and bool(PARTICULAR_CHANGES.search(low) or OCCASIONAL.search(low))
            above = {codes[int(m.group(1))] for m in ABOVE.finditer(clause)}
            for kind, argument in found:
                where = number
                if argument in above and (full := list_leads.written_above(argument, number, spans)):
                    argument, where = full  # "`go build` (above) succeeds": the command as written above
                    if any((d.kind, d.argument, d.line) == (kind, argument, where) for d in directives):
                        continue  # already read where it is written
                directives.append(Directive(kind, argument, source, where, readable))
            lead_kind = blocks.lead_of_block(clause, section)
            # "Set up a Go workspace first — `go.work` is local-only …:" the paragraph's imperative introduces the block
            keep = lead if block.kind == "paragraph" and joined.rstrip().endswith(":") else None
            lead = (lead_kind, readable) if lead_kind else keep
            # a block introduced by a clause the grammar does not read ("Generate coverage report:") is that
            # clause's, not the section's: no set-up or test command is inferred from the heading
            aside = bool(situation(low) or OCCASIONAL.search(low)) or (
                not lead_kind and low.rstrip(" *_").endswith(":") and not _WHERE_LEAD.match(low))
        above = joined if block.kind == "paragraph" else ""
        if block.kind == "paragraph" and joined.rstrip().endswith(":") and (
                (_SITUATION_LEAD.match(joined.lower()) and not BROAD_CHANGE.search(joined.lower())) or OCCASIONAL.search(joined.lower()) or PARTICULAR_CHANGES.search(joined.lower())
                or CATALOGUE_LEAD.match(joined.lower())):
            steps_aside = True  # "Before making changes that touch the architecture, check …:" and its list
    # A line holding a control character (a NUL, an escape) names no command or file as written:
    # what is left of it after splitting would be a directive the file never gave. Abstain.
    garbled = {number for number, line in enumerate(all_lines, 1) if not is_path_text(line.text.replace("\t", " ") or " ")}
    return suite_steps.settle([d for d in directives if d.line not in garbled])


#: Words that make a line under a reference or topic heading an order after all.
_INSISTS = re.compile(r"\b(?:always|must|required|mandatory|(?:every|each|any)\s+(?:change|commit|time)|all\s+changes|"
                      r"your\s+(?:changes|code|work))\b")
#: An item opening with a condition ("If you change the schema, …"): its later sentences are under it too.
SCOPED_LEAD = re.compile(r"^\W*(?:if|when|whenever|while|once|after)\b")
_VARIANT_ASIDE = re.compile(r"\s*\((?:e\.g\.,?\s+|to\s+)?(?:run\s+)?(?:a\s+)?(?:single|one|specific|individual)\s+"
                            r"(?:tests?|files?|packages?|specs?)\b[^()]*\)\W*$")
_QUOTED = re.compile(r'"[^"]*"|“[^”]*”')
_RUN_OR_PASS = re.compile(r"\b(?:run|running|pass|passes|passing|green|execute|executing)\b")
#: "When preparing a PR description:": the list after it is for that occasion; "When modifying code:" and
#: "When the feature is finished:" are every change.
_SITUATION_LEAD = re.compile(r"^\W*(?:when|whenever|while|if)\b(?![^:]*\b(?:code|changes?|files?|finished|done|complete|"
                             r"ready)\b)")
#: "From the repo root (…):", "In `packages/api`:": a lead saying where the block runs, not what it is for.
_WHERE_LEAD = re.compile(r"^\W*(?:from|in|inside|within|at)\s+(?:the\s+)?(?:repo|repository|project|root|workspace|top|"
                         r"\x00\d+\x00)")
_LINKED_CODE = re.compile(r"\[(\x00\d+\x00)\]\([^)\s]*\)")
_TITLE_EXAMPLE = re.compile(r"\b(?:examples?|samples?|demo)\b")
_IMPORT_LINE = re.compile(r"^\s*@[\w./~-]+\s*$")
#: A list marker or heading hashes; a bullet needs the space after it, so "**DO NOT** …" keeps its emphasis.
_MARKER = re.compile(r"^\s*(?:(?:[-*+]|\d+[.)]|\(\d+\))(?:\s+|$)|#+\s*)(?:\[[ xX]\]\s*)?")
