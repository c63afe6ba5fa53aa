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
from dataclasses import dataclass
from typing import Literal

from instruction_gate.lint import markdown
from instruction_gate.lint.references import CODE_LANGUAGES
from instruction_gate.reference_agent.command_text import is_command, picks_one_test, runnable_as_written

__all__ = ["Directive", "DirectiveKind", "is_command", "parse"]

DirectiveKind = Literal["run", "test_command", "verify", "forbid_command", "protect_path",
                        "approve_command", "approve_edit", "read"]


@dataclass(frozen=True)
class Directive:
    """One instruction the reference agent understood."""

    kind: DirectiveKind
    argument: str | None  #: command, glob or document path as written (None for `verify`)
    source: str  #: repository-relative path of the file the directive came from
    line: int  #: 1-based line in that file
    text: str  #: the sentence it was read from, for reports


Found = list[tuple[DirectiveKind, "str | None"]]

_CODE = re.compile(r"`([^`\n]+)`")
_SLOT = "\x00{}\x00"
_SLOT_RE = re.compile(r"\x00(\d+)\x00")
#: Clause boundaries: sentence ends (also inside emphasis: "**Always do X.** Run …"), "but", dashes, and a new always/never rule after "and".
_SENTENCE_END = re.compile(r"(?i)(?<=[.!?;])[*_]*\s+|\s+but\s+|\s+—\s+|,?\s+and\s+(?=(?:always|never|do not|don't)\b)"
                           r"|,\s+(?=not\s)")
#: Letters only around the word: emphasis (`_never_`, `**never**`) does not hide it.
_NEGATION = re.compile(r"(?<![a-z0-9])(?:never|do not|don't|must not|should not|may not|avoid|forbidden|prohibited|"
                       r"not allowed|not permitted)(?![a-z0-9])")
_POSTFIX = re.compile(r"\b(?:is|are)\s+(?:forbidden|prohibited|not allowed|not permitted)\b")
_FORBID_VERB = re.compile(r"\b(?:run|running|execute|executing|invoke|invoking|call|calling|use|using|do|doing)\b")
_EDIT_VERB = re.compile(r"\b(?:edit|modify|change|touch|write to|delete|update|editing|modifying|changing|touching|"
                        r"updating)\b")
#: "When running `nu -c`, never use `echo`": a rule for one situation, not a blanket ban.
_SCOPED = re.compile(r"^\W*(?:when|whenever|while|if)\b")
#: What follows these in a prohibition illustrates it or names the alternative: not forbidden itself.
_EXAMPLE_AFTER = re.compile(r"\b(?:like|e\.g\.?|for\s+example|for\s+instance|such\s+as|instead)\b")
#: A protected path or glob: a directory, a glob, a dotfile or a file name with a file extension
#: (`process.env` and `os.environ` are names in code, not files).
_PATH_LIKE = re.compile(r"(?i)^(?:[\w.*@-]*/[\w./*@-]*|\*[\w./*-]*|\.[\w.-]+|[\w*-]+(?:\.[\w-]+)*\.(?:md|mdx|rst|txt|json|"
                        r"jsonc|ya?ml|toml|lock|cfg|ini|config|props|targets|xml|html?|css|scss|py|pyi|ts|tsx|js|mjs|cjs|"
                        r"jsx|go|mod|sum|rs|rb|java|kt|cs|csproj|sln|slnx|swift|c|h|cc|cpp|hpp|sh|ps1|sql|proto|snap|"
                        r"svg|png|xlf|resx|lua|ex|exs|php|gradle)|Makefile|Dockerfile|Gemfile|Rakefile|LICENSE|"
                        r"CODEOWNERS|Justfile|Procfile)$")
#: File names written without backticks ("Never change global.json or NuGet.config files").
_BARE_FILE = re.compile(r"(?<![\w./`-])((?:[\w.-]+/)*[\w-]+(?:\.[\w-]+)*\.(?:json|ya?ml|toml|lock|config|props|targets|"
                        r"xml|md|cfg|ini|txt))(?![\w/-])", re.IGNORECASE)
_APPROVAL = re.compile(r"\bask\s+(?:for\s+|a\s+human\s+for\s+)?(?:approval|permission|confirmation)\s+before\b")

_TESTS = re.compile(r"\b(?:tests?|test suite|testing|specs?)\b")
_FINISHING = (r"(?:finishing|you\s+finish|handing\s+(?:off|over)|committing|you\s+commit|pushing|you\s+push|"
              r"submitting|you\s+are\s+done|you're\s+done|(?:opening|you\s+open)\s+a\s+(?:pull\s+request|pr)|"
              r"declaring\s+(?:the\s+task\s+)?done|completing\s+(?:a|the|any)\s+task|marking\s+\w+\s+(?:as\s+)?done)")
_BEFORE_FINISHING = re.compile(rf"\bbefore\s+{_FINISHING}|\bwhen\s+(?:you\s+are|you're)\s+(?:done|finished)\b")
_BARE_DOC = re.compile(r"(?<![\w/.`-])((?:[\w.*-]+/)*[\w*-]+\.(?:md|rst|txt))\b")
#: Words that, before a command, make it optional or tied to a situation, not meant for every change.
_SITUATION = re.compile(r"\b(?:if|when|whenever|in case|unless|can|could|may|might|optionally|debug|debugging|"
                        r"specific|single|particular|individual|windows|macos|linux|only|e\.g|for example|"
                        r"release|releasing|integration|live|slow|benchmarks?|e2e|end-to-end)\b")
#: "Before making changes that touch the architecture": one kind of change, not every change.
_PARTICULAR_CHANGES = re.compile(r"\b(?:changes|work)\s+(?:that|which)\s+(?:touch|touches|affect|affects|involve|"
                                 r"involves)\b")
#: "Run `X` if adding dependencies", "Run `X` when you change the schema": a condition after the command.
_TRAILING_CONDITION = re.compile(r"^[\s,(]*(?:only\s+)?(?:if|when|whenever|unless|in\s+case)\b(?!\s+(?:you\s+are|you're)\s+"
                                 r"(?:done|finished))")
#: Purposes and occasions that tie a command to one kind of change, wherever they stand.
_OCCASIONAL = re.compile(r"\b(?:to\s+(?:update|regenerate|generate|add|create|reproduce|debug|list|get|see|print|bump)|"
                         r"after\s+(?:changing|adding|modifying|updating|touching|editing|altering)\s+"
                         r"(?!(?:any\s+|your\s+|the\s+)?(?:(?:code|source)(?:\s+(?:code|files))?|files|changes)\b(?!\s+[a-z]))|"
                         r"for\s+updates|upgrad(?:e|ing))\b")
#: What may precede an imperative verb at the start of a clause.
_LEAD = (r"^\W*(?:[\w /()-]{1,30}?[*_]*:[*_]*\s*)?(?:(?:and|then|also|always|first|finally|next|now|please|just|so|"
         rf"afterwards|before\s+{_FINISHING}[^,.:]{{0,30}}[,:]|before\s+doing\s+anything\s+else,|"
         r"before\s+(?:starting|beginning)\s+(?:any|a|the|each|your)\s+(?:task|work|change)s?,|"
         r"after\s+cloning(?:\s+the\s+repo(?:sitory)?)?,|"
         r"after\s+(?:making|editing|changing|altering)\s+(?:any\s+)?(?:changes|code|files)[^,.:]{0,20}[,:]|"
         r"after\s+(?:your|each|every|any)\s+change,|"
         r"you\s+(?:must|should|need\s+to)|make\s+sure\s+(?:to|you)|be\s+sure\s+to|remember\s+to|"
         r"ensure\s+(?:that\s+)?you)\s+)*")
_RUN_START = re.compile(_LEAD + r"(?:run|execute|invoke)\b")
_READ = re.compile(_LEAD + r"(?:read|follow|(?:consult|review)(?=[^.]*\bbefore\b))\b")
#: "See `AGENTS.md` for the shared agent instructions": a pointer to the rules to follow is a read.
_INSTRUCTIONS_POINTER = re.compile(_LEAD + r"(?:see|refer\s+to)\s+(?:\x00\d+\x00|[\w./-]+\.md)\s+for\s+(?:the\s+|all\s+|our\s+)?"
                                   r"(?:[\w-]+\s+){0,3}?(?:instructions|rules)\b")
_USE_START = re.compile(_LEAD + r"use\s+(?:the\s+)?\x00(\d+)\x00(?:\s+\w+){0,2}?\s+(?:to\s+(?:run|format|lint|test|"
                        r"check|type-?check|build|verify|validate|fix|install)|for\s+(?:running|formatting|linting|"
                        r"testing|checking|type-?checking|building|verifying|validating))\b")
#: "Use `mix precommit` when you are done": a finishing step.
_USE_WHEN_DONE = re.compile(_LEAD + r"use\s+(?:the\s+)?\x00(\d+)\x00")
#: "make sure `tools/format.js` is run".
_ENSURE_RUN = re.compile(_LEAD + r"(?:make\s+sure|ensure)\s+(?:that\s+)?\x00(\d+)\x00\s+(?:is|gets|was|has\s+been)\s+run\b")
#: "Install dependencies with `X`", "Lint your changes with `X`", "Keep code formatted with `X`".
_TASK_START = re.compile(_LEAD + r"(?:install|set\s+up|lint|format|type-?check|check|build|fix|test|keep)\b[^\x00]{0,40}?"
                         r"\b(?:with|using|via|by\s+running)\s+\x00(\d+)\x00")
#: Label forms naming the test command: "Tests: `X`", "Unit testing: `X`", "`X` - run all tests".
_TEST_LABEL = re.compile(r"^\W*(?:run\s+)?(?:all\s+|the\s+|unit\s+)?(?:(?:tests?|testing|test suite|specs?)"
                         r"(?:\s*\((?:all|full)\))?|unit\s*\((?:all|full)\))\W*:[\s*_]*"
                         r"\x00(\d+)\x00(?:\s+or\s+\x00\d+\x00)?\W*$")
#: "Install dependencies: `X`", "**Setup:** `X`": a set-up step written as a label.
_SETUP_LABEL = re.compile(r"^\W*(?:install(?:ing)?\s+(?:the\s+)?(?:dependencies|deps|packages|requirements)|setup|"
                          r"set\s+up)\W*:[\s*_]*\x00(\d+)\x00\W*$")
_LABELLED_TEST = re.compile(r"^\W*\x00(\d+)\x00\s*[-–—:]\s*(?:run\s+)?(?:all\s+|the\s+)?(?:tests?|test suite)\W*$")
#: "Tests must pass before committing", "Get your tests to pass", "Run tests after altering code".
_VERIFY = re.compile(r"\btests?\b[^.]{0,40}\bmust\s+(?:all\s+)?pass\b|\bget\s+(?:your|the|all)?\s*tests?\s+to\s+pass\b|"
                     r"\b(?:make\s+sure|ensure)\b[^.]{0,40}\btests?\b[^.]{0,20}\bpass|"
                     r"^\W*(?:always\s+)?run\s+(?:the\s+|all\s+|your\s+)?tests?\s+(?:after|before)\b|"
                     r"^\W*all\s+tests\s+pass\b")
#: Between a run verb and its command: a short object ("the payments tests with"), never a word that
#: turns the command into something else's object ("run into errors with no `x`").
_GAP_WORD = re.compile(r"[\w'/-]+|[:,]")
_GAP_STOP = frozenset("to for so which because if when that no not without into out away across over under unless "
                      "until while on them it those".split())


def _object_gap(gap: str) -> bool:
    words = _GAP_WORD.findall(gap)
    return len(words) <= 6 and not (set(words) & _GAP_STOP) and "".join(_GAP_WORD.sub("", gap).split()) == ""


_LIST_JOIN = re.compile(r"^\s*(?:,|and|or|nor|&|then|plus|\+|/|,\s*and|,\s*or|,\s*then)?\s*$")


def _clauses(text: str) -> list[tuple[str, list[str]]]:
    """Split text into clauses with backticked spans replaced by numbered slots."""
    codes: list[str] = []

    def slot(match: re.Match[str]) -> str:
        codes.append(match.group(1).strip())
        return _SLOT.format(len(codes) - 1)

    masked = _CODE.sub(slot, text)
    return [(c, codes) for c in _SENTENCE_END.split(masked) if c and c.strip()]


def _slot_list(low: str, position: int, codes: list[str]) -> list[str]:
    """The command slots right after `position`: a list joined by commas/and/then, nothing else."""
    found, cursor = [], position
    for match in _SLOT_RE.finditer(low, position):
        gap = low[cursor:match.start()]
        if not (_object_gap(gap) if not found else _LIST_JOIN.match(gap)):
            break
        found.append(codes[int(match.group(1))])
        cursor = match.end()
    return found


def _slots_after(clause: str, position: int, codes: list[str]) -> list[str]:
    return [codes[int(m.group(1))] for m in _SLOT_RE.finditer(clause, position)]


def _readable(clause: str, codes: list[str]) -> str:
    return _SLOT_RE.sub(lambda m: f"`{codes[int(m.group(1))]}`", clause).strip()


def _prohibition(low: str, codes: list[str], negation: re.Match[str], clause: str = "") -> Found:
    if _SCOPED.match(low) and _SLOT_RE.search(low, 0, negation.start()):
        return []  # "when running `nu -c`, never use `echo`": scoped to one situation
    if example := _EXAMPLE_AFTER.search(low, negation.end()):
        low = low[:example.start()]  # "never use `echo` like `nu -c "echo x"`": the example is not banned
    if (edit := _EDIT_VERB.search(low, negation.end())) and not _FORBID_VERB.search(low, negation.end(), edit.start()):
        return _protected(low, codes, negation, edit, clause)
    if verb := _FORBID_VERB.search(low, negation.end()):
        slots = list(_SLOT_RE.finditer(low, verb.end()))
        if slots and re.match(r"\s+(?:to|for|when|while|if|on|in)\s+(?!the\s+repo|this\s+repo|ci\b|production\b)",
                              low[slots[-1].end():]):
            return []  # scoped to a purpose or a place ("Do not use `curl` to test HMR"): not a blanket ban
        # the list right after the verb: "Never use `npm`, use `pnpm` instead" bans npm only
        return [("forbid_command", t) for t in _slot_list(low, verb.end(), codes) if is_command(t)]
    if direct := re.match(r"[\s*_:]*\x00(\d+)\x00", low[negation.end():]):  # "Never `git push` without …"
        command = codes[int(direct.group(1))]
        return [("forbid_command", command)] if is_command(command) else []
    if (verb := _FORBID_VERB.search(low[:negation.start()])) and _POSTFIX.search(low, verb.end()):
        # "Using `make deploy` is prohibited": the prohibition follows what it forbids
        return [("forbid_command", t) for t in _slots_after(low[:negation.start()], verb.end(), codes)
                if is_command(t)]
    return []  # a negated sentence never becomes a positive directive


def _protected(low: str, codes: list[str], negation: re.Match[str], verb: re.Match[str], clause: str) -> Found:
    """Paths a prohibition of editing names: in backticks after the verb, written bare after it
    ("Never change global.json"), or before it when it closes the clause ("`x/*.cs` (generated,
    don't edit)"). Only what looks like a path or a glob counts."""
    after = _slots_after(low, verb.end(), codes)
    if not after and not _SLOT_RE.search(low, verb.end()):
        bare = _BARE_FILE.findall(_SLOT_RE.sub(" ", clause[verb.end():])) if clause else []
        after = bare or (_slots_after(low[:negation.start()], 0, codes)
                         if re.fullmatch(r"[\s\w,]*\W*", low[verb.end():]) else [])
    return [("protect_path", t) for t in after if _PATH_LIKE.match(t.strip())]


def _commands(low: str, codes: list[str], finishing: bool) -> tuple[list[str], bool]:
    """Commands the clause orders run, and whether they run the tests."""
    if match := _TEST_LABEL.match(low) or _LABELLED_TEST.match(low):
        return [codes[int(match.group(1))]], True
    if match := _SETUP_LABEL.match(low):
        return [codes[int(match.group(1))]], False
    if match := _RUN_START.match(low):
        found = _slot_list(low, match.end(), codes)
        first = _SLOT_RE.search(low, match.end())
        purpose = low[first.end():] if first else ""
        tests = bool(found and (_TESTS.search(low, 0, first.start()) or
                                re.match(r"[^.]{0,60}?\bto\s+run\s+(?:(?:all|the|full|whole|entire)\s+)*(?:unit\s+)?"
                                         r"(?:tests?|test\s+suite|suite)\b", purpose)))
        return found, tests
    if match := _USE_START.match(low):
        return [codes[int(match.group(1))]], bool(re.search(r"\b(?:test|testing|validat|verif)", low[match.start(1):]))
    if match := _ENSURE_RUN.match(low) or (finishing and _USE_WHEN_DONE.match(low)):
        return [codes[int(match.group(1))]], False
    if match := _TASK_START.match(low):
        return [codes[int(match.group(1))]], bool(re.match(_LEAD + r"test\b", low))
    return [], False


def _parse_clause(clause: str, codes: list[str], section: str = "") -> Found:
    low = clause.lower()
    if approval := _APPROVAL.search(low):
        targets = _slots_after(low, approval.end(), codes)
        kind: DirectiveKind = "approve_edit" if _EDIT_VERB.search(low, approval.end()) else "approve_command"
        return [(kind, t) for t in targets]
    if negation := _NEGATION.search(low):
        return _prohibition(low, codes, negation, clause)
    if _ASIDE_SECTION.search(section):
        return []  # tips, troubleshooting, quick references: commands for when they are needed
    if (_READ.match(low) or _INSTRUCTIONS_POINTER.match(low)) and not _SITUATION.search(low):
        docs = [c for c in _slots_after(low, 0, codes) if _BARE_DOC.fullmatch(c)]
        docs += _BARE_DOC.findall(_SLOT_RE.sub(" ", clause))
        if docs:
            return [("read", d) for d in dict.fromkeys(docs)]
    finishing = bool(_BEFORE_FINISHING.search(low)) or bool(_CHECKLIST.search(section))
    verify = bool(_VERIFY.search(low)) or (bool(_BEFORE_FINISHING.search(low)) and bool(_TESTS.search(low)))
    commands, runs_tests = _commands(low, codes, finishing)
    if _FORBIDDEN_SECTION.search(section.rsplit(" / ", 1)[-1]) and (item := re.match(r"^\W*\x00(\d+)\x00", low)):
        return [("forbid_command", c) for c in [codes[int(item.group(1))]] + _slot_list(low, item.end(), codes)
                if is_command(c)]
    if not commands and _CHECKLIST.search(section) and (label := _CHECK_ITEM.match(low)):
        commands, runs_tests = [codes[int(label.group(1))]], bool(_TESTS.search(low, 0, label.start(1)))
        verify = verify or runs_tests
    opening = _SLOT_RE.search(low)
    situational = _SITUATION.search(_BEFORE_FINISHING.sub(" ", low))
    last = list(_SLOT_RE.finditer(low))
    trailing = bool(last) and bool(_TRAILING_CONDITION.match(low[last[-1].end():]))
    if (situational and (not opening or situational.start() < opening.start())) or _OCCASIONAL.search(low) or \
            trailing or _PARTICULAR_CHANGES.search(low):
        commands = []  # one situation's command, or an optional one
    commands = [c for c in commands if runnable_as_written(c) and not picks_one_test(c)]
    found: Found = []
    if commands and runs_tests:
        found.append(("test_command", commands[0]))
        found += [("run", c) for c in commands[1:]]
        verify = verify or bool(re.search(r"\b(?:validat|verif)", low))
    else:
        found += [("run", c) for c in commands]
    if verify:
        found.append(("verify", None))
    return found


#: Sections whose commands are for particular needs, not for every change.
_ASIDE_SECTION = re.compile(r"\b(?:tips?|troubleshooting|debugging|faq|advanced|optional|quick\s+reference|"
                            r"reference|cheat\s*sheet|releas(?:e|ing)|publishing|deploy(?:ing|ment)?|examples?)\b")
#: Sections listing what never to run: "Strictly Forbidden Git Operations", "Never do this".
_FORBIDDEN_SECTION = re.compile(r"\b(?:forbidden|prohibited|never|do\s+not|don'?t|not\s+allowed|banned)\b")
#: Sections whose items are things to do before finishing: "Definition of Done", "Pre-commit checklist".
_CHECKLIST = re.compile(r"\b(?:definition\s+of\s+done|checklist|before\s+(?:committing|submitting|you\s+commit|"
                        r"opening|pushing)|pre-?commit|landing\s+the\s+plane|session\s+completion)\b")
#: A checklist item "<label>: `cmd`" ("All tests pass: `go test ./...`", "Linting clean: `X`").
_CHECK_ITEM = re.compile(r"^\W*(?:\[[ x]\]\s*)?[\w ,/'-]{1,40}?[*_]*:[\s*_]*\x00(\d+)\x00\W*$")
#: Sections whose fenced blocks are set-up steps, or name the test command.
_SETUP_SECTION = re.compile(r"\b(?:setup|set\s+up|setting\s+up|install|installation|getting\s+started)\b")
_TEST_SECTION = re.compile(r"\b(?:tests?|testing)\b")
_SUITE_COMMENT = re.compile(r"#\s*(?:run\s+)?(?:all|full|the\s+full|the\s+whole|whole|entire)\s+(?:unit\s+)?"
                            r"(?:tests?|test\s+suite|suite)\b")


def _lead_of_block(clause: str, section: str) -> DirectiveKind | None:
    """The kind a directly following fenced block's commands get, when this clause introduces them:
    "Run the tests:", "Always run these commands before committing.", "Install the tools:"."""
    low = re.sub(r"\([^)]*\)", " ", clause.lower()).rstrip()
    if _ASIDE_SECTION.search(section):
        return None
    if _SLOT_RE.search(low) or _NEGATION.search(low) or _SITUATION.search(_BEFORE_FINISHING.sub(" ", low)):
        return None
    imperative = re.match(_LEAD + r"(?:(?P<run>run|execute)|install|set\s+up)\b", low)
    tests = bool(imperative and imperative.group("run") and _TESTS.search(low)) and \
        not re.search(r"\b(?:these|checks|all\s+of|following)\b", low)
    if imperative and (tests or _BEFORE_FINISHING.search(low) or _CHECKLIST.search(section) or
                       re.search(r"\b(?:these|following|install|set\s+up)\b", low)):
        return "test_command" if tests else "run"
    if _BEFORE_FINISHING.search(low) or re.search(r"\b(?:mandatory|required)\W*:$", low):
        return "run"
    return None


def _block_commands(text: str, block: markdown.Block) -> list[tuple[int, str, str]]:
    """(line, command, trailing comment) of each command line of a fenced block."""
    out, above = [], ""
    for line in markdown.lines(text[block.start:block.end]):
        body = line.text.strip()
        if body.startswith("#") and not body.startswith("#!"):
            above = body  # a comment line describes the command under it
            continue
        if not body or body.startswith(("```", "~~~", "//")):
            continue
        body = body[2:] if body.startswith("$ ") else body
        command, _, comment = body.partition("  #")
        command = command.strip()
        if runnable_as_written(command):
            out.append((block.line + line.number - 1, command, "#" + comment if comment else above))
        above = ""
    return out


def _from_block(text: str, block: markdown.Block, lead: tuple[DirectiveKind, str] | None,
                section: str, source: str, aside: bool = False) -> list[Directive]:
    """Directives of a fenced block: those its introducing clause gives it, else, under a set-up
    or testing heading, its set-up steps or the line that runs the whole test suite."""
    if markdown.fence_languages(text[block.start:block.end]).get(1) in CODE_LANGUAGES or _ASIDE_SECTION.search(section):
        return []  # a code example, or commands for particular needs (tips, troubleshooting, reference)
    commands = _block_commands(text, block)
    out: list[Directive] = []
    if lead is not None:
        kind, said = lead
        for number, command, comment in commands:
            if picks_one_test(command) or re.search(r"\b(?:one|single|specific)\b", comment.lower()):
                continue
            this = "test_command" if kind == "run" and _SUITE_COMMENT.search(comment.lower()) else kind
            out.append(Directive(this, command, source, number, said))
            kind = "run" if kind == "test_command" else kind  # one test command per block
        return out
    if _SETUP_SECTION.search(section):
        return [Directive("run", c, source, n, section) for n, c, comment in commands if not _SERVER.search(comment + c)]
    if aside or _ALTERNATIVE.search(section.rsplit(" / ", 1)[-1]) or _NEGATION.search(section.rsplit(" / ", 1)[-1]):
        return []  # "To run specific tests:", "Fallback without nextest", "Do NOT use `--filter`": not the suite
    commands = [(n, c, comment) for n, c, comment in commands if not _WRONG.search(comment.lower())]
    suite = [(n, c) for n, c, comment in commands if _SUITE_COMMENT.search(comment.lower()) and not picks_one_test(c)]
    if not suite and _TEST_SECTION.search(section) and commands and re.search(r"\btest", commands[0][1]):
        suite = [commands[0][:2]] if not picks_one_test(commands[0][1]) else []
    return [Directive("test_command", c, source, n, section) for n, c in suite[:1]]


#: A comment marking a line as what not to do: "# WRONG - VSTest-style filter".
_WRONG = re.compile(r"\b(?:wrong|incorrect|bad|don'?t|do\s+not|never|avoid)\b")
_ALTERNATIVE = re.compile(r"\b(?:fallback|alternative|alternatively|without|optional|specific|single|debug)\b")
#: Long-running servers and watchers are not steps to run and wait for.
_SERVER = re.compile(r"\b(?:dev\s+server|server|watch|serve|start)\b")


def parse(text: str, source: str) -> list[Directive]:
    """Every directive in `text`, in document order; each keeps the line its clause starts on."""
    directives: list[Directive] = []
    all_lines = markdown.lines(text)
    lead: tuple[DirectiveKind, str] | None = None  # a clause introducing the fenced block that follows
    aside = False  # the block that follows is introduced for one situation ("To run specific tests:")
    steps_aside = False  # the list that follows is, too
    headings: list[tuple[int, str]] = []  # (level, lower-case title) from the top down to here
    for block in markdown.blocks(text):
        section = " / ".join(title for _, title in headings)
        if block.kind == "code":
            directives += _from_block(text, block, lead, section, source, aside)
            lead, aside = None, False
            continue
        last = markdown.line_of(text, max(block.start, block.end - 1))
        block_lines = all_lines[block.line - 1:(block.line if block.kind == "heading" else last)]
        if block.kind == "heading":
            headings = [h for h in headings if h[0] < block.level] + [(block.level, _MARKER.sub("", block_lines[0].text).lower())]
            lead, aside, steps_aside = None, False, False
            continue
        joined, starts = "", []
        for index, line in enumerate(block_lines):
            prose = _MARKER.sub("", line.text) if index == 0 else line.text.strip()
            starts.append(len(joined))
            joined += prose + " "
        lead = None
        if block.kind != "item":
            steps_aside = False
        for clause, codes, offset in _located_clauses(joined):
            number = block_lines[bisect.bisect_right(starts, offset) - 1].number
            readable = _readable(clause, codes)
            for kind, argument in ([] if steps_aside else _parse_clause(clause, codes, section)):
                directives.append(Directive(kind, argument, source, number, readable))
            lead_kind = _lead_of_block(clause, section)
            lead = (lead_kind, readable) if lead_kind else None
            low = clause.lower()
            aside = bool(_SITUATION.search(_BEFORE_FINISHING.sub(" ", low)) or _OCCASIONAL.search(low))
        if block.kind == "paragraph" and joined.rstrip().endswith(":") and (
                _OCCASIONAL.search(joined.lower()) or _PARTICULAR_CHANGES.search(joined.lower())):
            steps_aside = True  # "Before making changes that touch the architecture, check …:" and its list
    return directives


_MARKER = re.compile(r"^\s*(?:[-*+]|\d+[.)]|\(\d+\)|#+)\s*(?:\[[ xX]\]\s*)?")


def _located_clauses(text: str) -> list[tuple[str, list[str], int]]:
    """`_clauses` of a block's joined text, each with the offset in `text` where it starts."""
    located, position = [], 0
    for clause, codes in _clauses(text):
        readable = _readable(clause, codes)
        found = text.find(readable[:20], position) if readable else -1
        offset = found if found >= 0 else position
        located.append((clause, codes, offset))
        position = max(position, offset)
    return located
