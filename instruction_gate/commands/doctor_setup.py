"""`doctor`'s checks before any run: is `--binary` the CLI asked for, and does `--repo` hold
project configuration that makes gate runs differ from a developer's local run?"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from instruction_gate import proc

#: What each CLI's `--version` prints (Gemini CLI and OpenCode print a bare version number).
_VERSION_TEXT = {"codex": re.compile(r"^codex[-\w]*\s+\d"), "claude": re.compile(r"\(Claude Code\)"),
                 "gemini": re.compile(r"^\d+\.\d+\.\d+\S*$"), "opencode": re.compile(r"^\d+\.\d+\.\d+\S*$"),
                 # Copilot adds a line on updates after its version.
                 "copilot": re.compile(r"^GitHub Copilot CLI \d+\.\d+\.\d+")}
_VERSION_SECONDS = 30.0

#: Project configuration files per agent, and what the gate does with them.
_GEMINI = ("the gemini adapter refuses to start Gemini CLI in a task whose cwd holds it (the run fails as "
           "agent_error) unless adapter option workspace_settings=trust, and then impact analysis runs every "
           "task; the other adapters ignore it. A developer's local `gemini` run loads it")
_OPENCODE = ("the opencode adapter refuses to start OpenCode in a task whose cwd is at or below it (the run "
             "fails as agent_error) unless adapter option workspace_settings=trust, and then impact analysis "
             "runs every task; the other adapters ignore it. A developer's local `opencode` run merges it")
PROJECT_CONFIG = {".gemini/settings.json": ("gemini", "Gemini CLI project settings", _GEMINI),
                  ".gemini/.env": ("gemini", "Gemini CLI project environment",
                                   _GEMINI.replace("whose cwd holds it", "whose cwd is at or below it")),
                  "opencode.json": ("opencode", "OpenCode project configuration", _OPENCODE),
                  "opencode.jsonc": ("opencode", "OpenCode project configuration", _OPENCODE),
                  ".opencode": ("opencode", "OpenCode project directory (agents, commands, plugins)", _OPENCODE)}


def project_config(paths: Iterable[str]) -> list[tuple[str, str]]:
    """(path, key of PROJECT_CONFIG) for each project configuration file or directory among
    `paths` (repository-relative files and directories): directory by directory, top down."""
    keys = list(PROJECT_CONFIG)
    found = [(path, key) for path in set(paths) for key in keys if path == key or path.endswith("/" + key)]
    return sorted(found, key=lambda item: (item[0][:-len(item[1])].strip("/").split("/"), keys.index(item[1])))


@dataclass(frozen=True)
class Binary:
    path: str | None  #: absolute path of a usable executable, None when there is none
    problem: str = ""  #: why not, naming the path


def find_binary(agent: str, given: str | None) -> Binary:
    """The executable `doctor` would run: `--binary`, else the agent's name on PATH."""
    if given is None or "/" not in given:
        found = shutil.which(given or agent)
        return Binary(os.path.abspath(found)) if found else Binary(
            None, f"{given or agent!r} not found on PATH; pass --binary PATH")
    path = os.path.abspath(given)
    if not os.path.exists(path):
        return Binary(None, f"--binary {path}: not found (no such file)")
    if os.path.isdir(path):
        return Binary(None, f"--binary {path}: is a directory, not the {agent} executable")
    if not os.access(path, os.X_OK):
        return Binary(None, f"--binary {path}: not executable (chmod +x, or pass the CLI's launcher)")
    return Binary(path)


def version_problem(agent: str, binary: str, cwd: Path) -> str:
    """Why `binary --version` says it is not the agent's CLI, or ''."""
    result = proc.run([binary, "--version"], cwd, timeout=_VERSION_SECONDS)
    lines = [line.strip() for line in (result.stdout or "").splitlines() if line.strip()]
    if result.start_error:
        return f"{binary} could not be started: {result.start_error}"
    if result.timed_out:
        return f"{binary} --version did not answer within {_VERSION_SECONDS:.0f} s"
    errors = " ".join((result.stderr or "").split())[:200]
    if result.exit_code != 0:
        return f"{binary} --version exited {result.exit_code}: {errors or 'no output'}"
    if not any(_VERSION_TEXT[agent].search(line) for line in lines):
        said = lines[-1][:120] if lines else "nothing"
        return f"{binary} does not look like the {agent} CLI: `--version` printed {said!r}"
    return ""


def repo_warnings(repo: Path) -> list[str]:
    """One warning per project configuration file (or `.opencode/` directory) in the repository,
    `.git` and `node_modules` excluded."""
    paths: list[str] = []
    for directory, subdirs, files in os.walk(repo):
        subdirs[:] = sorted(d for d in subdirs if d not in (".git", "node_modules"))
        here = Path(directory).relative_to(repo)
        paths += [(here / name).as_posix() for name in (*subdirs, *files)]
    return [f"{path}: {PROJECT_CONFIG[key][1]}: {PROJECT_CONFIG[key][2]}, so gate runs differ from local ones"
            for path, key in project_config(paths)]
