"""The private OpenCode configuration a run executes under, and the workspace files it refuses.

OpenCode reads its global config, session store, caches and global `AGENTS.md` from the XDG
directories; the adapter points all four at a fresh directory (removed when the adapter
exits) and hands the CLI its whole configuration in `OPENCODE_CONFIG_CONTENT`: one
OpenAI-compatible provider at the base URL the harness chose (key from `OPENAI_API_KEY`),
every tool allowed without asking (headless; confinement is the runner's sandbox), no
sharing, auto-update, MCP servers or plugins. Variables turn off what would reach the network:
the models.dev fetch, LSP downloads, default plugins; a lock file keeps it from installing its
plugin package from npm. The user's global `AGENTS.md` is copied in so it still comes first.
Skills stay on: the project's `.claude/skills` and `.agents/skills` are repository files, part
of the instructions under evaluation (`agents/skills.py`); in a gate run the agent's home,
where the CLI also looks for skills, is the run's private one.

Project configuration (`opencode.json`, `opencode.jsonc`, `.opencode/` with agents, commands,
plugins — executable code — and tools) is merged over all of that and cannot be switched off
without also switching off `AGENTS.md` (`OPENCODE_DISABLE_PROJECT_CONFIG` does both), so the
adapter refuses to start the CLI next to it (`workspace_hazards`) unless told it is trusted.
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

from instruction_gate.agents.discovery import project_root, read_settings_json
from instruction_gate.untrusted import read_instruction_bytes

PROVIDER_ID = "instruction-gate"
#: Project files that reconfigure OpenCode, looked for from the cwd up to the repository root.
HAZARDS = ("opencode.json", "opencode.jsonc", ".opencode")
_FLAGS = ("OPENCODE_DISABLE_AUTOUPDATE", "OPENCODE_DISABLE_MODELS_FETCH", "OPENCODE_DISABLE_LSP_DOWNLOAD",
          "OPENCODE_DISABLE_DEFAULT_PLUGINS", "OPENCODE_DISABLE_SHARE", "OPENCODE_DISABLE_TERMINAL_TITLE")


@dataclass(frozen=True)
class OpenCodeHome:
    """One run's private XDG directories and the configuration the CLI is given."""

    path: Path
    model: str  #: `provider/model` as OpenCode names it
    base_url: str | None  #: the OpenAI-compatible endpoint; None: `model` names a provider of OpenCode's own
    prices_per_mtok: tuple[float, float, float] | None = None
    max_steps: int | None = None
    compaction: bool = False
    claude_fallback: bool = True

    @classmethod
    def create(cls, agent_env: dict[str, str], **fields: Any) -> "OpenCodeHome":
        path = Path(tempfile.mkdtemp(prefix="ig-opencode-", dir=agent_env.get("TMPDIR") or None))
        atexit.register(shutil.rmtree, path, ignore_errors=True)
        home = cls(path, **fields)
        (path / "config" / "opencode").mkdir(parents=True)
        # OpenCode installs `@opencode-ai/plugin` from the npm registry into every config
        # directory in the background, unless its lock file already lists the package: it
        # need not (no plugin or custom tool is configured), and the registry is off-limits.
        (home.global_dir / "node_modules").mkdir()
        lock = {"lockfileVersion": 3, "packages": {"": {"dependencies": {"@opencode-ai/plugin": "*"}}}}
        (home.global_dir / "package-lock.json").write_text(json.dumps(lock))
        user = agent_env.get("XDG_CONFIG_HOME") or (agent_env["HOME"] + "/.config" if agent_env.get("HOME") else None)
        data = read_instruction_bytes(Path(user) / "opencode" / "AGENTS.md") if user else None
        if data is not None:
            (home.global_dir / "AGENTS.md").write_bytes(data)
        return home

    @property
    def global_dir(self) -> Path:
        """Where OpenCode looks for its global `AGENTS.md` (`$XDG_CONFIG_HOME/opencode`)."""
        return self.path / "config" / "opencode"

    def config(self) -> dict[str, Any]:
        config: dict[str, Any] = {
            "model": self.model, "small_model": self.model, "share": "disabled", "autoupdate": False,
            "permission": {"*": "allow"}, "mcp": {}, "plugin": [], "instructions": [],
            # Compaction after a context overflow retries for ever when the instructions alone
            # overflow it; off, the overflow ends the run as the agent's error.
            "compaction": {"auto": self.compaction, "prune": self.compaction},
        }
        if self.max_steps is not None:
            config["agent"] = {"build": {"steps": self.max_steps}}
        if self.base_url is not None:
            model = self.model.split("/", 1)[1]
            entry: dict[str, Any] = {"name": model}
            if self.prices_per_mtok is not None:  # OpenCode reports cost from these
                fresh, cached, output = self.prices_per_mtok
                entry["cost"] = {"input": fresh, "cache_read": cached, "output": output}
            config["provider"] = {PROVIDER_ID: {
                "npm": "@ai-sdk/openai-compatible", "name": PROVIDER_ID, "models": {model: entry},
                "options": {"baseURL": self.base_url, "apiKey": "{env:OPENAI_API_KEY}"}}}
        return config

    def env(self, agent_env: dict[str, str]) -> dict[str, str]:
        """`agent_env` without OpenCode's own variables (a user's OPENCODE_CONFIG, permissions),
        plus the private directories, the configuration and the switches above."""
        env = {k: v for k, v in agent_env.items() if not k.startswith("OPENCODE_")}
        for name in ("config", "data", "cache", "state"):
            (self.path / name).mkdir(exist_ok=True)
            env[f"XDG_{name.upper()}_HOME"] = str(self.path / name)
        env.update({flag: "1" for flag in _FLAGS})
        if not self.claude_fallback:
            env["OPENCODE_DISABLE_CLAUDE_CODE_PROMPT"] = "1"
        env["OPENCODE_CONFIG_CONTENT"] = json.dumps(self.config())
        env["NO_COLOR"] = "1"
        return env


def workspace_instructions(repo_root: Path, workspace: Path) -> list[str]:
    """The `instructions` entries of the project configuration a trusted workspace lets OpenCode
    load, in its order: `opencode.json(c)` from the git root down to the cwd, then each
    `.opencode/opencode.json(c)` from the cwd up; the arrays are joined, each entry once."""
    root = Path(os.path.realpath(repo_root))
    here = Path(os.path.realpath(workspace))
    stop = project_root(root, here) if here.is_relative_to(root) else here
    dirs = [here, *[d for d in here.parents if d.is_relative_to(stop)]]
    files = [d / n for d in reversed(dirs) for n in ("opencode.json", "opencode.jsonc")]
    files += [d / ".opencode" / n for d in dirs for n in ("opencode.json", "opencode.jsonc")]
    found: list[str] = []
    for config in (read_settings_json(f, trailing_commas=True) for f in files):
        entries = config.get("instructions") if isinstance(config, dict) else None
        found += [e for e in entries or () if isinstance(e, str) and e not in found] if isinstance(entries, list) else []
    return found


def workspace_hazards(repo_root: Path, workspace: Path) -> list[str]:
    """Project configuration OpenCode would load for a run in `workspace`, repository-relative."""
    root = Path(os.path.realpath(repo_root))
    here = Path(os.path.realpath(workspace))
    found = []
    for directory in (here, *here.parents):
        found += [directory / name for name in HAZARDS if os.path.lexists(directory / name)]
        if directory == root or not directory.is_relative_to(root):
            break
    return [p.relative_to(root).as_posix() if p.is_relative_to(root) else str(p) for p in found]
