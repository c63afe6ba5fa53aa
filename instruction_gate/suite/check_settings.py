"""The checks' own environment in the manifest: `check_env` variables and `check_path` entries.

Checks run with the scrubbed environment the agent gets, plus what the suite declares here.
The suite comes from the trusted base, yet a variable named like a secret is refused all the
same: secrets reach checks through no field, and a name such as API_KEY would be scrubbed
from every record's view of the run anyway. PATH is built from `check_path` (and the action's
check environment directory), never set directly, so the order stays the documented one.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

from instruction_gate.secrets import REPOSITORY_VARIABLES, looks_secret

#: Placeholders a `check_env` value or `check_path` entry may use, replaced when the check runs.
PLACEHOLDERS = ("{workspace}", "{env_dir}")


def _entry_problem(entry: str) -> str | None:
    if entry.startswith("~"):
        return "must be absolute or relative to the repository root (no '~')"
    if ".." in PurePosixPath(entry).parts:
        return "must not contain '..'"
    if ":" in entry:
        return "must be one directory (no ':')"
    return None


def problems(block: Any, where: str, label: str) -> list[str]:
    """Semantic problems of one `check_env`/`check_path` holder (defaults or a task)."""
    found: list[str] = []
    if not isinstance(block, dict):
        return found
    env = block.get("check_env")
    for name in env if isinstance(env, dict) else {}:
        at = f"{label}::{where}.check_env.{name}"
        if looks_secret(name):
            found.append(f"{at}: named like a secret; secrets never reach checks (see instruction_gate/secrets.py)")
        elif name in REPOSITORY_VARIABLES:
            found.append(f"{at}: would point the checks at another git repository")
        elif name == "PATH":
            found.append(f"{at}: set PATH entries with check_path")
    entries = block.get("check_path")
    for i, entry in enumerate(entries if isinstance(entries, list) else []):
        if isinstance(entry, str) and (why := _entry_problem(entry)):
            found.append(f"{label}::{where}.check_path[{i}]: {entry!r} {why}")
    return found


def entries_in_changed_files(entries: tuple[str, ...], changed: tuple[str, ...]) -> list[tuple[int, str, str]]:
    """(index, entry, changed path) for each relative PATH entry holding a file the candidate changes.

    The candidate may change only instruction files, but a PATH entry that holds one would let
    the candidate's bytes run as a check's command.
    """
    found = []
    for i, entry in enumerate(entries):
        if entry == "{workspace}" or entry.startswith("{workspace}/"):
            entry_in_repo = entry[len("{workspace}"):]
        elif entry.startswith(("/", "{")):
            continue
        else:
            entry_in_repo = entry
        root = PurePosixPath(entry_in_repo or ".").as_posix().strip("/")
        for path in changed:
            if root in (".", "") or path == root or path.startswith(root + "/"):
                found.append((i, entry, path))
                break
    return found
