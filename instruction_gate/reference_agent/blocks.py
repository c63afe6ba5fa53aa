"""Fenced code blocks in instruction files: which of their lines are directives.

A block contributes commands only when the clause right above introduces it ("Run these before
committing:") or, under a set-up or testing heading, as set-up steps or the one line that runs
the whole suite; code examples, reference blocks and single-test variants contribute nothing.
"""

from __future__ import annotations

import re

from instruction_gate.lint import markdown
from instruction_gate.lint.references import CODE_LANGUAGES
from instruction_gate.reference_agent import headings
from instruction_gate.reference_agent.command_text import picks_one_test, runnable_as_written, runs_the_suite
from instruction_gate.reference_agent.phrases import (
    ASIDE_SECTION, BEFORE_FINISHING, CHECKLIST, KIND_OF_TESTS, KIND_OF_TESTS_WORD, LEAD, NEGATION, SLOT_RE, conditional, situation,
)

#: (kind, command, line, the text it was read from)
BlockDirective = tuple[str, str, int, str]

#: Sections whose fenced blocks are set-up steps, or name the test command.
_SETUP_SECTION = re.compile(r"\b(?:setup|set\s+up|setting\s+up|install|installation|getting\s+started)\b")
_TEST_SECTION = re.compile(r"\b(?:tests?|testing)\b")
#: A label alone naming the whole suite, over the block that runs it.
_TEST_LABEL_LEAD = re.compile(r"^[\W_]*(?:run\s+)?(?:test\s+(?:all|everything)|(?:all|the\s+full|the\s+whole|full|whole)\s+"
                              r"(?:unit\s+)?(?:tests?|test\s+suite))[\s*_]*:[\s*_]*$")
_RUNS_TESTS = re.compile(r"\s+(?:the\s+|all\s+|your\s+|every\s+)?(?:[\w-]+\s+){0,2}?(?:tests?|test\s+suite|specs?|suite)\b")
_SUITE_COMMENT = re.compile(r"#\s*(?:[^#]*\band\s+)?(?:run\s+)?(?:all|full|the\s+full|the\s+whole|whole|entire)\s+"
                             rf"(?:(?!{KIND_OF_TESTS}\b)[\w.+-]+\s+)?(?:unit\s+)?"
                             r"(?:tests?|test\s+suite|suite)\b"
                             r"|#\s*test\s+(?:the\s+)?(?:whole|entire|full)\s+(?:repo(?:sitory)?|project|codebase)\b"
                             # `pytest  # Run tests`: the tests, no kind named
                             r"|#\s*(?:run\s+)?(?:the\s+)?(?:unit\s+)?tests?\s*$")


_SETUP_LABEL_LEAD = re.compile(r"^[\W_]*(?:setup|set\s+up|installation|install|getting\s+started|development\s+setup)[\s*_]*:[\s*_]*$")
#: "Match what `composer complete-check` runs:", "Mirror what CI runs:" over the block of those checks.
_MATCH_CHECKS_LEAD = re.compile(r"^\W*(?:match|mirror|replicate|run)\s+(?:what|the\s+(?:checks|commands)\s+)\s*"
                                r"(?:\x00\d+\x00|ci|the\s+ci(?:\s+\w+)?)\s+(?:runs|does|checks|runs\s+in\s+ci)\s*:$")


#: A purpose every change has, then "run:": "To ensure your code adheres to the style guide, run:". Not
#: "To check X, run:", which is as often one occasion's ("To check the docs render, run:").
_ENSURE_LEAD = re.compile(r"^\W*to\s+(?:ensure|make\s+sure|guarantee)\s+(?:that\s+)?(?:your|the|all|every)\b[^:\x00]{0,80}?"
                          r",\s*(?:please\s+)?(?:always\s+)?run(?:\s+the\s+following)?\s*:$")
_SET_UP_PURPOSE_LEAD = re.compile(r"^\W*to\s+set\s+up\s+(?:the|your)\s+(?:development\s+|dev\s+|local\s+)?"
                                  r"(?:environment|project|repo(?:sitory)?|workspace)\b[^:\x00]{0,60}:$")


#: "Use the standard `dotnet` commands for building, testing and restoring:" over a block of them.
_COMMANDS_FOR = re.compile(LEAD + r"use\s+(?:the\s+)?(?:standard\s+|normal\s+|regular\s+|usual\s+|plain\s+)?"
                           r"\x00\d+\x00\s+commands?\s+(?:for|to)\s+[^:\x00]*\b(?:test|tests|testing)\b[^:\x00]*:$")


def lead_of_block(clause: str, section: str) -> str | None:
    """The kind a directly following fenced block's commands get, when this clause introduces them:
    "Run the tests:", "Always run these commands before committing.", "Install the tools:"."""
    low = re.sub(r"\([^)]*\)", " ", clause.lower()).rstrip()
    if ASIDE_SECTION.search(section):
        return None
    if _TEST_LABEL_LEAD.match(low):
        return "test_command"  # "**Test all:**", "Run all tests:" over the block that does it
    if _SETUP_LABEL_LEAD.match(low):
        return "install"  # "**Setup:**" over a block: a set-up heading written as a label
    if _MATCH_CHECKS_LEAD.match(low):
        return "run"  # "Match what `composer complete-check` runs:": the block is the checks a change must pass
    if _ENSURE_LEAD.match(low):
        return "run"  # "To ensure your code adheres to the style guide, run:": what every change must pass
    if _SET_UP_PURPOSE_LEAD.match(low):
        return "install"  # "To set up the environment and build the project:": its installing lines
    if SLOT_RE.search(low) or NEGATION.search(low) or situation(low) or conditional(low):
        # "Use standard `dotnet` commands for building, testing and restoring:": the block shows the
        # program's commands for those jobs; its set-up line and its test line are the steps
        return "commands_for" if _COMMANDS_FOR.match(low) and not NEGATION.search(low) and not situation(low) \
            and not conditional(low) else None
    imperative = re.match(LEAD + r"(?:(?P<run>run|execute)|(?P<install>install)|set\s+up)\b", low)
    # "Run the tests:", "Run all unit tests:"; not "Run this to catch errors in packages, tests, and examples:"
    tests = bool(imperative and imperative.group("run") and _RUNS_TESTS.match(low, imperative.end("run"))) and \
        not re.search(r"\b(?:these|checks|all\s+of|following)\b", low)
    if imperative and (tests or BEFORE_FINISHING.search(low) or CHECKLIST.search(section) or
                       re.search(r"\b(?:these|following|install|set\s+up)\b", low)):
        return "test_command" if tests else "install" if imperative.group("install") else "run"
    if BEFORE_FINISHING.search(low) or re.search(r"\b(?:mandatory|required)\W*:$", low):
        return "run"
    return None


def _block_commands(text: str, block: markdown.Block) -> list[tuple[int, str, str]]:
    """(line, command, trailing comment) of each command line of a fenced block."""
    out, above, depth = [], "", 0
    for line in markdown.lines(text[block.start:block.end]):
        body = line.text.strip()
        # `if …; then` … `fi`: a shell script written inline, not one command per line
        depth += bool(_COMPOUND_OPEN.match(body)) - bool(_COMPOUND_CLOSE.search(body))
        if depth > 0 or _COMPOUND_CLOSE.search(body) or _CD_ONLY.match(body):
            continue  # `cd cli` alone changes the directory for the lines under it, it checks nothing
        if body.startswith("#") and not body.startswith("#!"):
            above = body  # a comment line describes the command under it
            continue
        if not body or body.startswith(("```", "~~~", "//")):
            continue
        if _PLACEHOLDER_SECRET.search(body):
            break  # `echo "KEY='sk-...'" > .env.local`: a value the reader must supply, and the lines after need it
        body = body[2:] if body.startswith("$ ") else body
        command, comment = split_comment(body)
        if runnable_as_written(command):
            out.append((block.line + line.number - 1, command, comment or above))
        above = ""
    return out


def split_comment(body: str) -> tuple[str, str]:
    """(command, trailing comment): as the shell reads it, `#` opens a comment where a word starts
    (`unittest # Fast unit tests`), not inside quotes or within a word (`"a#b"`, `${#x}`, `url#frag`)."""
    quote = ""
    for index, char in enumerate(body):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and index and body[index - 1] in " \t":
            return body[:index].strip(), body[index:]
    return body.strip(), ""


def from_block(text: str, block: markdown.Block, lead: tuple[str, str] | None,
                section: str, aside: bool = False) -> list[BlockDirective]:
    """Directives of a fenced block: those its introducing clause gives it, else, under a set-up
    or testing heading, its set-up steps or the line that runs the whole test suite."""
    if markdown.fence_languages(text[block.start:block.end]).get(1) in CODE_LANGUAGES:
        return []  # a code example
    commands = _block_commands(text, block)
    # `cargo fmt  # format (required)`: a line the block itself marks as a step, even in a reference list
    required = [("run", c, n, comment) for n, c, comment in commands if _REQUIRED.search(comment.lower())]
    if ASIDE_SECTION.search(section):
        return required  # otherwise commands for particular needs (tips, troubleshooting, reference)
    out: list[BlockDirective] = []
    if lead is not None and lead[0] == "install":
        # "Install the tools:", "Set up the project:": the lines that install, as under a set-up heading
        return required + [("run", c, n, lead[1]) for n, c, comment in commands
                           if _INSTALLS.search(c) and not _SERVER.search(comment + c)]
    if lead is not None and lead[0] == "commands_for":
        installs = [("run", c, n, lead[1]) for n, c, comment in commands
                    if _INSTALLS.search(c) and not _SERVER.search(comment + c)]
        suite = [(n, c) for n, c, _ in commands if runs_the_suite(c)]
        return required + installs[:1] + [("test_command", c, n, lead[1]) for n, c in suite[:1]]
    if lead is not None:
        kind, said = lead
        tests_lead = suite_taken = kind == "test_command"
        commented_suite = any(_SUITE_COMMENT.search(c.lower()) for _, _, c in commands)
        for number, command, comment in commands:
            # "# Test individual file you worked on", "# Re-run tests on intermittent failure": variants for an occasion
            if picks_one_test(command) or re.search(r"\b(?:one|single|specific|individual|re-?run)\b", comment.lower()):
                continue
            if tests_lead and kind == "run" and comment:
                continue  # "Run the tests:" then `rake smoke  # Quick smoke test`: an alternative, not a step
            # the line commented "# all tests", else the first shaped like the suite (`make test`)
            suite = _SUITE_COMMENT.search(comment.lower()) or (runs_the_suite(command) and not commented_suite)
            this = "test_command" if kind == "run" and suite and not suite_taken else kind
            suite_taken = suite_taken or this == "test_command"
            out.append((this, command, number, said))
            kind = "run" if kind == "test_command" else kind  # one test command per block
        return out
    if aside or _ALTERNATIVE.search(section.rsplit(" / ", 1)[-1]) or NEGATION.search(section.rsplit(" / ", 1)[-1]):
        return required  # "To run specific tests:", "Otherwise, prefix …:", "Do NOT use `--filter`": not steps
    # "## Build and check" over `cargo build` / `cargo test` / `cargo clippy`: steps, unless some heading above
    # names a collection ("## Common commands"), whose blocks are to pick from, not orders
    classes = [headings.heading_class(title) for title in section.split(" / ")]
    if classes and classes[-1] == "steps" and "reference" not in classes and \
            (steps := _routine_steps(text, block, commands, section)) is not None:
        return steps
    if _SETUP_SECTION.search(section.rsplit(" / ", 1)[-1]):  # the block's own heading, not an ancestor
        # only the steps that install what the project needs: a set-up block also clones, copies
        # secrets, starts services and seeds data, which no change asks for
        return [("run", c, n, section) for n, c, comment in commands
                if _INSTALLS.search(c) and not _SERVER.search(comment + c)]
    # `cd actionview && bin/test  # Run all tests`: one subproject's suite, not the repository's
    commands = [(n, c, comment) for n, c, comment in commands if not _WRONG.search(comment.lower())
                and not _SUBPROJECT.match(c)]
    suite = [(n, c) for n, c, comment in commands if _SUITE_COMMENT.search(comment.lower()) and not picks_one_test(c)]
    # under "Browser Tests" or "Benchmarks" the first command runs that kind of tests, not the suite
    kind_of_tests = KIND_OF_TESTS_WORD.search(section.rsplit(" / ", 1)[-1])
    if not suite and _TEST_SECTION.search(section) and not kind_of_tests and commands and \
            re.search(r"\btest|test\b", commands[0][1]):  # `go test`, `make test`, `pytest`
        suite = [commands[0][:2]] if not picks_one_test(commands[0][1]) else []
    # `bun install  # Install dependencies` in a list of commands: the set-up step among them
    setup = [("run", c, n, comment) for n, c, comment in commands if _SETUP_COMMENT.search(comment.lower())]
    return required + setup[:1] + [("test_command", c, n, section) for n, c in suite[:1]]


#: At most this many lines make a block of routine steps; a longer one is a catalogue.
_MAX_ROUTINE_STEPS = 6


def _routine_steps(text: str, block: markdown.Block, commands: list[tuple[int, str, str]],
                   section: str) -> list[BlockDirective] | None:
    """A block under a routine heading: every command line is a step, the suite-shaped one the test
    command. None (abstain) unless every line of the block is a plain command to run as written: a
    placeholder, a `cd`, a one-test variant, a server or a commented alternative makes it a recipe."""
    lines = [line.text.strip() for line in markdown.lines(text[block.start:block.end])]
    body = [line for line in lines if line and not line.startswith(("```", "~~~"))]
    if not commands or len(body) != len(commands) or len(commands) > _MAX_ROUTINE_STEPS:
        return None  # a comment, a continuation, a `cd` or a line that is no runnable command
    if any(picks_one_test(c) or _SERVER.search(c + " " + comment) or comment for _, c, comment in commands):
        return None
    steps: list[BlockDirective] = []
    suite_taken = False
    for number, command, _ in commands:
        suite = runs_the_suite(command) and not suite_taken
        suite_taken = suite_taken or suite
        steps.append(("test_command" if suite else "run", command, number, section))
    return steps


_COMPOUND_OPEN = re.compile(r"^(?:if|for|while|until|case)\s(?!.*;\s*(?:fi|done|esac)\s*$)")
_COMPOUND_CLOSE = re.compile(r"^(?:fi|done|esac)\b")
_CD_ONLY = re.compile(r"^(?:cd|pushd|popd)(?:\s+\S+)?$")
#: A comment marking a line as what not to do: "# WRONG - VSTest-style filter".
_WRONG = re.compile(r"\b(?:wrong|incorrect|bad|don'?t|do\s+not|never|avoid)\b")
_ALTERNATIVE = re.compile(r"\b(?:fallback|alternative|alternatively|without|optional|specific|single|debug)\b")
#: A command that installs or fetches what the project needs (`uv sync`, `npm ci`, `mix deps.get`, `make setup`).
_INSTALLS = re.compile(r"(?:^|[\s:./-])(?:install|ci|sync|restore|bootstrap|setup|set-up|download|fetch|deps(?:\.get)?|"
                       r"dependencies|prepare)(?=$|[\s:.-])|^(?:yarn|bundle)$")
_SETUP_COMMENT = re.compile(r"^#\s*install(?:ing)?\s+(?:(?:the|all|project|dev|development|python|node|js|required)\s+){0,2}"
                            r"(?:dependencies|deps|packages|requirements)\b")
#: ("`just fmt  # Format code (run after modifications)`": the comment says to run it on every change.)
_REQUIRED = re.compile(r"\((?:required|mandatory|run\s+(?:it\s+)?after\s+(?:every\s+|each\s+|any\s+)?"
                       r"(?:modifications?|changes?|edits?|editing)|run\s+(?:it\s+)?before\s+(?:committing|pushing|"
                       r"submitting|opening\s+a\s+(?:pr|pull\s+request)))\)|^#\s*(?:required|mandatory)\b")
_SUBPROJECT = re.compile(r"^cd\s+\S+\s*&&")
#: Long-running servers and watchers are not steps to run and wait for.
#: (`docker compose up -d  # Start PostgreSQL`: a service started in the background is one too.)
_SERVER = re.compile(r"(?i)\b(?:dev\s+server|server|watch|serve|start)\b|\bup\s+(?:-d|--detach)\b")
#: A value left for the reader to fill in: `sk-...`, `<key>`, `...` as a word.
_PLACEHOLDER_SECRET = re.compile(r"\w-\.\.\.|<[a-z_ -]*(?:key|token|secret|password)[a-z_ -]*>|(?:^|[\s='\"])\.\.\.(?:$|[\s'\"])",
                                 re.IGNORECASE)
