"""Git plumbing through the one subprocess helper, with hostile configuration switched off.

Workspaces are written by an untrusted agent, so every harness git call ignores system and
global config, hooks and fsmonitor, and compares ctime so a forged mtime cannot hide an edit.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Mapping

from instruction_gate import proc
from instruction_gate.errors import NotEvaluatedError

#: Fixed identity and dates make input commits a pure function of their trees.
_PINNED_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_AUTHOR_NAME": "instruction-gate",
    "GIT_AUTHOR_EMAIL": "instruction-gate@invalid",
    "GIT_COMMITTER_NAME": "instruction-gate",
    "GIT_COMMITTER_EMAIL": "instruction-gate@invalid",
    "GIT_AUTHOR_DATE": "2000-01-01T00:00:00+0000",
    "GIT_COMMITTER_DATE": "2000-01-01T00:00:00+0000",
    "LC_ALL": "C",
}
_SAFE_CONFIG = ("-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false",
                "-c", "core.trustctime=true", "-c", "core.checkStat=default",
                "-c", "core.quotePath=false", "-c", "diff.renames=false",
                "-c", "core.autocrlf=false", "-c", "gc.auto=0")


class GitError(NotEvaluatedError):
    """A git command the harness relies on failed."""


def _env(extra: Mapping[str, str] | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(_PINNED_ENV)
    if extra:
        env.update(extra)
    return env


def git(*args: str, cwd: Path | str = ".", env: Mapping[str, str] | None = None,
        stdin: str | bytes | None = None, check: bool = True) -> proc.ProcResult:
    """Run git with safe config; raise GitError on failure when `check`."""
    result = proc.run(["git", *_SAFE_CONFIG, *args], cwd, env=_env(env), stdin=stdin, tail_bytes=None)
    if check and not result.ok:
        detail = (result.start_error or result.stderr).strip()
        raise GitError(f"git {' '.join(args[:3])} failed: {detail}")
    return result


def out(*args: str, **kwargs) -> str:
    return git(*args, **kwargs).stdout


def blob(spec: str, cwd: Path | str, missing_ok: bool = False) -> bytes | None:
    """A blob's exact bytes (`<oid>` or `<commit>:<path>`): decoding and re-encoding would turn
    each invalid UTF-8 byte into three, and sizes measured on that would be wrong. None when it
    is absent and `missing_ok`."""
    result = proc.run(["git", *_SAFE_CONFIG, "cat-file", "blob", spec], cwd, env=_env(None), tail_bytes=None,
                      raw_stdout=True)
    if not result.ok:
        if missing_ok:
            return None
        raise GitError(f"git cat-file blob {spec} failed: {(result.start_error or result.stderr).strip()}")
    return result.stdout_bytes or b""


def split_z(text: str) -> list[str]:
    return [item for item in text.split("\0") if item]
