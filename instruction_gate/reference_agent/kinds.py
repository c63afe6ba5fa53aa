"""The kinds of directive the grammar reads, shared by the modules that read them."""

from __future__ import annotations

from typing import Literal

DirectiveKind = Literal["run", "test_command", "verify", "forbid_command", "protect_path",
                        "approve_command", "approve_edit", "read"]

#: What one clause yields: (kind, argument) pairs, the argument None for `verify`.
Found = list[tuple[DirectiveKind, "str | None"]]
