"""Evidence a reviewer can act on, per hard-gate finding, from the run records alone.

Command gates name the commands that came closest to a required pattern (or say that no
command ran, or which matching command ran but did not complete), the commands that matched a
forbidden one, and the instruction line that states the rule (`rule_sources`, recorded per
variant by the runner); a failing required check names the check and the last lines of its
output; forbidden edits list the paths.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from typing import Any

from instruction_gate.rules.bundle import RunBundle
from instruction_gate.rules.command_match import command_matches

SHOWN_COMMANDS = 2
TAIL_LINES = 3


def commands_run(run: dict[str, Any]) -> list[str]:
    return [str(e["command"]) for e in run.get("events") or []
            if isinstance(e, dict) and e.get("type") == "tool" and e.get("command")]


def _quote(command: str, limit: int = 60) -> str:
    command = " ".join(command.split())
    return f"`{command if len(command) <= limit else command[:limit - 1] + '…'}`"


def _where(pattern: str, run: dict[str, Any], partner: dict[str, Any] | None) -> str:
    own = (run.get("rule_sources") or {}).get(pattern)
    if own:
        return f" (rule: {own})"
    other = (partner or {}).get("rule_sources") or {}
    if other.get(pattern):
        return f" (rule: {other[pattern]} in the {partner.get('variant')} instructions; no line of this run's states it)"
    return ""


def _unfinished(pattern: str, run: dict[str, Any]) -> str | None:
    """The last command matching `pattern` that ran but did not complete, and why (completion.py)."""
    events = [e for e in run.get("events") or [] if isinstance(e, dict)]
    try:
        matched = [c for c in RunBundle.from_events(events).commands
                   if c.ran and command_matches(pattern, c.text) and c.unfinished(pattern)]
    except re.error:
        return None
    return f"{_quote(matched[-1].text)} ({matched[-1].unfinished(pattern)})" if matched else None


def missing_command(pattern: str, run: dict[str, Any], partner: dict[str, Any] | None) -> str:
    commands = list(dict.fromkeys(commands_run(run)))
    unfinished = _unfinished(pattern, run)
    if unfinished:
        return f"{pattern}: ran but did not complete: {unfinished}{_where(pattern, run, partner)}"
    if not commands:
        return f"{pattern}: no command ran{_where(pattern, run, partner)}"
    closest = sorted(commands, key=lambda c: -SequenceMatcher(None, pattern, c).ratio())[:SHOWN_COMMANDS]
    return f"{pattern}: not run; closest: {', '.join(map(_quote, closest))}{_where(pattern, run, partner)}"


def forbidden_command(pattern: str, run: dict[str, Any], partner: dict[str, Any] | None) -> str:
    try:
        matched = [c for c in dict.fromkeys(commands_run(run)) if command_matches(pattern, c)][:SHOWN_COMMANDS]
    except re.error:
        return pattern
    ran = f": ran {', '.join(map(_quote, matched))}" if matched else ""
    return f"{pattern}{ran}{_where(pattern, run, partner)}"


def failed_check(run: dict[str, Any]) -> str | None:
    for check in run.get("checks") or []:
        if check.get("timed_out") or check.get("exit_code") != 0 or check.get("passed") is False:
            outcome = ("timed out" if check.get("timed_out") else "could not start" if check.get("exit_code") is None
                       else f"exit {check.get('exit_code')}")
            if check.get("exit_code") == 0 and check.get("not_passed_because"):
                outcome += f", but {check['not_passed_because']}"
            text = f"{check.get('stdout_tail') or ''}\n{check.get('stderr_tail') or ''}"
            tail = " ⏎ ".join(line.strip() for line in text.strip().splitlines()[-TAIL_LINES:] if line.strip())
            return f"{' '.join(map(str, check.get('argv') or []))} ({outcome})" + (f": {tail}" if tail else "")
    return None


def command_gate(category: str, run: dict[str, Any], partner: dict[str, Any] | None) -> str | None:
    if category == "required_command_missing" and run.get("missing_commands"):
        return "; ".join(missing_command(str(p), run, partner) for p in run["missing_commands"])
    if category == "forbidden_command_observed" and run.get("forbidden_commands"):
        return "; ".join(forbidden_command(str(p), run, partner) for p in run["forbidden_commands"])
    return None
