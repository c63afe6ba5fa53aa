"""One run of the reference agent: request in, protocol events out (see `adapters/README.md`)."""

from __future__ import annotations

import hashlib
import os
import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from instruction_gate import __version__
from instruction_gate.agents.discovery import LoadedFile, result_fields
from instruction_gate.agents.loading import LOADERS, LoadSettings, agents_of
from instruction_gate.reference_agent.directives import Directive, parse
from instruction_gate.reference_agent.executor import execute
from instruction_gate.reference_agent.plan import Command, Plan, build_plan
from instruction_gate.reference_agent.abstain import not_understood
from instruction_gate.agents.scoped_rules import blank_front_matter
from instruction_gate.reference_agent import skills
from instruction_gate.reference_agent.solution import apply_solution, file_changes
from instruction_gate.reference_agent.usage import Usage
from instruction_gate.untrusted import decode_instruction, is_path_text, quote, read_instruction_bytes

Emit = Callable[[dict[str, Any]], None]
#: Upper bound for one command when the request sets no timeout.
DEFAULT_COMMAND_TIMEOUT = 600.0


@dataclass(frozen=True)
class Options:
    """Behaviour switches, from adapter flags or `--adapter-option KEY=VALUE`."""

    seed: int = 0
    skip_probability: float = 0.0  #: chance to overlook each directive (0 = perfectly obedient)
    allow_any_command: bool = False  #: lift the program allowlist (trusted instructions only)
    #: whose instruction files to load: one agent's (`codex`, `claude`, ... — `agents.loading.MODES`),
    #: `both` (Codex and Claude Code) or `all`; one agent's view shows what an edit to only another
    #: agent's files does not change
    discovery: str = "both"


def directive_rng(seed: int, task_id: str, variant: str, repeat: int) -> random.Random:
    """The same (seed, task, variant, repeat) always skips the same directives."""
    digest = hashlib.sha256(f"{seed}\0{task_id}\0{variant}\0{repeat}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


class ReferenceAgent:
    def __init__(self, request: dict[str, Any], options: Options, emit: Emit):
        self.request, self.options, self.emit = request, options, emit
        self.workspace = Path(request["workspace"])
        self.cwd = str(request.get("cwd") or ".")
        self.repo_root = Path(request.get("repo_root") or self.workspace)
        self.env = dict(request.get("agent_env") or os.environ, PYTHONDONTWRITEBYTECODE="1")
        self.timeout = float((request.get("limits") or {}).get("timeout_seconds") or DEFAULT_COMMAND_TIMEOUT)
        self.usage, self.tool_calls, self.started = Usage(), 0, time.monotonic()
        self.asked: set[str] = set()
        #: Base names of the instruction files loaded: never arguments of a command (fallback names too).
        self.instruction_names: frozenset[str] = frozenset()
        self.turn = 0  #: current turn; finishing steps belong to the last one
        self.not_understood = 0  #: instruction-looking lines of the loaded files that gave no directive
        self.skills_invoked: list[str] = []  #: skills whose SKILL.md it read and followed (reference_agent/skills.py)
        rng = directive_rng(options.seed, str(request.get("task_id")), str(request.get("variant")),
                            int(request.get("repeat") or 0))
        self.skip = (lambda d: rng.random() < options.skip_probability) if options.skip_probability > 0 else (lambda d: False)

    # -- reading ----------------------------------------------------------------------
    def _read_document(self, path: str) -> str | None:
        target = self.repo_root / path
        if not is_path_text(path) or not target.resolve().is_relative_to(self.repo_root.resolve()):
            return None
        data = read_instruction_bytes(target)
        if data is None:
            return None
        text = decode_instruction(data)
        self._tool({"tool": "read_file", "path": path}, output_bytes=len(path))
        self.usage.read(len(text.encode()))
        self.emit({"type": "policy", "name": "policy_opened", "path": path})
        return text

    def load_plan(self) -> tuple[Plan, list[str], dict[str, int]]:
        loaded_files: dict[str, LoadedFile] = {}
        files = []
        for agent in agents_of(self.options.discovery):
            loader = LOADERS[agent]
            for loaded in loader.at_start(self.repo_root, self.cwd, LoadSettings()):
                if loaded.path in loaded_files:
                    continue  # one file, one text, whichever agents load it
                loaded_files[loaded.path] = loaded
                data = read_instruction_bytes(self.repo_root / loaded.path, loaded.bytes_loaded) or b""
                self.usage.read(len(data))
                files.append((loaded.path, decode_instruction(data)))
                if loader.imports is not None:
                    self._note_unloadable_imports(loaded.path, data, loader.imports.parse)
        sources, sizes = result_fields(loaded_files.values())
        self.instruction_names = frozenset(Path(p).name for p in loaded_files)
        files += self._invoke_skills([text for _, text in files])
        plan = build_plan(files, self._read_document, self.skip, self._exists)
        # instruction-looking lines it took nothing from: what this offline tier ignores (abstain.py)
        understood = plan.followed + plan.skipped
        self.not_understood = sum(len(not_understood(blank_front_matter(text), path, understood)) for path, text in files)
        return plan, sources, sizes

    def _invoke_skills(self, instruction_texts: list[str]) -> list[tuple[str, str]]:
        """The SKILL.md files of the skills the prompts or instructions name, read as a model's
        invocation would; their directives join the plan (front matter blanked by `build_plan`)."""
        visible = skills.visible_skills(self.repo_root, self.cwd, agents_of(self.options.discovery))
        prompts = [str(t) for t in self.request.get("turns") or [self.request.get("prompt") or ""]]
        read = []
        for skill in skills.invoked(visible, prompts, instruction_texts):
            text = self._read_document(skill.path)
            if text is not None:
                self.skills_invoked.append(skill.listed_name)
                read.append((skill.path, text))
        return read

    def _exists(self, path: str) -> bool:
        """Whether a repository-relative path is in the repository (never through a link out of it)."""
        target = self.repo_root / path
        return target.exists() and target.resolve().is_relative_to(self.repo_root.resolve())

    def _note_unloadable_imports(self, path: str, data: bytes, parse: Callable[[str], list[str]]) -> None:
        # An import no file can answer (a NUL or control character in it) is skipped, as the
        # agent would; the record keeps the fact as an event, never as a crash.
        for ref in parse(data.decode("utf-8", errors="replace")):
            if not is_path_text(ref):
                self.emit({"type": "instructions", "name": "import_skipped", "path": path,
                           "import": quote(ref), "reason": "not a loadable path (control character)"})

    # -- acting -----------------------------------------------------------------------
    def _tool(self, event: dict[str, Any], output_bytes: int) -> None:
        self.usage.step(output_bytes)
        self.tool_calls += 1
        self.emit({"type": "tool", **event, "turn": self.turn})

    def _ask(self, target: str, directive: Directive | None) -> None:
        if target not in self.asked:
            self.asked.add(target)
            self.emit({"type": "policy", "name": "approval_requested", "target": target,
                       "source": directive.source if directive else None})

    def attempt(self, command: Command, plan: Plan) -> int | None:
        """Run `command` unless a prohibition or approval requirement stops it; its exit code."""
        if forbidden := plan.prohibition_for(command.text):
            self.emit({"type": "message", "text": f"Not running `{command.text}`: {forbidden.source}:{forbidden.line} forbids it."})
            return None
        if approval := plan.approval_for(command.text):
            self._ask(command.text, approval)
            return None
        remaining = max(1.0, self.timeout - (time.monotonic() - self.started) - 5)
        result = execute(command.text, self.repo_root, self.repo_root / command.cwd, self.env,
                         min(remaining, DEFAULT_COMMAND_TIMEOUT), self.options.allow_any_command,
                         instruction_names=self.instruction_names)
        # One event per step attempted (`A && B`, `cd web && npm test`): what started, where, and how it
        # ended; a command refused whole (shell syntax) is one event with the command as written.
        for step in result.steps:
            where = os.path.relpath(step.cwd or self.repo_root / command.cwd, self.repo_root).replace(os.sep, "/")
            event = {"tool": "shell", "command": step.command, "cwd": where, "exit_code": step.exit_code}
            self._tool({**event, **({"refused": step.refused} if step.refused else {})}, len(step.command))
            self.usage.read(len(step.output.encode()))
        return result.exit_code

    def change(self, plan: Plan) -> str | None:
        """Apply the reference solution; returns an error message when it does not apply."""
        text = self.request.get("reference_solution_patch")
        solution = self.request.get("reference_solution")
        if text is None and solution:
            # Protocol version 1 before the sandbox: a path (still accepted from older runners).
            if not Path(solution).is_file():
                return f"reference solution {solution} not found"
            text = Path(solution).read_text(encoding="utf-8")
        if not text:
            return None
        paths = [c.path for c in file_changes(text, self.repo_root)]
        for path in paths:
            if plan.needs_edit_approval(path) and not plan.is_protected(path):
                self._ask(path, None)
        withhold = {p for p in paths if plan.is_protected(p) or plan.needs_edit_approval(p)}
        for path in paths:
            if (self.repo_root / path).is_file():
                self.usage.read((self.repo_root / path).stat().st_size)
        outcome = apply_solution(text, self.repo_root, withhold)
        if outcome.error:
            return outcome.error
        self.usage.step(outcome.patch_bytes)
        for change in outcome.applied:
            self.tool_calls += 1
            self.emit({"type": "file_change", "path": change.path, "change": change.change, "turn": self.turn})
        return None

    def run(self) -> dict[str, Any]:
        plan, sources, sizes = self.load_plan()
        turns = self.request.get("turns") or [self.request.get("prompt") or ""]
        error = None
        for index, prompt in enumerate(turns):
            self.turn = index
            self.emit({"type": "turn", "index": index})
            self.usage.read(len(prompt.encode()))
            asked = parse(prompt, "prompt")
            plan.forbidden += [d for d in asked if d.kind == "forbid_command"]
            plan.approval_commands += [d for d in asked if d.kind == "approve_command"]
            plan.verify = plan.verify or any(d.kind == "verify" for d in asked)
            if index == 0:
                error = self.change(plan)
            for d in asked:
                if d.kind in ("run", "test_command"):
                    self.attempt(Command(d.argument or "", self.cwd, "prompt"), plan)
        for command in plan.run:
            self.attempt(command, plan)
        if plan.verify and plan.test is not None:
            exit_code = self.attempt(plan.test, plan)
            if exit_code is not None:
                self.emit({"type": "policy", "name": "verification_run", "command": plan.test.text, "exit_code": exit_code})
        return self.result(plan, sources, sizes, error)

    def result(self, plan: Plan, sources: list[str], sizes: dict[str, int], error: str | None) -> dict[str, Any]:
        message = (f"Followed {len(plan.followed)} directives, overlooked {len(plan.skipped)}; "
                   f"{self.tool_calls} tool calls." + (f" The change did not apply: {error}" if error else ""))
        self.usage.step(len(message))
        return {
            "type": "result", "status": "failed" if error else "completed",
            **({"failure_class": "agent", "failure_reason": "agent_error"} if error else {}),
            "tool_calls": self.tool_calls, "input_tokens": self.usage.input_tokens,
            "output_tokens": self.usage.output_tokens, "cached_input_tokens": self.usage.cached_input_tokens,
            "provider_cost_usd": self.usage.cost_usd, "instruction_sources": sources, "instruction_bytes": sizes,
            # It loads every instruction file at the start: nothing reaches it later.
            "skills_invoked": self.skills_invoked, "lazy_instruction_sources": [],
            "not_understood": self.not_understood,
            "agent_name": "reference", "model": None, "model_snapshot": None,
            "harness_version": f"reference-agent/{__version__}", "adapter_version": __version__,
            "container_digest": None, "wall_seconds": round(time.monotonic() - self.started, 3),
            "final_message": message,
        }
