"""Entry point of `adapters/reference`: flags and adapter options in, one run, events on stdout."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Sequence

from instruction_gate.agents.loading import MODES
from instruction_gate.reference_agent.agent import Options, ReferenceAgent
from instruction_gate.agents.undumpable import harden_adapter

_TRUE = {"1", "true", "yes", "on"}
DISCOVERY = ("both", *(m for m in MODES if m != "both"))


def _parse_flags(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="adapters/reference", description=(
        "Offline reference agent: follows the directives of the instruction files, "
        "applies the task's reference solution. Reads one request on stdin."))
    parser.add_argument("--seed", type=int, default=0, help="seed of the stochastic mode")
    parser.add_argument("--skip-probability", type=float, default=0.0,
                        help="chance to overlook each directive (0 = always obey)")
    parser.add_argument("--allow-any-command", action="store_true",
                        help="run programs outside the allowlist (only for trusted instructions)")
    parser.add_argument("--discovery", choices=DISCOVERY, default="both",
                        help="load the instruction files one agent would (codex: the AGENTS.md chain, claude: "
                             "CLAUDE.md and imports, ...), both (codex and claude) or all")
    return parser.parse_args(argv)


def options_from(flags: argparse.Namespace, adapter_options: dict[str, Any]) -> Options:
    """Adapter options (`--adapter-option KEY=VALUE` of the runner) override the flags."""
    seed = int(adapter_options.get("seed", flags.seed))
    skip = float(adapter_options.get("skip_probability", flags.skip_probability))
    if not 0.0 <= skip <= 1.0:
        raise ValueError(f"skip_probability must be between 0 and 1, got {skip}")
    allow = adapter_options.get("allow_any_command")
    allow_any = flags.allow_any_command if allow is None else str(allow).lower() in _TRUE
    discovery = str(adapter_options.get("discovery", flags.discovery))
    if discovery not in DISCOVERY:
        raise ValueError(f"discovery must be one of {', '.join(DISCOVERY)}, got {discovery!r}")
    return Options(seed=seed, skip_probability=skip, allow_any_command=allow_any, discovery=discovery)


def main(argv: Sequence[str] | None = None) -> int:
    flags = _parse_flags(sys.argv[1:] if argv is None else argv)

    def emit(event: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps(event) + "\n")
        sys.stdout.flush()

    harden_adapter("reference")  # it starts the commands the instructions ask for
    request = json.loads(sys.stdin.read())
    try:
        options = options_from(flags, request.get("adapter_options") or {})
    except ValueError as exc:
        emit({"type": "result", "status": "error", "failure_class": "infrastructure",
              "failure_reason": "bad_adapter_option", "final_message": str(exc), "agent_name": "reference"})
        return 2
    emit(ReferenceAgent(request, options, emit).run())
    return 0
