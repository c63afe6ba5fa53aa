"""Prohibitions: the commands a negated clause forbids and the paths it protects from editing."""

from __future__ import annotations

import re

from instruction_gate.reference_agent import clauses
from instruction_gate.reference_agent.kinds import Found
from instruction_gate.reference_agent.command_text import is_command, is_known_program
from instruction_gate.reference_agent.phrases import (
    BARE_FILE, BARE_LIST, EDIT_VERB, EXAMPLE_AFTER, FORBID_VERB, ONE_KIND_OF_CHANGE, PATH_LIKE, POSTFIX, SCOPED, SLOT_RE, UNLESS_ASKED,
)


#: A ban for a stretch of the work, not all of it: "between edits", "while iterating", "during development".
_FOR_A_TIME = re.compile(r"\b(?:between\s+(?:edits|changes|iterations|steps|runs|each\s+\w+)|while\s+(?:iterating|"
                         r"developing|editing|you\s+iterate|you\s+work)|during\s+(?:development|iteration|editing))\b")


def prohibition(low: str, codes: list[str], negation: re.Match[str], clause: str = "",
                subject: str | None = None) -> Found:
    if (SCOPED.match(low) and SLOT_RE.search(low, 0, negation.start())) or \
            ONE_KIND_OF_CHANGE.search(low, 0, negation.start()):
        return []  # "when running `nu -c`, never use `echo`", "docs-only PRs must not …": scoped to one situation
    if re.search(r"\bunless\b", low[negation.end():]) and not UNLESS_ASKED.search(low, negation.end()):
        return []  # "Never run `X` unless the build is broken": a ban with an exception is no blanket ban
    if _FOR_A_TIME.search(low, negation.end()):
        return []  # "Avoid `make test` between edits": not while iterating, still at the end
    if _LATER_CONDITION.search(UNLESS_ASKED.sub(" ", low), negation.end()):
        return []  # "Do not delete files from `x/` after reproducing the issue", "… when the build fails": one occasion
    if example := EXAMPLE_AFTER.search(low, negation.end()):
        low = low[:example.start()]  # "never use `echo` like `nu -c "echo x"`": the example is not banned
    if (edit := EDIT_VERB.search(low, negation.end())) and not FORBID_VERB.search(low, negation.end(), edit.start()):
        return _protected(low, codes, negation, edit, clause, subject)
    if commit := re.match(r"[\s*_]*(?:ever\s+)?commit\b", low[negation.end():]):
        # "Do not commit `src/pkg/_version.py`": a generated or local file kept out of changes
        verb = re.compile(r"commit").search(low, negation.end(), negation.end() + commit.end())
        if _CHANGES_OF_ONE_KIND.search(low, verb.end()):
            return []  # "… `uv.lock` changes created only for temporary work": those changes, not the file
        if place := re.compile(r"\s+(?:under|in|inside|within|from)\s+").search(low, verb.end()):
            low = low[:place.start()]  # "… under `tests/integration`": where, not what
        # A directory kept out of git ("Do not commit `.venv/`, `__pycache__/`") is where tools write
        # their output: the project's own commands fill it, so it is no path to keep unedited.
        return [found for found in _protected(low, codes, negation, verb, clause, subject)
                if not found[1].rstrip().endswith("/")]
    if verb := FORBID_VERB.search(low, negation.end()):
        slots = list(SLOT_RE.finditer(low, verb.end()))
        # ("Never run `git merge` directly on main": an adverb may stand before the place)
        if slots and re.match(r"(?:\s+\w+ly)?\s+(?:to|for|when|while|if|on|in|as|during|inside|within|outside)\s+"
                              r"(?!the\s+repo|this\s+repo|ci\b|production\b)|"
                              r"[\s,]*[(—–-]?\s*(?:except|other\s+than|apart\s+from)\b", low[slots[-1].end():]):
            # scoped to a purpose or a place ("Do not use `curl` to test HMR"), or with an exception
            # ("do not use `zig build` (except to build the library)"): not a blanket ban
            return []
        # the list right after the verb: "Never use `npm`, use `pnpm` instead" bans npm only
        if not slots:
            # "Never use pip"; not "don't catch errors handled up the call stack": the verb must be the ban's own
            own_verb = re.fullmatch(r"[\s*_]*(?:\w+\s+)?", low[negation.end():verb.start()])
            return _bare_programs(low[verb.end():]) if own_verb else []
        return [("forbid_command", t) for t in clauses.slot_list(low, verb.end(), codes) if is_command(t)]
    if direct := re.match(r"[\s*_:]*\x00(\d+)\x00", low[negation.end():]):  # "Never `git push` without …"
        command = codes[int(direct.group(1))]
        return [("forbid_command", command)] if is_command(command) else []
    if (verb := FORBID_VERB.search(low[:negation.start()])) and POSTFIX.search(low, verb.end()):
        # "Using `make deploy` is prohibited": the prohibition follows what it forbids
        return [("forbid_command", t) for t in clauses.slots_after(low[:negation.start()], verb.end(), codes)
                if is_command(t)]
    if not SLOT_RE.search(low, negation.end()) and negation.group(0) in ("never", "avoid"):
        # "never Node.js, npm, pnpm, yarn, or jest"; after "should not" / "do not" the word is the
        # verb itself ("test fixtures should not mix"), never a program
        return _bare_programs(low[negation.end():])
    return []  # a negated sentence never becomes a positive directive


def _bare_programs(rest: str) -> Found:
    """Tools a prohibition names without backticks: only when the rest of the clause is nothing but
    a list of names, and only the names of known programs ("Node.js" is a runtime, not a command)."""
    listed = BARE_LIST.match(rest)
    names = [w.rstrip(".") for w in re.findall(r"[\w.+-]+", listed.group(1))] if listed else []
    return [("forbid_command", w) for w in names if w not in ("or", "nor", "and") and is_known_program(w)]


#: A condition or an occasion after the ban: the ban holds then, not on every change (abstain rather than guess).
_LATER_CONDITION = re.compile(r"\b(?:if|when|whenever|once|until|in\s+case|except|after\s+[a-z]+ing|while\s+[a-z]+ing)\b")
#: "changes created only for a downgrade", "changes made by the generator": changes of one kind.
_CHANGES_OF_ONE_KIND = re.compile(r"\bchanges?\s+(?:that\s+(?:were|are)\s+)?(?:\w+\s+)?"
                                  r"(?:created|made|produced|generated|needed|done|introduced)\s+(?:only\s+|solely\s+)?"
                                  r"(?:for|by|during|while|when|to)\b")


_PURPOSE = re.compile(r"(?:\s+[\w-]+){0,2}?\s+(?:to|in\s+order\s+to|just\s+to|so\s+that|for|when|while|if|during|with)\s+"
                      r"(?!the\s+repo|this\s+repo|ci\b|production\b|any\s+reason|anything\b)")


def _protected(low: str, codes: list[str], negation: re.Match[str], verb: re.Match[str], clause: str,
               subject: str | None = None) -> Found:
    """Paths a prohibition of editing names: in backticks after the verb, written bare after it
    ("Never change global.json"), before it when it opens and closes the clause ("`x/*.cs`
    (generated, don't edit)"; not "the signatures in `pkg/` should not change"), or the path its
    list item opens with, when the prohibition points back at it ("`upstream/` - … Do not modify
    these"). Only what looks like a path or a glob counts."""
    after = clauses.slots_after(low, verb.end(), codes)
    if after and (last := list(SLOT_RE.finditer(low, verb.end()))[-1]) and _PURPOSE.match(low[last.end():]):
        # "Don't change `.gitignore` to fix this", "Don't modify `ecs.php` skip lists to silence a warning",
        # "Don't touch files under `config/` with code-style rewrites": a way not to solve one problem, or
        # one manner of editing, not a protected file
        return []
    if not after and not SLOT_RE.search(low, verb.end()):
        bare = BARE_FILE.findall(SLOT_RE.sub(" ", clause[verb.end():])) if clause else []
        closing = re.fullmatch(r"[\s\w,]*\W*", low[verb.end():]) and (
            re.match(r"^\W*\x00\d+\x00", low) or re.search(r"[(—–]\s*[^()]*$", low[:negation.start()]))
        after = bare or (clauses.slots_after(low[:negation.start()], 0, codes) if closing else [])
        if not after and subject and re.match(r"\s+(?:these|this|them|it|those)\b", low[verb.end():]):
            after = [subject]
    return [("protect_path", t) for t in after if PATH_LIKE.match(t.strip())]
