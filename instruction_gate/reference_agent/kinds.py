"""The kinds of directive the grammar reads, shared by the modules that read them."""

from __future__ import annotations

from typing import Literal

DirectiveKind = Literal["run", "test_command", "verify", "forbid_command", "protect_path",
                        "approve_command", "approve_edit", "read"]

#: A clause's step shaped like the test suite (`make test`): the file's test command unless the file
#: names one in so many words; `directives.parse` settles it once the whole file is read.
SUITE_SHAPED = "suite_shaped"

#: What one clause yields: (kind, argument) pairs, the argument None for `verify`.
Found = list[tuple[DirectiveKind, "str | None"]]
