"""Run a shipped adapter over a real agent CLI against a scripted loopback provider, and read
back what reached the model. Shared by the conformance tests and `instruction-gate doctor`."""

from __future__ import annotations

import html
import json
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from instruction_gate import proc
from instruction_gate.agents.scripted_provider import LoggedRequest, ScriptedProvider, Step

ADAPTERS_DIR = Path(__file__).resolve().parents[2] / "adapters"


@dataclass
class LiveRun:
    """One adapter run: its events and result, and the provider's log."""

    events: list[dict[str, Any]]
    result: dict[str, Any]
    requests: list[LoggedRequest]  #: model requests only, in order
    stderr: str  #: the adapter's stderr
    answered: list[LoggedRequest]  #: model and side requests the provider answered with a message

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e.get("type") == kind]

    def commands(self) -> list[tuple[str, Any]]:
        return [(e["command"], e.get("exit_code")) for e in self.of_type("tool")]


def agent_env(home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """A clean agent environment: a fresh home (no user config or global instructions)."""
    home.mkdir(parents=True, exist_ok=True)
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "LANG": "C.UTF-8",
           "CODEX_HOME": str(home / ".codex")}
    (home / ".codex").mkdir(exist_ok=True)
    env.update(extra or {})
    return env


def run_live(agent: str, binary: Path, repo: Path, script: list[Step], tmp: Path, *,
             turns: tuple[str, ...] = ("Fix the bug.",), cwd: str = "", options: dict[str, str] | None = None,
             timeout: float = 60, env_extra: dict[str, str] | None = None, hang_seconds: float = 120.0,
             adapter: str | None = None, runner_env: dict[str, str] | None = None) -> LiveRun:
    """One run of adapters/<agent> (or adapters/<adapter>, e.g. `broker`) with `script` as the
    model. Codex gets the model `scripted` (generic tools) and no sandbox: its sandbox helpers
    refuse to live under a temporary directory."""
    workspace = repo / cwd if cwd else repo
    with ScriptedProvider(script, hang_seconds=hang_seconds) as provider:
        env = agent_env(tmp / "agent-home", env_extra)
        opts = {"binary": str(binary)}
        if agent == "codex":
            opts.update({"sandbox": "danger-full-access", "provider_retries": "0", "model": "scripted"})
            if adapter is None:
                opts["base_url"] = provider.url + "/v1"
                env["OPENAI_API_KEY"] = "scripted-key"
        elif agent == "gemini":
            opts["model"] = "gemini-scripted"  # no routing side calls: one request per step
            if adapter is None:
                env.update({"GOOGLE_GEMINI_BASE_URL": provider.url, "GEMINI_API_KEY": "scripted-key"})
        elif agent in ("opencode", "copilot"):
            opts["model"] = "scripted"
            if adapter is None:
                env.update({"OPENAI_BASE_URL": provider.url + "/v1", "OPENAI_API_KEY": "scripted-key"})
        elif adapter is None:
            env.update({"ANTHROPIC_BASE_URL": provider.url, "ANTHROPIC_API_KEY": "scripted-key"})
        opts.update(options or {})
        request = {"schema_version": 1, "workspace": str(workspace), "repo_root": str(repo), "cwd": cwd or ".",
                   "prompt": turns[0], "turns": list(turns), "task_id": "live", "variant": "candidate",
                   "repeat": 0, "limits": {"timeout_seconds": timeout, "max_tool_calls": None,
                                           "max_provider_cost_usd": None, "network": False},
                   "agent_env": env, "reference_solution": None, "adapter_options": opts}
        argv = [sys.executable, str(ADAPTERS_DIR / (adapter or agent))]
        if adapter == "broker":
            opts["upstream_url"] = provider.url
        renv = {"PATH": os.environ["PATH"], "HOME": str(tmp / "runner-home"), **(runner_env or {})}
        result = proc.run(argv, str(workspace), env=renv, stdin=json.dumps(request), timeout=timeout + 30)
        events = [e for e in map(_json_line, result.stdout.splitlines()) if isinstance(e, dict)]
        results = [e for e in events if e.get("type") == "result"]
        final = results[-1] if results else {"type": "result", "status": "no_result", "stderr": result.stderr[-2000:]}
        return LiveRun(events, final, provider.model_requests(), result.stderr, provider.answered_requests())


def _json_line(line: str) -> Any:
    try:
        return json.loads(line)
    except json.JSONDecodeError:
        return None


# -- what actually reached the model ---------------------------------------------------------
_CODEX_DOC = re.compile(r"# AGENTS\.md instructions for [^\n]*\n\n<INSTRUCTIONS>\n(.*)\n</INSTRUCTIONS>", re.S)
_CLAUDE_DOC = re.compile(r"Contents of (\S+) \([^)]*\):\n\n(.*?)(?=\n\nContents of \S+ \(|\n</system-reminder>)", re.S)


def _texts(body: Any) -> list[str]:
    out: list[str] = []
    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "text" and isinstance(value, str):
                    out.append(value)
                else:
                    walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)
    if isinstance(body, dict):
        walk(body.get("input") if "input" in body else body.get("messages"))
    return out


def codex_instructions(request: Any) -> str | None:
    """The project-doc text Codex put in front of the model, or None."""
    for text in _texts(request.body):
        match = _CODEX_DOC.search(text)
        if match:
            return match.group(1)
    return None


def claude_memory(request: Any) -> list[tuple[str, str]]:
    """(absolute path, content) of every memory file in the first user message, in order."""
    for text in _texts(request.body):
        if "Contents of " in text:
            return [(m.group(1), m.group(2)) for m in _CLAUDE_DOC.finditer(text)]
    return []


_GEMINI_BLOCK = re.compile(r"--- Context from: (.+?) ---\n(.*?)\n--- End of Context from: \1 ---", re.S)


def _gemini_texts(body: Any) -> list[str]:
    """The system instruction, then every text and function response sent, in order."""
    if not isinstance(body, dict):
        return []
    texts = [p.get("text", "") for p in (body.get("systemInstruction") or {}).get("parts", []) if isinstance(p, dict)]
    for content in body.get("contents") or []:
        for part in content.get("parts") or [] if isinstance(content, dict) else []:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                texts.append(part["text"])
            elif isinstance(part, dict) and isinstance(part.get("functionResponse"), dict):
                output = (part["functionResponse"].get("response") or {}).get("output")
                texts.append(output if isinstance(output, str) else "")
    return texts


def gemini_context(request: Any) -> list[tuple[str, str]]:
    """(absolute path, content) of every context file Gemini CLI sent in a request, in order:
    global files (system instruction), project files (first user message), then files found
    just in time (appended to tool results). Imports stay inline in their file's content."""
    found: list[tuple[str, str]] = []
    for text in _gemini_texts(request.body):
        for match in _GEMINI_BLOCK.finditer(text):
            if (match.group(1), match.group(2)) not in found:
                found.append((match.group(1), match.group(2)))
    return found


_GEMINI_IMPORT = re.compile(r"<!-- (Imported from|End of import from): (.+?) -->")


def gemini_imports(path: str, content: str) -> list[str]:
    """Absolute paths of the files inlined into one context file's `content`, depth first."""
    stack, out = [Path(path)], []
    for match in _GEMINI_IMPORT.finditer(content):
        if match.group(1) == "Imported from":
            target = Path(os.path.normpath(stack[-1].parent / match.group(2)))
            out.append(str(target))
            stack.append(target)
        elif len(stack) > 1:
            stack.pop()
    return out


_OPENCODE_BLOCK = re.compile(r"Instructions from: (/\S+)\n")


def opencode_instructions(request: Any) -> list[tuple[str, str]]:
    """(absolute path, the text that follows its header) of every instruction file OpenCode sent
    in a chat request, in order: the system prompt's, then those attached to tool results."""
    found: list[tuple[str, str]] = []
    for message in (request.body.get("messages") or []) if isinstance(request.body, dict) else []:
        content = message.get("content") if isinstance(message, dict) else None
        texts = [content] if isinstance(content, str) else [p.get("text", "") for p in content or []
                                                            if isinstance(p, dict)]
        for text in texts:
            for match in _OPENCODE_BLOCK.finditer(text):
                if match.group(1) not in [path for path, _ in found]:
                    found.append((match.group(1), text[match.end():]))
    return found


_COPILOT_BLOCK = re.compile(r"<custom_instruction>\n(.*?)\n</custom_instruction>", re.S)
_COPILOT_REMINDER = re.compile(r"<system_reminder>\nCustom instructions from (.+?)\. Apply these to any code you "
                               r"write here:\n\n(.*?)\n</system_reminder>", re.S)
_COPILOT_TABLE = "Here is a list of instruction files that contain rules"


@dataclass
class CopilotSent:
    """What the Copilot CLI sent of instruction files in one chat request."""

    blocks: list[str]  #: `<custom_instruction>` texts of the system prompt, in order
    everywhere: str  #: the `.instructions.md` files sent at start: two newlines and its text for each, then a newline
    table: str  #: the `applyTo` table of the other `.instructions.md` files ("" when none)
    reminders: list[tuple[str, str]]  #: (path as the CLI names it, text) of files sent after a tool call


_COPILOT_IMPORT = re.compile(r'\n\n<imported_custom_instruction source="([^"]*)"( skipped="already-loaded" />|>\n)'
                             r'|</imported_custom_instruction>')


def copilot_block_files(block: str) -> list[tuple[str | None, str]]:
    """A sent file's text and the files it imported, split apart: (None, the file's own text),
    then (absolute path, text) per import, in the order they open (depth first)."""
    found: list[list[Any]] = [[None, ""]]
    stack, at = [0], 0
    for match in _COPILOT_IMPORT.finditer(block):
        found[stack[-1]][1] += block[at:match.start()]
        at = match.end()
        if match.group(0).startswith("</"):
            if len(stack) > 1:
                stack.pop()
            else:  # a closing tag in the file's own text
                found[0][1] += match.group(0)
        elif match.group(2).startswith(">"):
            found.append([match.group(1), ""])
            stack.append(len(found) - 1)
    found[stack[-1]][1] += block[at:]
    return [(path, text) for path, text in found]


def copilot_instructions(request: Any) -> CopilotSent:
    """The instruction text the Copilot CLI put into a Chat Completions request."""
    messages = (request.body.get("messages") or []) if isinstance(request.body, dict) else []
    system = next((m.get("content") for m in messages if isinstance(m, dict) and m.get("role") == "system"), "")
    system = system if isinstance(system, str) else ""
    blocks = _COPILOT_BLOCK.findall(system)
    # The files sent at start without a block follow the last block (else the tool notes), each
    # as two newlines and its text.
    start = system.rfind("</custom_instruction>")
    start = start + len("</custom_instruction>") if start >= 0 else system.rfind("</tools>") + len("</tools>\n")
    end = min(i for i in (system.find(_COPILOT_TABLE, start), system.find("<system_notifications>", start),
                          len(system)) if i >= 0)
    table_end = system.find("<system_notifications>", start)
    table = system[end:table_end] if system.startswith(_COPILOT_TABLE, end) else ""
    reminders: list[tuple[str, str]] = []
    for message in messages[1:]:
        content = message.get("content") if isinstance(message, dict) else None
        for match in _COPILOT_REMINDER.finditer(content if isinstance(content, str) else ""):
            found = (match.group(1), html.unescape(match.group(2)))
            if found not in reminders:
                reminders.append(found)
    return CopilotSent(blocks, system[start:end], table, reminders)
