"""Mixed pull requests evaluated with their code held fixed: what the summary says about it.

Read from the index headers alone: the non-instruction files both arms shared (`held_fixed`)
and the tasks the suite could not pose on the candidate's code (`not_evaluable`).
"""

from __future__ import annotations

from typing import Any

#: Held-fixed files listed in the Markdown before "... and N more".
SHOWN = 30


def block(headers: list[dict[str, Any]]) -> dict[str, Any] | None:
    """{"held_fixed": [...], "not_evaluable": {task: reason}} over every shard, or None without hold-code."""
    held = sorted({p for h in headers for p in (h.get("held_fixed") or [])})
    not_evaluable: dict[str, str] = {}
    for header in headers:
        not_evaluable.update(header.get("not_evaluable") or {})
    if not held:
        return None
    return {"held_fixed": held, "not_evaluable": dict(sorted(not_evaluable.items()))}


def markdown(found: dict[str, Any] | None, md, code) -> list[str]:
    """The summary section; `md` escapes text for Markdown, `code` makes a code span."""
    if not found:
        return []
    held = found["held_fixed"]
    listed = ", ".join(code(p, 200) for p in held[:SHOWN]) + (f" and {len(held) - SHOWN} more" if len(held) > SHOWN else "")
    lines = ["### Code held fixed", "",
             f"This pull request changes code as well as instructions. Both arms ran on its code; they differed only "
             f"in instruction files (the merge base's vs the candidate's). Non-instruction files held fixed "
             f"({len(held)}): {listed}.", ""]
    if found["not_evaluable"]:
        lines += ["Not evaluable with this pull request's code (not an agent failure):", ""]
        lines += [f"- {code(task, 100)}: {md(why, 300)}" for task, why in found["not_evaluable"].items()] + [""]
    return lines
