"""Keep secrets away from agents, checks and records.

Variables whose names look secret are removed from every child environment; their
values (and the broker token's) are redacted from everything written to disk. The broker
token is in no child's environment at all: the runner takes it out of its own environment
(so nothing started with an inherited environment gets it) and hands it to the adapter
through a pipe (`run/adapter.py`), so nothing in a sandbox reads it from `/proc/<pid>/environ`.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Mapping

from instruction_gate import secret_shapes

#: Anywhere in the name (API_KEY, GH_TOKEN, DB_PASSWORD, ...).
SECRET_NAME_MARKERS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL",
                       "PASSPHRASE", "PRIVATE", "COOKIE")
#: Only as a whole `_`-separated word, so GIT_AUTHOR_NAME stays while NPM_AUTH goes.
SECRET_NAME_WORDS = ("AUTH", "SESSION", "PAT")
#: The provider credential a broker adapter may use; it reaches the adapter process only.
BROKER_TOKEN_VAR = "INSTRUCTION_EVAL_BROKER_TOKEN"
#: Set in the adapter's environment: the inherited descriptor to read the broker token from.
BROKER_TOKEN_FD_VAR = "INSTRUCTION_EVAL_BROKER_TOKEN_FD"
#: Git variables that would point a child at the user's repository (history, hidden suite) instead of
#: its one-commit workspace; set when the runner is started from a git hook, for instance.
REPOSITORY_VARIABLES = frozenset({"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
                                  "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_NAMESPACE"})
#: Shorter values are not redacted: they would blank out ordinary words and digits.
MIN_REDACTED_LENGTH = 6
REDACTED = "[REDACTED]"


def looks_secret(name: str) -> bool:
    upper = name.upper()
    return (any(marker in upper for marker in SECRET_NAME_MARKERS)
            or any(word in SECRET_NAME_WORDS for word in upper.split("_")))


@dataclass(frozen=True)
class Environments:
    """The environments handed to children, and the values to redact from records."""

    agent: dict[str, str]  #: for `agent_env` and the checks: no secret-looking variables
    adapter: dict[str, str]  #: the adapter process's: `agent` too (the token goes by pipe, never here)
    secret_values: tuple[str, ...] = field(default=())
    #: The provider credential for a broker adapter, handed over through a pipe; never printed.
    broker_token: str | None = field(default=None, repr=False)


#: The runner's broker token once taken out of its environment (`withhold_broker_token`).
_withheld_token: str | None = None


def withhold_broker_token() -> None:
    """Take the broker token out of this process's environment, for commands that start adapters:
    a child started with an inherited environment (git, anything not given `Environments`) must
    not get it. `split_environment()` still finds it. (The initial environment block in
    /proc/<runner>/environ keeps it: only the runner's user, outside every sandbox, reads that.)"""
    global _withheld_token
    taken = os.environ.pop(BROKER_TOKEN_VAR, None)
    if taken is not None:
        _withheld_token = taken


def split_environment(source: Mapping[str, str] | None = None) -> Environments:
    """The environments for children of `source` (default: this process's own environment)."""
    if source is None:
        held = {BROKER_TOKEN_VAR: _withheld_token} if _withheld_token is not None else {}
        source = {**held, **os.environ}
    source = dict(source)
    clean = {k: v for k, v in source.items() if not looks_secret(k) and k not in REPOSITORY_VARIABLES}
    secrets = tuple(sorted({v for k, v in source.items()
                            if looks_secret(k) and len(v) >= MIN_REDACTED_LENGTH},
                           key=len, reverse=True))
    return Environments(clean, dict(clean), secrets, source.get(BROKER_TOKEN_VAR))


@dataclass(frozen=True)
class Redactor:
    """Removes secrets from what is written: the values of secret variables, and anything shaped
    like a credential (`secret_shapes`) — a token pasted into the candidate's AGENTS.md reaches
    the header's instruction hunks, the agent's events and its patch otherwise."""

    secret_values: tuple[str, ...] = ()

    def data(self, value: Any) -> Any:
        """A JSON-like value with every string redacted. Strings are redacted before they are
        encoded, so a token after an escaped newline (`\\nghp_…`) is still seen whole."""
        if isinstance(value, str):
            return self(value)
        if isinstance(value, dict):
            return {key: self.data(item) for key, item in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.data(item) for item in value]
        return value

    def __call__(self, text: str) -> str:
        text = secret_shapes.redact(text)
        # Longest first, so a secret containing another is replaced whole. Records are JSON, where a
        # quote, backslash or non-ASCII character of a secret is escaped: redact those spellings too.
        for value in self.secret_values:
            for form in (value, json.dumps(value)[1:-1], json.dumps(value, ensure_ascii=False)[1:-1]):
                if form in text:
                    text = text.replace(form, REDACTED)
        return text
