"""The directive and its kinds, shared by the grammar's modules."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

DirectiveKind = Literal["run", "test_command", "verify", "forbid_command", "protect_path",
                        "approve_command", "approve_edit", "read"]

#: A clause's step shaped like the test suite (`make test`): the file's test command unless the file
#: names one in so many words; `directives.parse` settles it once the whole file is read.
SUITE_SHAPED = "suite_shaped"

#: What one clause yields: (kind, argument) pairs, the argument None for `verify`.
Found = list[tuple[DirectiveKind, "str | None"]]


@dataclass(frozen=True)
class Directive:
    """One instruction the reference agent understood."""

    kind: DirectiveKind
    argument: str | None  #: command, glob or document path as written (None for `verify`)
    source: str  #: repository-relative path of the file the directive came from
    line: int  #: 1-based line in that file
    text: str  #: the sentence it was read from, for reports
