"""`explain`: which instruction files each agent loads in a directory, and what the reference
agent understands from them (directives with file:line and what it would do)."""

from __future__ import annotations

import argparse
import json
import posixpath
from pathlib import Path

from instruction_gate.agents.discovery import LoadedFile
from instruction_gate.agents.loading import LOADERS, LoadSettings
from instruction_gate.errors import ConfigError, EXIT_PASS
from instruction_gate.lint.chains import instruction_files
from instruction_gate.lint.imports import REASONS, Import
from instruction_gate.lint.tree import DirTree, GitTree, Tree, directories, real_path, resolve
from instruction_gate.untrusted import INSTRUCTION_CAP_BYTES, quote
from instruction_gate.reference_agent.explain import (
    AGENTS, as_json, bytes_sent, explain, hidden_text, import_notes, outside_files, unread_lines, unreadable_files,
)
from instruction_gate import secret_shapes
from instruction_gate.console import say, safe_json
from instruction_gate.secrets import Redactor

_KIND_LABELS = {"run": "run", "test_command": "test command", "verify": "verify", "forbid_command": "never run",
                "protect_path": "do not edit", "approve_command": "approval (run)", "approve_edit": "approval (edit)",
                "read": "read"}


def _say(text: str) -> None:
    """Print one line of the report with credential-shaped text redacted: a token pasted into an
    AGENTS.md would otherwise reach the CI log of every run of explain."""
    say(secret_shapes.redact(text))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--repo", type=Path, default=Path("."), help="repository root (default: .)")
    parser.add_argument("--cwd", default=".", help="the task's working directory, relative to the root (default: .)")
    parser.add_argument("--revision", help="read this commit's files from git objects (default: the working directory)")
    parser.add_argument("--agent", choices=sorted(AGENTS), default="both",
                        help="whose discovery to follow: one agent (codex: the AGENTS.md chain, claude: CLAUDE.md "
                             "and imports, ...), both (codex and claude, the reference agent's default) or all")
    parser.add_argument("--context-files", type=_names, help="Gemini CLI's context.fileName, comma-separated "
                        f"(default {','.join(LoadSettings().gemini_names)})")
    parser.add_argument("--fallback-names", type=_names, default=(),
                        help="Codex's project_doc_fallback_filenames, comma-separated (default: none)")
    parser.add_argument("--doc-budget-bytes", type=_positive, default=LoadSettings().codex_budget,
                        help=f"Codex's project_doc_max_bytes (default {LoadSettings().codex_budget})")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")


def _names(value: str) -> tuple[str, ...]:
    names = tuple(n.strip() for n in value.split(",") if n.strip())
    if not names or any("/" in n for n in names):
        raise argparse.ArgumentTypeError(f"{value!r}: expected file names separated by commas")
    return names


def _positive(value: str) -> int:
    if not value.isdigit() or int(value) <= 0:
        raise argparse.ArgumentTypeError(f"{value!r}: expected a positive number of bytes")
    return int(value)


def _settings(args: argparse.Namespace) -> LoadSettings:
    return LoadSettings(codex_budget=args.doc_budget_bytes, fallback_names=args.fallback_names,
                        gemini_names=args.context_files or LoadSettings().gemini_names)


def run(args: argparse.Namespace) -> int:
    directory = posixpath.normpath(args.cwd.strip("/") or ".")
    if directory.startswith("..") or Path(args.cwd).is_absolute():
        raise ConfigError(f"--cwd: {args.cwd!r} must be a directory inside the repository, relative to its root")
    if ".git" in directory.split("/"):
        raise ConfigError(f"--cwd: {quote(args.cwd)} is inside .git, git's own files: no task works there")
    directory = "" if directory == "." else directory
    repo = args.repo.resolve()
    tree = GitTree(repo, args.revision, "--revision") if args.revision else DirTree(repo)
    if directory and tree.kind(directory) == "submodule":
        raise ConfigError(f"--cwd: {quote(args.cwd)} is a git submodule ({tree.label}): an agent started there is in "
                          "the submodule's own repository and loads its files, not this one's; run explain there")
    linked = resolve(directory, tree.link_target) if directory else None
    if linked is not None and linked.path != directory:
        if linked.path is None:  # out of the repository, or a loop: no agent can be run there
            return _linked_out(args, repo, tree, directory, linked.target)
        if not args.json:
            _say(f"--cwd {quote(directory)} is a symlink to {quote(linked.path or '.')}: the agents work there")
        directory = linked.path
    # An empty directory (a submodule not checked out, a new package) still gets its parents' files.
    if directory and directory not in directories(tree.files()) and tree.kind(directory) != "directory":
        raise ConfigError(f"--cwd: {quote(args.cwd)} is no directory of the repository ({tree.label}); give it "
                          "relative to the repository root")
    settings = _settings(args)
    found, plan, explained = explain(tree, directory, args.agent, repo, settings=settings)
    notes = import_notes(tree, found, settings)
    outside = outside_files(tree, settings)
    unreadable = unreadable_files(tree, directory, args.agent, settings)
    hidden = hidden_text(tree, found)
    unread = unread_lines(tree, found, plan)
    if args.json:
        data = as_json(directory, found, explained, notes, outside)
        data["not_files"] = [{"path": path, "is": what} for path, what in unreadable.items()]
        data["hidden_characters"] = [{"file": path, "line": line, "characters": chars} for path, line, chars in hidden]
        data["not_understood_count"] = len(unread)
        data["not_understood"] = [{"file": u.source, "line": u.line, "text": u.text, "why": u.why} for u in unread]
        for chain, listed in zip(found, data["chains"]):
            listed["refused_project_config"] = list(chain.refused_config)
            listed["start_failure"] = chain.failure or None
        print(safe_json(json.dumps(Redactor().data(data), indent=2)))
        return EXIT_PASS
    _say(f"{quote(repo)} ({tree.label}), task directory: {quote(directory or '.')}")
    for chain in found:
        inside = [f for f in chain.files if f.path not in outside]
        total, sent = sum(f.bytes_loaded for f in inside), sum(bytes_sent(f) for f in inside)
        amount = f"{total} bytes" if sent == total else f"{total} bytes on disk, {sent} bytes sent"
        if chain.failure:
            _say(f"\n{LOADERS[chain.agent].label}: no file reaches the model: {quote(chain.failure, limit=400)}")
            continue
        _say(f"\n{LOADERS[chain.agent].label}: {len(chain.files)} file(s), {amount}")
        show = lambda f, suffix: _show(f, suffix, chain.agent, tree, notes, outside)  # noqa: E731
        for f in chain.files:
            show(f, "  (cut: {0.bytes_loaded} of {0.size} bytes)" if f.truncated else "")
        for f in chain.whole[len(chain.files):]:
            _say(f"  {quote(f.path)}  {f.size} B  (not loaded: over the budget)")
        if not chain.files:
            _say("  (no instruction file)")
        for f in chain.later:
            show(f, f"  ({LOADERS[chain.agent].later_how})")
        for path, how in chain.skills:
            _say(f"  {quote(path)}  ({quote(how, limit=300)})")
        for rule in chain.scoped:
            _say(f"  {quote(rule.path)}  ({quote(rule.how, limit=300)})"
                 + (f"\n    note: {quote(rule.problem)}" if rule.problem else ""))
        for path in chain.refused_config:
            _say(f"  note: {quote(path)}: the {chain.agent} adapter refuses to start next to it unless "
                 "workspace_settings=trust")
    shown = {f.path for c in found for f in (*c.whole, *c.later)} | {r.path for c in found for r in c.scoped} | {
        p for c in found for p, _ in c.skills}
    others = [p for p in instruction_files(tree) if p not in shown]
    if others and not any(c.whole or c.later or c.scoped or c.skills for c in found):
        # A repository with only Copilot's or Cursor's files shows nothing under the default agents.
        listed = f"{quote(', '.join(others[:5]))}{', ...' if len(others) > 5 else ''}"
        _say(f"\nNone of these agents loads the repository's instruction files ({listed}): try --agent all"
             if args.agent != "all" else f"\nNo agent loads the repository's instruction files ({listed}) from here")
    if unreadable:
        _say("")
    for path, what in unreadable.items():  # an agent skips it (or may wait on a pipe): never silently
        _say(f"Not loaded: {quote(path)} is {what}, which no agent reads as instructions")
    if hidden:
        _say("")
    for path, line, chars in hidden[:_HIDDEN_SHOWN]:
        _say(f"Hidden: {quote(path)}:{line} holds {', '.join(sorted(set(chars)))}, which a reviewer cannot see; "
            "the agent reads it, and a command or rule with it inside is no longer what the page shows (lint IG009)")
    if len(hidden) > _HIDDEN_SHOWN:
        _say(f"Hidden: {len(hidden) - _HIDDEN_SHOWN} more line(s) like these (--json lists all)")
    _directives(explained)
    _not_understood(unread)
    return EXIT_PASS


def _linked_out(args: argparse.Namespace, repo: Path, tree: Tree, directory: str, target: str | None) -> int:
    """--cwd is a link out of the repository (or a loop): the adapters fail a run started there
    before the agent starts (the turn loop's own check), so no file reaches any model."""
    why = (f"the working directory is a symlink to {quote(target)}, out of the repository" if target
           else "the working directory is a symlink loop")
    failure = f"{why}: the adapter fails the run before the agent starts (agent_error)"
    wanted = AGENTS[args.agent]
    if args.json:
        print(safe_json(json.dumps(Redactor().data({
            "directory": directory, "chains": [{"agent": a, "files": [], "later": [], "start_failure": failure}
                                               for a in wanted], "directives": []}), indent=2)))
        return EXIT_PASS
    _say(f"{quote(repo)} ({tree.label}), task directory: {quote(directory)}")
    for agent in wanted:
        _say(f"\n{LOADERS[agent].label}: no file reaches the model: {failure}")
    return EXIT_PASS


#: Lines with hidden characters printed in the text report; JSON has them all.
_HIDDEN_SHOWN = 10


def _show(f: LoadedFile, suffix: str, agent: str, tree: Tree, notes: dict[tuple[str, str], list[Import]],
          outside: dict[str, str]) -> None:
    where = quote(posixpath.dirname(f.path) or ".")
    if f.path in outside:
        _say(f"  {quote(f.path)}  (symlink to {quote(outside[f.path])} outside the repository: the agent loads "
            "whatever is there on the machine; reviewers do not see it)" + suffix.format(f, where=where))
        return
    sent = bytes_sent(f)
    amount = f"{f.size} B" if sent == f.bytes_loaded else f"{f.size} B on disk, {sent} B sent"
    _say(f"  {quote(f.path)}  {amount}" + suffix.format(f, where=where))
    if f.size > INSTRUCTION_CAP_BYTES:
        _say(f"    note: over the {INSTRUCTION_CAP_BYTES} byte read cap: the harness reads only the first "
              f"{INSTRUCTION_CAP_BYTES} bytes; this agent loads {f.bytes_loaded} B of it")
    failure = "; the model reads an import-failure text in its place" if LOADERS[agent].imports and \
        LOADERS[agent].imports.failure_text else ""
    for item in notes.get((agent, real_path(f.path, tree.link_target) or f.path), []):
        _say(f"    @{quote(item.ref)}: not loaded ({REASONS[item.problem]}){failure if item.problem != 'depth' else ''}")


def _directives(explained: list) -> None:
    _say(f"\nThe reference agent's directives ({len(explained)}):")
    for item in explained:
        d = item.directive
        argument = f" `{quote(d.argument)}`" if d.argument else ""
        _say(f"  {quote(d.source)}:{d.line}  {_KIND_LABELS[d.kind]}{argument}: {quote(item.outcome, limit=2000)}")
    if not explained:
        _say("  none: it understands only the grammar in adapters/README.md (\"The reference agent (offline)\")")


#: Not-understood lines printed in the text report; JSON has them all.
_UNREAD_SHOWN = 40


def _not_understood(unread: list) -> None:
    """What the offline agent ignores: lines that read like instructions it has no directive for."""
    if not unread:
        return
    _say(f"\nNot understood ({len(unread)}): lines that look like instructions the reference agent does not act on")
    for item in unread[:_UNREAD_SHOWN]:
        _say(f"  {quote(item.source)}:{item.line}  {quote(item.text, limit=200)}  ({item.why})")
    if len(unread) > _UNREAD_SHOWN:
        _say(f"  ... {len(unread) - _UNREAD_SHOWN} more (--json lists all)")
