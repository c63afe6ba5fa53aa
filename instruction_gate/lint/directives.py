"""Always/never directives in prose, normalized so opposite rules about one action meet."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from instruction_gate.agents.scoped_rules import blank_front_matter
from instruction_gate.lint import markdown

_NEGATIVE = (r"never|must not|mustn't|do not|don't|should not|shouldn't|avoid|not allowed to|may not|"
             r"forbidden(?:\s+to)?|prohibited(?:\s+to)?|not permitted to")
_POSITIVE = r"always|must|make sure to|be sure to|should|be required to"
#: Emphasis and a colon may sit between the marker and its action: "**NEVER** run", "FORBIDDEN: running".
_DIRECTIVE = re.compile(rf"(?<![A-Za-z0-9])(?:(?P<neg>{_NEGATIVE})|(?P<pos>{_POSITIVE}))[*_]*:?[*_]*\s+[*_]*"
                        rf"(?P<action>.+?)(?=[.;!?](?:\s|$)|$)", re.IGNORECASE)
#: Verbs that open an imperative rule ("Run `make test` before committing."): a positive directive
#: without a marker word. A closed list, so that descriptions ("Tests live in tests/") never count;
#: a verb with a colon after it is a label over a command ("Format: `ruff format .`"), no rule.
_IMPERATIVE_VERBS = ("run|use|execute|call|commit|push|install|update|add|write|edit|modify|delete|remove|create|"
                     "keep|prefer|format|build|deploy|merge|rebase|squash|sign|check|verify|follow|put|place|store|"
                     "import|document|bump|pin|tag|release|rename|regenerate|start|stop|restart|invoke|open|close")
_IMPERATIVE = re.compile(rf"(?:^|(?<=[.;!?]\s))\s*(?:[-*+]\s+|\d+[.)]\s+)?(?P<action>(?:{_IMPERATIVE_VERBS})\b(?![*_]*:).+?)"
                         rf"(?=[.;!?](?:\s|$)|$)", re.IGNORECASE)
_WORD = re.compile(r"[\w\-./@:+]+")
_STOP = frozenset("a an the to you your please all any every just also ever use of for".split())
#: Two actions with at least this token overlap (Jaccard) count as the same action.
SAME_ACTION = 0.8


@dataclass(frozen=True)
class Directive:
    """One always/never statement."""

    positive: bool  #: always/must (True) or never/must not (False)
    action: tuple[str, ...]  #: normalized tokens of what is required or forbidden
    raw_action: str  #: the action as written
    line: int
    column: int  #: 0-based column of the marker word
    start: int  #: character offset of the marker in the text
    end: int  #: offset where the action ends
    #: "When debugging, never run X": the sentence opens on a situation, so the rule holds only there
    scoped: bool = False


def _stem(word: str) -> str:
    if word.endswith("ing") and len(word) > 5:
        word = word[:-3]
        if len(word) > 2 and word[-1] == word[-2]:
            word = word[:-1]
    return word


def normalize(action: str) -> tuple[str, ...]:
    """Prose words lower-cased and stemmed; names in code spans as written, since `List` and
    `list` are different names ("use `list`, avoid `List`" is one rule, not two opposite ones)."""
    tokens = []
    for index, part in enumerate(action.replace("*", " ").split("`")):
        code = index % 2 == 1
        words = (w.strip(".-:") for w in _WORD.findall(part))
        tokens += [w if code else _stem(w.lower()) for w in words if w and w.lower() not in _STOP]
    return tuple(tokens)


#: A sentence opening on the situation its rule is for: "When debugging, never …", "If CI is red, …".
_SITUATION_FIRST = re.compile(r"(?i)^\W*(?:when|whenever|while|if|during|unless|once|in\s+case)\b[^,]*,\s*[*_]*$")


_SENTENCE_END = re.compile(r"[.;!?](?:\s|$)")


def _scoped(prose: str, marker: int, sentence_starts: list[int]) -> bool:
    """Whether the sentence holding `marker` (an offset into `prose`) opens on a situation.
    `sentence_starts` are the offsets just past each sentence end in `prose`, found once per
    block: searching the prose before each marker again would make a long paragraph quadratic."""
    if marker and prose[marker - 1] in ".;!?":
        start = marker  # punctuation right before the directive ends a sentence there
    else:
        index = bisect.bisect_right(sentence_starts, marker)
        start = sentence_starts[index - 1] if index else 0
    return bool(_SITUATION_FIRST.match(prose[start:marker]))


def _directive(text: str, positive: bool, marker: int, action_start: int, end: int,
               scoped: bool = False) -> Directive | None:
    action_text = text[action_start:end].rstrip(" \t\r\n,;:-—–(")  # from the text itself, not the masked copy
    action = normalize(action_text)
    if not action:
        return None
    line = markdown.line_of(text, marker)
    column = marker - (text.rfind("\n", 0, marker) + 1)
    return Directive(positive, action, " ".join(action_text.split()), line, column, marker, end, scoped)


def directives(text: str) -> list[Directive]:
    """Directives of each paragraph, list item and heading, read whole: hard-wrapped Markdown
    continues a sentence on the next line, and a rule cut at the line break reads as another rule."""
    text = blank_front_matter(text)  # a rule file's front matter says when it loads, not what to do
    spans = []  # (positive, marker, action start, end, scoped) as offsets into `text`
    for block in markdown.blocks(text):
        if block.kind == "code":
            continue
        # Same length as the block, so offsets stay offsets into `text`; punctuation inside code
        # spans (`make -C .. test`) must not end a sentence.
        prose = markdown.mask_in_code_spans(text[block.start:block.end].replace("\r", " ").replace("\n", " "), ".;!?")
        sentence_starts = [m.end() for m in _SENTENCE_END.finditer(prose)]
        spans += [(m.group("pos") is not None, block.start + m.start(), block.start + m.start("action"),
                   block.start + m.end(), _scoped(prose, m.start(), sentence_starts))
                  for m in _DIRECTIVE.finditer(prose)]
        spans += [(True, block.start + m.start("action"), block.start + m.start("action"), block.start + m.end(),
                   False) for m in _IMPERATIVE.finditer(prose)]
    negatives = sorted(marker for positive, marker, _, _, _ in spans if not positive)
    found = []
    for positive, marker, action_start, end, scoped in spans:
        if positive:
            # "Use RMCP types, never create wrappers": the rule ends where a prohibition begins.
            after = bisect.bisect_right(negatives, action_start)
            end = negatives[after] if after < len(negatives) and negatives[after] < end else end
        directive = _directive(text, positive, marker, action_start, end, scoped)
        if directive:
            found.append(directive)
    return found


def same_action(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    if a == b:
        return True
    union = set(a) | set(b)
    return len(union) > 0 and len(set(a) & set(b)) / len(union) >= SAME_ACTION


#: A requirement that holds only under a condition: an exception to a ban, never its opposite.
_CONDITIONAL = re.compile(r"(?i)\bonly\s+(?:after|if|when|once|with)\b|\bunless\b")
_PRONOUNS = frozenset({"it", "them", "this", "that", "these", "those", "one"})


def contradicts(a: Directive, b: Directive) -> bool:
    """Opposite directives about one action, or a prohibition of something a rule requires: "Never
    run `make test`" forbids "Run `make test` before committing", whose extra words only narrow it.
    A narrower prohibition ("Never run `make test` on main", "When debugging, never run `make test`") is
    an exception, not a contradiction."""
    if a.positive == b.positive:
        return False
    positive, negative = (a, b) if a.positive else (b, a)
    if negative.scoped and not positive.scoped:
        return False
    if _CONDITIONAL.search(positive.raw_action):
        return False  # "open the PR only after a maintainer accepts it": an exception to the ban, not its opposite
    # "Do not open it": a pronoun's referent is in another sentence, so what is banned is not known here
    named = set(negative.action) - _PRONOUNS
    covered = len(named) >= 2 and named <= set(positive.action)
    return same_action(a.action, b.action) or covered
