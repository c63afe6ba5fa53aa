"""`explain`: which instruction files each agent loads in a directory, and what the reference
agent understands from them (directives with file:line and what it would do)."""

from __future__ import annotations

import argparse
import json
import posixpath
from pathlib import Path

from instruction_gate.agents.loading import LOADERS
from instruction_gate.errors import ConfigError, EXIT_PASS
from instruction_gate.lint.tree import DirTree, GitTree, directories
from instruction_gate.untrusted import quote
from instruction_gate.reference_agent.explain import AGENTS, as_json, explain
from instruction_gate.console import say, safe_json

_KIND_LABELS = {"run": "run", "test_command": "test command", "verify": "verify", "forbid_command": "never run",
                "protect_path": "do not edit", "approve_command": "approval (run)", "approve_edit": "approval (edit)",
                "read": "read"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--repo", type=Path, default=Path("."), help="repository root (default: .)")
    parser.add_argument("--cwd", default=".", help="the task's working directory, relative to the root (default: .)")
    parser.add_argument("--revision", help="read this commit's files from git objects (default: the working directory)")
    parser.add_argument("--agent", choices=sorted(AGENTS), default="both",
                        help="whose discovery to follow: one agent (codex: the AGENTS.md chain, claude: CLAUDE.md "
                             "and imports, ...), both (codex and claude, the reference agent's default) or all")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")


def run(args: argparse.Namespace) -> int:
    directory = posixpath.normpath(args.cwd.strip("/") or ".")
    if directory.startswith("..") or Path(args.cwd).is_absolute():
        raise ConfigError(f"--cwd: {args.cwd!r} must be a directory inside the repository, relative to its root")
    directory = "" if directory == "." else directory
    repo = args.repo.resolve()
    tree = GitTree(repo, args.revision, "--revision") if args.revision else DirTree(repo)
    if directory and directory not in directories(tree.files()):
        raise ConfigError(f"--cwd: {quote(args.cwd)} is not a directory of {tree.label} (relative to the repository root)")
    found, _, explained = explain(tree, directory, args.agent, repo)
    if args.json:
        print(safe_json(json.dumps(as_json(directory, found, explained), indent=2)))
        return EXIT_PASS
    say(f"{repo} ({tree.label}), task directory: {directory or '.'}")
    for chain in found:
        total = sum(f.bytes_loaded for f in chain.files)
        say(f"\n{LOADERS[chain.agent].label}: {len(chain.files)} file(s), {total} bytes")
        for f in chain.files:
            cut = f"  (cut: {f.bytes_loaded} of {f.size} bytes)" if f.truncated else ""
            say(f"  {f.path}  {f.size} B{cut}")
        for f in chain.whole[len(chain.files):]:
            say(f"  {f.path}  {f.size} B  (not loaded: over the budget)")
        if not chain.files:
            say("  (no instruction file)")
    say(f"\nThe reference agent's directives ({len(explained)}):")
    for item in explained:
        d = item.directive
        argument = f" `{d.argument}`" if d.argument else ""
        say(f"  {d.source}:{d.line}  {_KIND_LABELS[d.kind]}{argument}: {item.outcome}")
    if not explained:
        say("  none: it understands only the grammar in adapters/README.md (\"The reference agent (offline)\")")
    return EXIT_PASS
