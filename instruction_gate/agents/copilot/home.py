"""The private Copilot configuration a run executes under, and the session record it leaves.

The CLI keeps its settings, session store, logs and per-session event record under
`COPILOT_HOME`; the adapter points it at a fresh directory (removed when the adapter exits),
so no user setting, login, trusted folder, plugin, MCP server or personal skill reaches the
run. The user's personal `copilot-instructions.md` is copied in, so it still comes first.
The model comes from a custom provider (BYOK) in offline mode: no GitHub login, telemetry,
web tools, GitHub MCP server or update check. The agent's own `COPILOT_*` and
`GITHUB_COPILOT_*` variables are dropped (but `COPILOT_PKG_CACHE_HOME`): they would choose another provider, add instruction
or skill directories, or opt in to repository hooks and workspace MCP servers in prompt mode.

Token usage is not in the JSON stream: each model call leaves a `session.usage_record` in
`$COPILOT_HOME/session-state/<session>/events.jsonl`, which `usage_records` reads.
"""

from __future__ import annotations

import atexit
import json
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from instruction_gate.untrusted import read_instruction_bytes

PROVIDER_TYPES = ("openai", "anthropic")
WIRE_APIS = ("completions", "responses")
#: Where each provider type's endpoint and key come from in the agent's environment (the broker
#: sets these), as for the other adapters.
PROVIDER_ENV = {"openai": ("OPENAI_BASE_URL", "OPENAI_API_KEY"),
                "anthropic": ("ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY")}
#: Agent variables kept: where the binary unpacks its program (about 235 MB, a second per run
#: when it must; a cache that outlives the run's home saves it), nothing else.
KEPT = frozenset({"COPILOT_PKG_CACHE_HOME"})
DEFAULT_BASE_URLS = {"openai": "https://api.openai.com/v1", "anthropic": "https://api.anthropic.com"}


@dataclass(frozen=True)
class CopilotHome:
    """One run's private `COPILOT_HOME` and the provider the CLI is pointed at."""

    path: Path
    model: str
    provider_type: str  #: one of PROVIDER_TYPES
    wire_api: str  #: one of WIRE_APIS (openai only)
    base_url: str
    key_variable: str  #: the agent variable holding the provider key

    @classmethod
    def create(cls, agent_env: dict[str, str], **fields: Any) -> "CopilotHome":
        path = Path(tempfile.mkdtemp(prefix="ig-copilot-", dir=agent_env.get("TMPDIR") or None))
        atexit.register(shutil.rmtree, path, ignore_errors=True)
        user = agent_env.get("COPILOT_HOME") or (agent_env["HOME"] + "/.copilot" if agent_env.get("HOME") else None)
        data = read_instruction_bytes(Path(user) / "copilot-instructions.md") if user else None
        if data is not None:
            (path / "copilot-instructions.md").write_bytes(data)
        return cls(path, **fields)

    def env(self, agent_env: dict[str, str]) -> dict[str, str]:
        env = {k: v for k, v in agent_env.items()
               if not k.startswith(("COPILOT_", "GITHUB_COPILOT_")) or k in KEPT}
        env.update({
            "COPILOT_HOME": str(self.path), "COPILOT_OFFLINE": "true", "COPILOT_AUTO_UPDATE": "false",
            "COPILOT_PROVIDER_BASE_URL": self.base_url, "COPILOT_PROVIDER_TYPE": self.provider_type,
            "COPILOT_MODEL": self.model, "NO_COLOR": "1",
        })
        if self.provider_type == "openai":
            env["COPILOT_PROVIDER_WIRE_API"] = self.wire_api
        key = agent_env.get(self.key_variable)
        if key:
            env["COPILOT_PROVIDER_API_KEY"] = key
        return env

    def session_events(self, session_id: str) -> Path:
        return self.path / "session-state" / session_id / "events.jsonl"


def usage_records(path: Path) -> Iterator[dict[str, Any]]:
    """The `usage` of every `session.usage_record` in a session's event record."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return
    for line in lines:
        if '"session.usage_record"' not in line:
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        usage = (event.get("data") or {}).get("usage") if isinstance(event, dict) else None
        if isinstance(usage, dict):
            yield usage
