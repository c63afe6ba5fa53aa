"""One failure vocabulary for every agent adapter.

Infrastructure failures say nothing about the instruction files (the runner marks such
runs invalid and excludes them from both arms); agent failures count against the variant
that produced them. When in doubt a failure is the agent's: an unknown error must never
let a candidate hide a regression by getting its runs excluded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

AGENT = "agent"
INFRASTRUCTURE = "infrastructure"

#: failure_reason codes and the class each belongs to.
REASON_CLASS = {
    "cli_not_found": INFRASTRUCTURE,
    "auth_failed": INFRASTRUCTURE,
    "rate_limited": INFRASTRUCTURE,
    "sandbox_error": INFRASTRUCTURE,
    "zero_turns": INFRASTRUCTURE,
    "provider_error": INFRASTRUCTURE,  # provider 5xx / overloaded / model unavailable
    "session_lost": INFRASTRUCTURE,  # a later turn could not continue the session it belongs to
    "max_turns": AGENT,
    "budget_exceeded": AGENT,
    "agent_error": AGENT,
    "timeout": AGENT,
}

#: Result `status` for each reason; everything not listed reports `failed`.
REASON_STATUS = {"max_turns": "max_turns", "budget_exceeded": "budget_exceeded", "timeout": "timeout"}


@dataclass(frozen=True)
class Failure:
    """Why a run did not complete, in the terms of the result event."""

    reason: str  #: one of REASON_CLASS
    detail: str = ""  #: short human-readable context (goes to stderr, never parsed)

    @property
    def failure_class(self) -> str:
        return REASON_CLASS.get(self.reason, AGENT)

    @property
    def status(self) -> str:
        return REASON_STATUS.get(self.reason, "failed")


# Order matters: the first matching pattern wins (a 401 inside a retry message is auth).
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (reason, re.compile(pattern, re.IGNORECASE)) for reason, pattern in (
        # Oversized instructions overflow the context on the very first request: that is the
        # candidate's doing, so it must not be excused as an infrastructure failure.
        ("agent_error", r"context[_ ]length|context window|prompt is too long|too many tokens"
                        r"|maximum context|exceeds the maximum number of tokens"),
        ("auth_failed", r"\b401\b|\b403\b|unauthori[sz]ed|authentication[_ ]error|invalid[_ ]api[_ ]key"
                        r"|invalid x-api-key|not logged in|please run /login|missing api key|forbidden"),
        ("rate_limited", r"\b429\b|rate[_ -]?limit|too many requests|quota|usage limit|session limit"
                         r"|credit balance"),
        ("sandbox_error", r"sandbox (?:error|failed|setup|denied|unavailable)|landlock|seccomp|bwrap"
                          r"|sandbox-exec|failed to (?:apply|initiali[sz]e) sandbox"),
        ("provider_error", r"(?:status|http|api error|code)\W{0,3}5\d\d\b|overloaded|internal server error"
                           r"|service unavailable|at capacity|model is not supported|model_not_found"
                           r"|bad gateway|stream disconnected|connection (?:refused|reset|error)"
                           r"|error sending request|experiencing high (?:demand|load)|request timed out"
                           r"|exceeded retry limit"),
        # Codex: `exec resume` of a thread whose rollout is gone; Claude Code: --resume of one.
        ("session_lost", r"no conversation found with session id|no rollout found for (?:thread|conversation) id"),
        ("budget_exceeded", r"budget|max[_ ]?cost|spending limit"),
        ("max_turns", r"max(?:imum)?[_ ]turns"),
    ))


def reason_for_http_status(status: object) -> str | None:
    """The infrastructure reason an HTTP status of the provider's API stands for, if any.

    400/413 stay unclassified: an oversized prompt (the candidate's doing) answers with them.
    """
    if not isinstance(status, int) or isinstance(status, bool):
        return None
    if status in (401, 403):
        return "auth_failed"
    if status == 429:
        return "rate_limited"
    return "provider_error" if 500 <= status <= 599 else None


def classify_error_text(text: str, default: str = "agent_error") -> Failure:
    """Map an error message printed by an agent CLI to a failure.

    Unknown text gets `default`: `agent_error`, or `zero_turns` when the agent never got a turn.
    """
    for reason, pattern in _PATTERNS:
        if pattern.search(text or ""):
            return Failure(reason, _short(text))
    return Failure(default, _short(text))


#: What a CLI prints when its own program is broken before it starts: a node launcher whose
#: package (or native binary) is gone, a shebang whose interpreter is missing.
_LAUNCH = re.compile(r"cannot find module|err_module_not_found|native binary not installed"
                     r"|^(?:/usr/bin/)?env: .*no such file or directory|: (?:command )?not found$"
                     r"|exec format error|bad interpreter", re.IGNORECASE | re.MULTILINE)


def launch_failure(exit_code: int | None, stdout: str, stderr: str) -> Failure | None:
    """`cli_not_found` for a CLI that failed to start its own program: a non-zero exit, no
    JSON on stdout (it never ran a session) and a launcher error on stderr, named in the detail."""
    if exit_code in (0, None) or any(line.lstrip().startswith("{") for line in stdout.splitlines()):
        return None
    line = next((line for line in stderr.splitlines() if _LAUNCH.search(line)), None)
    return Failure("cli_not_found", _short(line)) if line is not None else None


def _short(text: str, limit: int = 300) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
