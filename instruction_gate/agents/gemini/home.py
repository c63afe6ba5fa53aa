"""The private Gemini CLI home (`GEMINI_CLI_HOME`) the adapter runs each run under.

It holds the settings the harness controls — API-key auth, the context file names, no
telemetry, update checks or hooks, the retry budget and turn limit — rewritten before
every process (the agent can write to it), the CLI's session records, and copies of the
user's global context files (`~/.gemini/<name>`), so they still come first. Skills stay on:
the project's `.gemini/skills` and `.agents/skills` are repository files, part of the
instructions under evaluation (`agents/skills.py`); this home holds no skill of the user's.

Workspace settings override user settings and only a root-owned system file overrides them,
so a workspace `.gemini/settings.json` (or a `.gemini/.env`, loaded into the CLI's
environment) could change the context files, add tools, hooks or MCP servers: the adapter
refuses to start the CLI next to one (`workspace_hazards`) unless told the repository's own
settings are trusted.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from instruction_gate.agents.discovery import read_settings_json
from instruction_gate.untrusted import read_instruction_bytes


@dataclass(frozen=True)
class GeminiHome:
    """One run's private configuration directory and what goes into its settings."""

    path: Path  #: the GEMINI_CLI_HOME directory (the CLI reads `<path>/.gemini/`)
    context_files: tuple[str, ...]  #: `context.fileName`
    max_attempts: int  #: `general.maxAttempts`: the first try plus retries
    max_turns: int | None = None  #: `model.maxSessionTurns`

    @classmethod
    def create(cls, agent_env: dict[str, str], **fields: Any) -> "GeminiHome":
        """A fresh directory (removed when the adapter exits) with the user's global context
        files copied in."""
        path = Path(tempfile.mkdtemp(prefix="ig-gemini-", dir=agent_env.get("TMPDIR") or None))
        atexit.register(shutil.rmtree, path, ignore_errors=True)
        home = cls(path, **fields)
        user = agent_env.get("GEMINI_CLI_HOME") or agent_env.get("HOME")
        (path / ".gemini").mkdir()
        for name in home.context_files if user else ():
            data = read_instruction_bytes(Path(user) / ".gemini" / name)  # type: ignore[arg-type]
            if data is not None and "/" not in name:
                (path / ".gemini" / name).write_bytes(data)
        return home

    def settings(self) -> dict[str, Any]:
        settings: dict[str, Any] = {
            "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
            "context": {"fileName": list(self.context_files)},
            "general": {"maxAttempts": self.max_attempts, "enableAutoUpdate": False,
                        "enableAutoUpdateNotification": False},
            "privacy": {"usageStatisticsEnabled": False}, "telemetry": {"enabled": False},
            "hooksConfig": {"enabled": False}, "skills": {"enabled": True},
            "advanced": {"ignoreLocalEnv": True},
        }
        if self.max_turns is not None:
            settings["model"] = {"maxSessionTurns": self.max_turns}
        return settings

    def write_settings(self) -> None:
        target = self.path / ".gemini" / "settings.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.with_suffix(".tmp")
        temporary.write_text(json.dumps(self.settings(), indent=1))
        os.replace(temporary, target)

    def env(self, agent_env: dict[str, str]) -> dict[str, str]:
        """`agent_env` plus variables that pin what a workspace `.env` could otherwise set."""
        missing = str(self.path / "no-system-settings.json")
        # The CLI dumps whole conversations to $TMPDIR/gemini-client-error-*.json on API errors:
        # keep them in this home, which goes when the run ends.
        (self.path / "tmp").mkdir(exist_ok=True)
        return {**agent_env, "TMPDIR": str(self.path / "tmp"), "GEMINI_CLI_HOME": str(self.path),
                "GEMINI_CLI_TRUST_WORKSPACE": "true",
                "GEMINI_CLI_SYSTEM_SETTINGS_PATH": missing, "GEMINI_CLI_SYSTEM_DEFAULTS_PATH": missing,
                "GEMINI_SYSTEM_MD": "false", "GEMINI_WRITE_SYSTEM_MD": "false",
                "GEMINI_TELEMETRY_ENABLED": "false", "NO_COLOR": "1"}


def workspace_context_files(workspace: Path) -> tuple[str, ...] | None:
    """`context.fileName` of the workspace's `.gemini/settings.json`, which a trusted workspace
    sets over the adapter's names (workspace settings replace user settings key by key); None
    when it sets none, or the file is no settings JSON the CLI would start with."""
    settings = read_settings_json(Path(workspace) / ".gemini" / "settings.json")
    context = settings.get("context") if isinstance(settings, dict) else None
    names = context.get("fileName") if isinstance(context, dict) else None
    names = [names] if isinstance(names, str) else names
    if not names or not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        return None
    return tuple(names)


def workspace_hazards(repo_root: Path, workspace: Path) -> list[str]:
    """Workspace files through which a repository (or the agent) could change the CLI's own
    configuration: `<cwd>/.gemini/settings.json` and `.gemini/.env` from the cwd up to the
    repository root. Repository-relative paths."""
    root = Path(os.path.realpath(repo_root))
    here = Path(os.path.realpath(workspace))
    found = [here / ".gemini" / "settings.json"] if os.path.lexists(here / ".gemini" / "settings.json") else []
    for directory in (here, *here.parents):
        if os.path.lexists(directory / ".gemini" / ".env"):
            found.append(directory / ".gemini" / ".env")
        if directory == root or not directory.is_relative_to(root):
            break
    return [p.relative_to(root).as_posix() if p.is_relative_to(root) else str(p) for p in found]
