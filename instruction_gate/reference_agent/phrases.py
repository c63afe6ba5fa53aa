"""The directive grammar's vocabulary: the phrases that make a clause a directive, or keep it from being one.

Shared by the clause grammar (`directives`) and the fenced-block reader (`blocks`); each pattern
works on a lower-cased clause whose backticked spans are numbered slots (`\x00N\x00`).
"""

from __future__ import annotations

import re

CODE = re.compile(r"`([^`\n]+)`")
SLOT = "\x00{}\x00"
SLOT_RE = re.compile(r"\x00(\d+)\x00")
#: Clause boundaries: sentence ends (also inside emphasis: "**Always do X.** Run …"), "but", dashes, and a new always/never rule after "and".
SENTENCE_END = re.compile(r"(?i)(?<=[.!?;])[*_]*\s+|\s+but\s+|\s+—\s+|,?\s+and\s+(?=(?:always|never|do not|don't)\b)"
                           r"|,\s+(?=not\s)")
#: Letters only around the word: emphasis (`_never_`, `**never**`) does not hide it.
NEGATION = re.compile(r"(?<![a-z0-9])(?:never|do not|don't|must not|should not|may not|avoid|forbidden|prohibited|"
                       r"not allowed|not permitted)(?![a-z0-9])")
POSTFIX = re.compile(r"\b(?:is|are)\s+(?:forbidden|prohibited|not allowed|not permitted)\b")
FORBID_VERB = re.compile(r"\b(?:run|running|execute|executing|invoke|invoking|call|calling|use|using|do|doing)\b")
EDIT_VERB = re.compile(r"\b(?:edit|modify|change|touch|write to|delete|update|editing|modifying|changing|touching|"
                        r"updating)\b")
#: "When running `nu -c`, never use `echo`": a rule for one situation, not a blanket ban.
SCOPED = re.compile(r"^\W*(?:when|whenever|while|if)\b")
#: "Bug-fix-only PRs must not modify `CHANGELOG.md`": a rule for one kind of change, not for every change.
ONE_KIND_OF_CHANGE = re.compile(r"\b[a-z]+(?:-[a-z]+)*-only\s+(?:prs?|pull\s+requests?|changes?|commits?|patch(?:es)?|diffs?)\b")
#: What follows these in a prohibition illustrates it or names the alternative: not forbidden itself.
EXAMPLE_AFTER = re.compile(r"\b(?:like|e\.g\.?|for\s+example|for\s+instance|such\s+as|instead)\b")
#: A protected path or glob: a directory, a glob, a dotfile or a file name with a file extension
#: (`process.env` and `os.environ` are names in code, not files).
PATH_LIKE = re.compile(r"(?i)^(?:[\w.*@-]*/[\w./*@-]*|\*[\w./*-]*|\.[\w.-]+|[\w*-]+(?:\.[\w-]+)*\.(?:md|mdx|rst|txt|json|"
                        r"jsonc|ya?ml|toml|lock|cfg|ini|config|props|targets|xml|html?|css|scss|py|pyi|ts|tsx|js|mjs|cjs|"
                        r"jsx|go|mod|sum|rs|rb|java|kt|cs|csproj|sln|slnx|swift|c|h|cc|cpp|hpp|sh|ps1|sql|proto|snap|"
                        r"svg|png|xlf|resx|lua|ex|exs|php|gradle)|Makefile|Dockerfile|Gemfile|Rakefile|LICENSE|"
                        r"CODEOWNERS|Justfile|Procfile)$")
#: File names written without backticks ("Never change global.json or NuGet.config files").
BARE_FILE = re.compile(r"(?<![\w./`-])((?:[\w.-]+/)*[\w-]+(?:\.[\w-]+)*\.(?:json|ya?ml|toml|lock|config|props|targets|"
                        r"xml|md|cfg|ini|txt))(?![\w/-])", re.IGNORECASE)
APPROVAL = re.compile(r"\bask\s+(?:for\s+|a\s+human\s+for\s+)?(?:approval|permission|confirmation)\s+before\b")
#: "Do not run `git push --force` without explicit approval": a prohibition lifted by a human's yes.
WITHOUT_APPROVAL = re.compile(r"\bwithout\s+(?:(?:explicit|prior|express|written|human|user|maintainer)\s+)*"
                              r"(?:approval|permission|confirmation|consent|sign-?off|asking)\b")

TESTS = re.compile(r"\b(?:tests?|test suite|testing|specs?)\b")
#: The words that say a piece of work is over ("marking work ready", "calling it done", "ready for review").
_DONE = r"(?:done|ready(?:\s+for\s+review)?|complete|completed|finished)\b"
FINISHING = (r"(?:finishing|you\s+finish|handing\s+(?:off|over)|hand-?off|committing|you\s+commit|pushing|you\s+push|"
              r"submitting|you\s+are\s+done|you're\s+done|(?:opening|you\s+open|creating|you\s+create)\s+(?:a|the|your)\s+"
              r"(?:pull\s+request|pr)|"
              r"presenting\s+(?:your\s+|the\s+)?(?:final\s+)?(?:changes|work|results)|finali[sz]ing|wrapping\s+up|"
              r"prompting\s+(?:for\s+input|the\s+user)|returning\s+control|handing\s+back|"
              rf"(?:declaring|marking|calling|considering)\s+(?:[\w-]+\s+){{0,2}}?(?:as\s+)?{_DONE}|"
              r"completing\s+(?:a|the|any)\s+task|(?:requesting|asking\s+for)\s+(?:a\s+)?review)")
#: ("When submitting a PR, you must …": the time of finishing, as "before submitting" is.)
BEFORE_FINISHING = re.compile(rf"\b(?:before|when|whenever)\s+{FINISHING}|\bwhen\s+(?:you\s+are|you're)\s+(?:done|finished)\b")
#: "Validate before handoff: `X`, `Y`, then `Z`": a label saying the commands after it finish every change.
FINISHING_LABEL = re.compile(rf"^\W*(?:[\w-]+\s+){{0,3}}?before\s+{FINISHING}[*_]*:[*_\s]*(?=\x00)")
#: "When working in this repository, run …": a lead naming every change in the project, not a situation.
EVERY_CHANGE_TEXT = (r"\b(?:when|while|whenever)\s+(?:you\s+are\s+|you're\s+)?(?:working|developing|coding)\s+"
                     r"(?:in|on|with)\s+(?:this|the)\s+(?:repo(?:sitory)?|project|codebase|code\s*base|code)\b")
EVERY_CHANGE = re.compile(EVERY_CHANGE_TEXT)
#: "When modifying core functionality, commands, or documentation": a condition listing the broad areas of a
#: project, code among them, is met by every change; one area ("When changing the parser") is one situation.
_AREA = (r"(?:(?:the\s+|any\s+|its\s+|their\s+)?(?:core\s+|existing\s+|public\s+|library\s+|application\s+)?(?:code|functionality|"
         r"features?|commands?|documentation|docs|tests?|source(?:\s+code)?|logic|behaviou?r|implementation|apis?|"
         r"configuration|config|examples?))")
BROAD_CHANGE_TEXT = (r"\b(?:when|whenever|if|after|before)\s+(?:you\s+(?:are\s+)?)?(?:modify|modifying|change|changing|edit|"
                     r"editing|touch|touching|update|updating|work\s+on|working\s+on|(?:make|making)\s+changes\s+to)\s+"
                     r"(?=[^,.:]{0,40}?\b(?:code|functionality|features?|source|logic|implementation|behaviou?r)\b)"
                     rf"{_AREA}(?:\s*,\s*(?:or\s+|and\s+)?{_AREA}|\s+(?:or|and)\s+{_AREA})+")
BROAD_CHANGE = re.compile(BROAD_CHANGE_TEXT)
BARE_DOC = re.compile(r"(?<![\w/.`-])((?:[\w.*-]+/)*[\w*-]+\.(?:md|rst|txt))\b")
#: Words that, before a command, make it optional or tied to a situation, not meant for every change.
SITUATION = re.compile(r"\b(?:if|when|whenever|in case|unless|can|could|may|might|optionally|debug|debugging|"
                        r"(?<!project-)(?<!repo-)(?<!repository-)specific|single|particular|individual|a\s+given|otherwise|windows|macos|linux|only|e\.g|for example|"
                        r"release|releasing|integration|slow|benchmarks?|e2e|end-to-end|"
                        # "live tests", "live API calls"; not "Tests live alongside the source"
                        r"live\s+(?:tests?|api|providers?|services?|calls?|environments?|servers?|accounts?|probes?))\b")


def situation(low: str) -> re.Match[str] | None:
    """The first situation word of a lower-cased clause, beside a before-finishing, every-change or
    any-change lead ("When you modify code, …"; blanked to spaces, so positions hold)."""
    return SITUATION.search(_blanked(low, BEFORE_FINISHING, EVERY_CHANGE, ANY_CHANGE, BROAD_CHANGE, DOCS_ONLY_EXCEPTION))


def _blanked(low: str, *patterns: re.Pattern[str]) -> str:
    """`low` with each pattern's matches turned to spaces, in order, so positions hold."""
    for pattern in patterns:
        low = pattern.sub(lambda m: " " * len(m.group()), low)
    return low
#: Words anywhere in a clause that leave a command to the reader's judgement ("Run the applicable checks",
#: "… as needed", "consider running …"): the grammar abstains rather than guess which case applies.
HEDGE = re.compile(r"\b(?:applicable|relevant|affected|corresponding|as\s+needed|as\s+appropriate|consider|feel\s+free|"
                   r"(?:if|when|where)\s+(?:needed|necessary|required|applicable|appropriate|relevant|possible))\b")
#: A condition anywhere in a clause, beside every-change ones ("when you are done", "when working in this repo").
#: ("`make lint` (checks only)" describes; "only for UI work" conditions.)
#: ("Read `X` before composing paths", "Run `just --list` before using `npm` directly": before one kind of work.)
_BEFORE_WORK = re.compile(r"\bbefore\s+[a-z]+ing\b")
CONDITION = re.compile(rf"\b(?:if|when|whenever|unless|in\s+case|except)\b|{_BEFORE_WORK.pattern}|"
                       r"\bonly\s+(?:if|when|for|in|on|after|before|with|during|while|once)\b")
#: "when making any code/config changes", "if you changed files in the repo": a condition every change meets.
ANY_CHANGE = re.compile(r"\b(?:when|if|whenever|after|before)\s+(?:you\s+(?:have\s+)?)?(?:make|making|made|change|changed|changing|"
                        r"modify|modified|modifying|edit|edited|editing|touch|touched)\s+(?:any\s+)?"
                        r"(?:(?:code|source|config)(?:/(?:code|config))?(?:\s+(?:changes|files))?|files|changes)"
                        # ("When you modify code in any library": every part is any change)
                        r"(?:\s+in\s+(?:the|this)\s+repo(?:sitory)?|\s+in\s+any\s+(?:library|package|module|crate|project|"
                        r"subproject|component|part|app|service))?(?![\w/]|\s+(?:changes|files|in|to|under|of)\b)")
#: "Never change `global.json` unless explicitly asked to": the task does not ask, so the ban holds; any
#: other exception ("unless the build is broken") makes the prohibition conditional.
UNLESS_ASKED = re.compile(r"\bunless\s+(?:(?:you\s+are|you're|you\s+have\s+been)\s+)?(?:explicitly\s+|specifically\s+)?"
                          r"(?:asked|told|instructed|requested|approved|permitted)\b|"
                          r"\bunless\s+(?:the\s+|a\s+)?(?:user|human|maintainer|reviewer)s?\s+(?:explicitly\s+)?"
                          r"(?:asks?|requests?|approves?|tells?\s+you|says?\s+so|instructs?)\b")


#: "before starting", "before doing anything else", "before contributing": every task begins so.
_EVERY_START = re.compile(r"\bbefore\s+(?:starting|beginning|doing\s+anything|contributing|working|coding|making\s+(?:any\s+)?changes|"
                          r"running\s+(?:the\s+|any\s+)?tests|testing)\b")


#: "Before handoff, run `X` unless the change is documentation only": every change to code runs it.
DOCS_ONLY_EXCEPTION = re.compile(r"\bunless\s+(?:the\s+|your\s+|a\s+)?(?:change|pr|pull\s+request|diff|patch|commit)\s+"
                                 r"(?:is|touches)\s+(?:only\s+)?(?:documentation|docs?)(?:[\s-]only)?\b")


def _every_change_blanked(low: str) -> str:
    return _blanked(low, BEFORE_FINISHING, EVERY_CHANGE, ANY_CHANGE, BROAD_CHANGE, _EVERY_START, DOCS_ONLY_EXCEPTION)


def conditional(low: str) -> re.Match[str] | None:
    """The first condition word of a lower-cased clause that is not an every-change lead, or a hedge."""
    return HEDGE.search(low) or CONDITION.search(_every_change_blanked(low))


def before_other_work(low: str) -> re.Match[str] | None:
    """"… before composing paths": a time that is one kind of work, not finishing or starting any task."""
    return _BEFORE_WORK.search(_every_change_blanked(low))


#: "Before making changes that touch the architecture": one kind of change, not every change.
PARTICULAR_CHANGES = re.compile(r"\b(?:changes|work)\s+(?:that|which)\s+(?:touch|touches|affect|affects|involve|"
                                 r"involves)\b"
                                 # "Run `X` before committing public API changes", "… for ownership changes": one kind
                                 r"|\b(?:before\s+(?:committing|pushing|submitting|merging)|for)\s+"
                                 r"(?!(?:your|the|any|all|every|each|my|our|code|source|these|those|new|local)\b)"
                                 r"[\w-]+(?:\s+[\w-]+){0,2}?\s+changes\b")
#: "Run `X` if adding dependencies", "Run `X` when you change the schema": a condition after the command.
TRAILING_CONDITION = re.compile(r"^[\s,(]*(?:only\s+)?(?:if|when|whenever|unless|in\s+case)\b(?!\s+(?:you\s+are|you're)\s+"
                                 r"(?:done|finished))")
#: Purposes and occasions that tie a command to one kind of change, wherever they stand.
OCCASIONAL = re.compile(r"\b(?:to\s+(?:update|regenerate|generate|add|create|reproduce|debug|list|get|see|print|bump|"
                         r"refresh|resync|clean)|"
                         # "Run locally with `X`", "Run it with: `X`": starting the program a section describes
                         r"^\W*run\s+(?:it\s+|locally\s+|the\s+(?:app|application|server|binary|program|service|cli)\s+)*"
                         r"(?<=\s)(?:with|using|via)\b|"
                         r"after\s+(?:changing|adding|modifying|updating|touching|editing|altering)\s+"
                         r"(?!(?:any\s+|your\s+|the\s+)?(?:(?:code|source)(?:\s+(?:code|files))?|files|changes)\b(?!\s+[a-z]))|"
                         r"for\s+updates|upgrad(?:e|ing)|"
                         # "For documentation changes, run …": one kind of change
                         r"for\s+(?:docs?|documentation)(?:-only)?\s+(?:changes?|edits?|updates?|prs?))\b")
#: What may precede an imperative verb at the start of a clause.
LEAD = (r"^\W*(?:[\w /()-]{1,30}?[*_]*:[*_]*\s*){0,2}(?:(?:and|then|also|always|first|finally|next|now|please|just|so|"
         r"most\s+importantly,|importantly,|above\s+all,|"
         rf"afterwards|(?:before|when)\s+{FINISHING}[^,.:]{{0,30}}[,:]|before\s+doing\s+anything\s+else,|"
         r"before\s+(?:starting|beginning)\s+(?:any|a|the|each|your)\s+(?:task|work|change)s?,|"
         r"after\s+cloning(?:\s+the\s+repo(?:sitory)?)?,|at\s+the\s+end\s+of\s+(?:every|each|any)\s+(?:run|task|session),|"
         r"after\s+(?:making|editing|changing|altering)\s+(?:any\s+)?(?:changes|code|files)[^,.:]{0,20}[,:]|"
         r"after\s+(?:your|each|every|any)\s+(?:code\s+|source\s+)?change,?|before\s+contributing,|"
         rf"{EVERY_CHANGE_TEXT},?|{BROAD_CHANGE_TEXT},|"
         r"you\s+(?:must|should|need\s+to)|make\s+sure\s+(?:to|you)|be\s+sure\s+to|remember\s+to|"
         r"ensure\s+(?:that\s+)?you)\s+)*")
RUN_START = re.compile(LEAD + r"(?:run|execute|invoke)\b")
#: ("Read more: [X](X)" is a pointer for the curious, not a rule to read.)
READ = re.compile(LEAD + r"(?:(?:re-?)?read(?!\s+more\b)|follow|(?:consult|review)(?=[^.]*\bbefore\b))\b")
#: "See `AGENTS.md` for the shared agent instructions": a pointer to the rules to follow is a read.
#: "See [AGENTS.md](./AGENTS.md) for project context, commands, and contribution guidelines": so is a
#: pointer to another instruction file for its guidelines.
INSTRUCTIONS_POINTER = re.compile(LEAD + r"(?:see|refer\s+to)\s+(?:(?:\x00\d+\x00|[\w./-]+\.md)\s+for\s+(?:the\s+|all\s+|our\s+)?"
                                   r"(?:[\w-]+\s+){0,3}?(?:instructions|rules)\b(?!\s+(?:on|about)\b)|"
                                   r"\[?(?:agents|claude|gemini)\.md\]?(?:\([^)\s]*\))?\s+for\s+[^.]{0,80}?"
                                   r"\b(?:instructions|rules|guidelines)\b)")
#: "The root `AGENTS.md` applies here too": another instruction file's rules hold in this directory.
APPLIES_TOO = re.compile(r"^\W*(?:the\s+)?(?:(?:root|parent|top-level)\s+)?\x00(\d+)\x00\s+(?:also\s+applies|"
                         r"applies\s+(?:here\s+)?(?:too|as\s+well|also))\b")
USE_START = re.compile(LEAD + r"use\s+(?:the\s+)?\x00(\d+)\x00(?:\s+\w+){0,2}?\s+(?:to\s+(?:run|format|lint|test|"
                        r"check|type-?check|build|verify|validate|fix|install)|for\s+(?:running|formatting|linting|"
                        r"testing|checking|type-?checking|building|verifying|validating))\b")
#: "Use `mix precommit` when you are done": a finishing step.
USE_WHEN_DONE = re.compile(LEAD + r"use\s+(?:the\s+)?\x00(\d+)\x00")
#: "All code must pass `ruff check`, `ruff format --check`, and `mypy --strict`": checks every change
#: must pass, so they are run before finishing.
MUST_PASS = re.compile(r"^\W*(?:(?:all|every|any|your|the|new|each)\s+)*(?:code|changes?|commits?|prs?|pull\s+requests?|"
                       r"patch(?:es)?|contributions?|submissions?)\s+(?:must|should|needs?\s+to|has\s+to|have\s+to)\s+"
                       r"(?:(?:cleanly|always)\s+)?pass\s+(?=\x00)")
#: "make sure `tools/format.js` is run".
ENSURE_RUN = re.compile(LEAD + r"(?:make\s+sure|ensure)\s+(?:that\s+)?\x00(\d+)\x00\s+(?:is|gets|was|has\s+been)\s+run\b")
#: "Install dependencies with `X`", "Lint your changes with `X`", "Keep code formatted with `X`".
#: ("Build with `X`" and "check with `X`" describe how a thing is done, in a guide to one part as often as in a
#: routine: not steps.)
TASK_START = re.compile(LEAD + r"(?:install|set\s+up|lint|format|type-?check|fix|test|keep)\b[^\x00]{0,40}?"
                         r"\b(?:with|using|via|by\s+running)\s+\x00(\d+)\x00")
#: Label forms naming the test command: "Tests: `X`", "Unit testing: `X`", "`X` - run all tests",
#: "**Test (Zig):** `X`" (a qualifier naming a language or part; "(single file)" is a situation, see SITUATION).
TEST_LABEL = re.compile(r"^\W*(?:run\s+)?(?:all\s+|the\s+|unit\s+|full\s+|whole\s+|entire\s+|common\s+|default\s+|core\s+)?(?:test\s+(?:all|everything)|(?:tests?|testing|test suite|specs?)"
                         r"(?:\s*\([\w .+#/-]{1,24}\))?|unit\s*\((?:all|full)\))\W*:[\s*_]*"
                         # ("Tests: `deno task test` (all tests, parallel)": what the suite is, in brackets)
                         r"\x00(\d+)\x00(?:\s+or\s+\x00\d+\x00)?(?:\s*\([^()\x00]{0,60}\))?\W*$")
#: "Install dependencies: `X`", "**Setup:** `X`": a set-up step written as a label.
SETUP_LABEL = re.compile(r"^\W*(?:install(?:ing)?\s+(?:the\s+)?(?:dependencies|deps|packages|requirements)|setup|"
                          r"set\s+up)\W*:[\s*_]*\x00(\d+)\x00\W*$")
#: "Ensure all unit tests pass (`go test ./...`)": the command in parentheses is how the tests run.
TESTS_PASS_COMMAND = re.compile(r"\btests?\b[^.\x00]{0,30}?\bpass(?:es)?\s*\(\s*(?:run\s+|with\s+|via\s+|using\s+)?"
                                r"\x00(\d+)\x00\s*\)")
LABELLED_TEST = re.compile(r"^\W*\x00(\d+)\x00\s*[-–—:]\s*(?:run\s+|execute\s+|runs\s+|executes\s+)?(?:all\s+|the\s+)?(?:tests?\s+everything|tests?|test suite)"
                           r"(?:\s+(?:with|using|via)\s+[\w.-]+)?(?:\s*\([^)]{0,60}\))?\W*$")
_CHECKS_PASS = r"(?:ensure|make\s+sure|confirm)\s+(?:that\s+)?(?:it|they|all\s+of\s+them|each)\s+(?:pass(?:es)?|succeeds?)\b"
#: "Tests must pass before committing", "Get your tests to pass", "Run tests after altering code".
VERIFY = re.compile(r"\btests?\b[^.]{0,40}\bmust\s+(?:all\s+)?pass\b|\bget\s+(?:your|the|all)?\s*tests?\s+to\s+pass\b|"
                     r"\b(?:make\s+sure|ensure)\b[^.]{0,40}\btests?\b[^.]{0,20}\bpass|"
                     r"^\W*(?:always\s+)?run\s+(?:the\s+|all\s+|your\s+)?tests?\s+(?:after|before)\b|"
                     r"^\W*all\s+tests\s+pass\b|"
                     # "Run `bundle exec rake` and ensure it passes before pushing": the checks must pass
                     rf"\brun\b[^.]{{0,120}}?\b{_CHECKS_PASS}[^.]{{0,60}}?\bbefore\s+{FINISHING}|"
                     rf"\bbefore\s+{FINISHING}[^.]{{0,120}}?\brun\b[^.]{{0,120}}?\b{_CHECKS_PASS}|"
                     # "These commands should pass before committing" under a block of checks that runs the tests
                     r"^\W*(?:these|the\s+above|all\s+(?:of\s+)?these)\s+(?:commands|checks)\s+(?:should|must)\s+"
                     r"(?:all\s+)?pass\b")
#: Between a run verb and its command: a short object ("the payments tests with"), never a word that
#: turns the command into something else's object ("run into errors with no `x`").
GAP_WORD = re.compile(r"[\w'/-]+|[:,]")
GAP_STOP = frozenset("to for so which because if when that no not without into out away across over under unless "
                      "until while on them it those".split())


#: Kinds of tests that are not the suite a change runs ("all conformance tests", "Browser tests").
KIND_OF_TESTS = (r"(?:browser|e2e|end-to-end|integration|conformance|performance|perf|benchmarks?|smoke|visual|"
                 r"snapshot|load|stress|fuzz(?:ing)?|mutation|acceptance|system|live|slow|flaky|nightly)")
KIND_OF_TESTS_WORD = re.compile(rf"\b{KIND_OF_TESTS}\b")
#: "Run `X` for unit tests only", "… for a specific example": a purpose after the command naming a part.
PART_PURPOSE = re.compile(r"^[\s,]*(?:\(\s*)?for\s+(?:[\w-]+\s+){0,5}?(?:only\b|specific\b|single\b|particular\b|"
                          r"individual\b|one\s+(?:test|file|package|crate|module)\b|a\s+given\b)|"
                          rf"^[\s,]*(?:\(\s*)?for\s+(?:[\w-]+\s+(?:and|or)\s+)?{KIND_OF_TESTS}\b|"
                          # "Fix with `npm run lint:fix` for auto-fixable issues": a remedy for one kind of problem
                          r"^[\s,]*(?:\(\s*)?for\s+(?:[\w-]+\s+){0,3}?(?:issues|errors|problems|violations|warnings|"
                          r"failures)\b|"
                          # "Run `./gradlew rewriteRun` to fix Java formatting issues": a remedy for when they occur
                          r"^[^.\x00]{0,24}?\bto\s+(?:auto-?)?fix\s+(?:(?:any|the|all|those|these)\s+)?(?:[\w-]+\s+){0,3}?"
                          r"(?:issues|errors|problems|violations|warnings|failures|findings)\b")
#: Sections whose commands are for particular needs, not for every change.
ASIDE_SECTION = re.compile(r"\b(?:tips?|troubleshooting|debugging|faq|advanced|optional|quick\s+reference|"
                            r"reference|cheat\s*sheet|releas(?:e|ing)|publishing|deploy(?:ing|ment)?|examples?)\b"
                            # "Documentation Change Verification Tiers": checks for docs changes only
                            r"|\b(?:docs?|documentation)(?:-only)?\s+(?:changes?|edits?|updates?)\b"
                            # "Type generation for TypeScript", "Codegen": regenerating code is one kind of task
                            r"|\b(?:generation|codegen|code-gen|regenerat\w*)\b"
                            # "Test with Postgres", "Testing against MySQL": one configuration of the suite
                            r"|(?:^|(?<=/ ))tests?(?:ing)?\s+(?:with|against|on|using)\s+[\w.-]+\s*$"
                            # "Adding Integrations to Test Suite": a heading naming one kind of task; its steps are that task's
                            # (not "Creating a pull request" or "Adding code": those are every change's)
                            # "Parser Changes", "API changes": the steps of one kind of change
                            r"|(?:^|(?<=/ ))(?!(?:code|making|your|our|all|any|every|each|general|source|submitting|committing|"
                            r"proposing|pushing|the|these|those|before|after|for|with|small|large|local)\b)[a-z][\w-]*(?:\s+[a-z][\w-]*)?\s+changes?\s*$"
                            r"|(?:^|(?<=/ ))(?:adding|creating|porting|migrating|upgrading|bumping|renaming|removing|"
                            r"deprecating)\b(?![^/]*\b(?:pr|pull\s+requests?|commits?|changes?|code)\b)")
#: A title-only lead-in to a catalogue ("**Common Patterns**:", "Examples:"): its items describe how
#: code is written or what a script does ("File filtering: Check extensions with `grep -qE …`"), not steps.
CATALOGUE_LEAD = re.compile(r"^[\W_]*(?:[\w-]+\s+){0,3}?(?:patterns?|idioms|recipes|snippets|examples?|tips)[\W_]*:[\W_]*$")
#: "Test AppleScript support: (1) Build with `x` (2) …": a label introducing numbered steps; the steps
#: are that one task's recipe unless the label names the every-change routine (GENERIC_PROCEDURE).
PROCEDURE_LABEL = re.compile(r"^[\W_]*([a-z][\w ./'-]{2,40}?)[*_]*:[*_\s]*(?:\(1\)|1[.)])\s")
GENERIC_PROCEDURE = re.compile(r"(?:to\s+)?(?:run(?:ning)?\s+)?(?:the\s+|all\s+)?(?:tests?|testing|test\s+suite|checks?|"
                               r"verification|verify|validation|validate|setup|set\s*up|installation|build(?:ing)?|"
                               r"workflow|development|(?:test|verify|check|validate)\s+(?:your|the|all|any)\s+"
                               r"(?:changes?|code|work))")
#: Sections listing what never to run: "Strictly Forbidden Git Operations", "Never do this".
FORBIDDEN_SECTION = re.compile(r"\b(?:forbidden|prohibited|never|do\s+not|don'?t|not\s+allowed|banned|avoid)\b")
#: Sections whose items are things to do before finishing: "Definition of Done", "Pre-commit checklist".
CHECKLIST = re.compile(r"\b(?:definition\s+of\s+done|checklist|before\s+(?:committing|submitting|you\s+commit|"
                        r"opening|pushing)|pre-?commit|landing\s+the\s+plane|session\s+completion)\b")
#: A checklist item "<label>: `cmd`" ("All tests pass: `go test ./...`", "Linting clean: `X`").
#: A checklist item "`cmd` (above) succeeds", "`X` reports no findings": the command and its expected outcome.
CHECK_OUTCOME = re.compile(r"^\W*\x00(\d+)\x00\s*(?:\([^)]*\)\s*)?(?:succeeds|passes|is\s+green|is\s+clean|reports\s+no(?:thing)?|"
                           r"prints\s+nothing|exits\s+(?:0|zero|cleanly)|returns\s+no|shows\s+no|has\s+no\s+(?:errors|findings))\b")
#: "`go build` (above)": a short form of a command written in full earlier in the file.
ABOVE = re.compile(r"\x00(\d+)\x00\s*\((?:see\s+|as\s+)?above\)")
CHECK_ITEM = re.compile(r"^\W*(?:\[[ x]\]\s*)?[\w ,/'-]{1,40}?[*_]*:[\s*_]*\x00(\d+)\x00\W*$")
#: "Whenever you want to run the whole test suite, run `X`": the condition names the suite itself.
SUITE_CONDITION = re.compile(r"^\W*(?:when|whenever|if)\s+you\s+(?:want|need|wish)\s+to\s+run\s+(?:the\s+|all\s+)?"
                             r"(?:(?:whole|full|entire|complete)\s+)?(?:test\s+suite|tests|suite)\b[^\x00]{0,30}?"
                             r"\b(?:run|use)\s+\x00(\d+)\x00")
#: "Use `bin/roast` (not `bundle exec roast`)", "`git push --force-with-lease` rather than `git push --force`":
#: the command the contrast names is the one not to use.
#: "Use **tox** for testing (not pytest directly)": the same, with the avoided tool named bare.
BARE_CONTRAST = re.compile(r"\(\s*(?:but\s+)?not\s+(?:using\s+|running\s+)?([\w.+-]+)(?:\s+directly)?\s*\)")
#: A list of tools named bare after a prohibition: "never Node.js, npm, pnpm, yarn, or jest".
BARE_LIST = re.compile(r"^[\s*_:]*(?:use\s+|run\s+)?([\w.+-]+(?:\s*(?:,|\bor\b|\bnor\b|\band\b)\s*(?:or\s+|nor\s+|and\s+)?"
                       r"[\w.+-]+)*)[\s.!*_]*$")
#: A paragraph introducing the list below it: "Use **ruff** for linting and formatting:" (its commands are
#: steps), "Do NOT edit these directly:" (its paths are protected), "**Ask first**", "**Never**".
USE_TOOL_LEAD = re.compile(LEAD + r"use\s+[*_]*[\w.+-]+[*_]*\s+(?:for|to)\s+(?:lint|format|type-?check|check)[^:]*:\s*$")
PROTECT_LEAD = re.compile(r"\b(?:never|do\s+not|don't|must\s+not)\s+(?:\w+\s+)?(?:edit|modify|change|touch)\s+"
                          r"(?:these|the\s+following|following)\b(?:[^:]*:|\s+(?:files\s+)?(?:directly|manually|by\s+hand)?\s*\.)\s*$")
#: "At a minimum, from `docs/` run:", "Before committing, run the following:": the list below is the steps.
RUN_LIST_LEAD = re.compile(r"\brun(?:\s+(?:these|the\s+following|all\s+of\s+these|each\s+of\s+these))?(?:\s+(?:commands|checks))?"
                           # "… run the following commands in that library's directory before creating a pull request:"
                           rf"(?:\s+(?:in|from)\s+[^:,]{{1,40}}?)?(?:\s+before\s+{FINISHING}[^:,]{{0,30}})?\s*:\s*$")
APPROVE_LEAD = re.compile(r"^\W*(?:ask\s+(?:first|before)|ask\s+(?:for\s+)?(?:approval|permission)\s+(?:first|before)|"
                          r"requires?\s+approval|needs?\s+approval)\W*$")
NEVER_LEAD = re.compile(r"^\W*(?:never|do\s+not|don'?t)\W*$")
#: "Stage files by name, not `git add -A` or `git add .`": the commands a way of working replaces.
NOT_COMMANDS = re.compile(r"^[\s,]*(?:but\s+)?not\s+(?:with\s+|using\s+|running\s+|via\s+)?\x00\d+\x00"
                          r"(?:\s*(?:,|\bor\b|\bnor\b)\s*\x00\d+\x00)*[\s.)*_]*$")
#: First words of a sentence that describes rather than orders ("The CLI reads config, not `npm`").
DESCRIPTIVE_START = re.compile(r"^\W*(?:the|this|these|that|those|it|its|we|our|a|an|they|there|each|every|all|"
                               r"some|most|which|who|you|one)\b")
CONTRAST = re.compile(r"\x00\d+\x00\s*(?:\(\s*not|,?\s*not|rather\s+than|instead\s+of)\s+(?:using\s+|running\s+)?\x00(\d+)\x00")

#: "DO NOT submit a PR without running the full test suite": the tests must run before finishing.
NO_FINISH_WITHOUT_TESTS = re.compile(r"\b(?:never|do\s+not|don't|must\s+not)\s+(?:submit|open|push|commit|create|send|"
                                     r"merge|finish|hand\s+off)\b[^.]{0,40}?\bwithout\s+(?:first\s+)?(?:running|passing)\s+"
                                     r"(?:the\s+|all\s+|your\s+)?(?:full\s+|whole\s+|entire\s+)?(?:unit\s+)?(?:tests?|test\s+suite|suite)\b")

#: After the command, a purpose that is no check of the change ("Run `X` to refresh", "… to mark the release"):
#: a command for that need, not a step. Checks, fixes and set-up keep the step ("to verify", "to catch
#: errors", "to format", "to install dependencies"); checking the user's own set-up ("to check your current
#: profile", "to verify which version is installed") is a look at the machine, not at the change.
_OWN_SETUP = r"(?!\s+(?:your|which|what|whether\s+you|the\s+current)\b)"
OTHER_PURPOSE = re.compile(r"^(?:(?!\bto\b)[^.\x00]){0,24}\bto\s+(?!(?:verify" + _OWN_SETUP + r"|ensure|catch|validate|"
                           r"check" + _OWN_SETUP + r"|lint|format|fix|run|make\s+sure|confirm" + _OWN_SETUP + r"|test|"
                           r"type-?check|keep|apply|automatically|also|auto-?fix|auto-?format|install|set\s+up|"
                           r"sync|bootstrap|prepare|be\s+sure|compile|build)\b)[a-z]+")

#: A requirement stated as one: "Race condition testing is required", "Formatting is mandatory", "… must be run".
REQUIREMENT_STATED = re.compile(r"\b(?:is|are)\s+(?:always\s+)?(?:required|mandatory)\b|\bmust\s+(?:always\s+)?be\s+run\b")
#: A check named in words with its command in brackets: "… testing is required (`make race`)", "the linting
#: commands (`make lint-code`)". Not "(e.g. `X`)": an example of the kind, not the command.
BRACKETED_COMMAND = re.compile(r"\b(?:commands?|checks?|tests?|testing|suite|linters?|linting|formatters?|formatting|"
                               r"build|type-?checks?|type-?checking|analysis)(?:\s+(?:is|are)\s+(?:always\s+)?"
                               r"(?:required|mandatory))?\s*\(\s*(?:run\s+|with\s+|via\s+|using\s+)?"
                               r"\x00(\d+)\x00\s*\)")
#: "… is required: `make race`": the command right after the requirement.
REQUIRED_COLON_COMMAND = re.compile(r"[^\x00]{0,20}?:\s*\x00(\d+)\x00\W*$")
