"""`changes`: list the instruction files a candidate changes, one per line; exit 0 or 2.

A cheap first CI job runs this to decide whether the gate has anything to evaluate. It
reads only the trusted base manifest's `instruction_paths` and git objects, so it is safe
for pull requests from anyone. Unlike `validate` it does not object to other changed
files: deciding relevance and enforcing the static contract are separate jobs, but it says on
stderr when the change is *mixed* (instruction files and code together), naming both kinds,
so the workflow log explains what the static contract will do with it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from instruction_gate import git, globs
from instruction_gate.agents.loading import DEFAULT_INSTRUCTION_PATHS, is_instruction_file
from instruction_gate.suite import manifest as manifest_mod
from instruction_gate.errors import ConfigError
from instruction_gate.untrusted import quote
from instruction_gate.console import say


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--repo", type=Path, default=Path.cwd(), help="repository (default: current directory)")
    parser.add_argument("--manifest", type=Path, required=True, help="suite manifest (JSON or YAML)")
    parser.add_argument("--base", required=True, help="trusted base commit")
    parser.add_argument("--candidate", required=True, help="candidate commit")


def changed_paths(repo: Path, instruction_paths: tuple[str, ...], base: str, candidate: str) -> tuple[list[str], list[str]]:
    """(instruction files, other files) that differ between the merge base of base and candidate, and the candidate."""
    try:
        merge_base = git.out("merge-base", base, candidate, cwd=repo).strip()
    except git.GitError as exc:
        raise ConfigError(f"cannot find the merge base of {base} and {candidate} (is the candidate commit fetched?): {exc}") from None
    names = [n for n in git.out("diff", "--name-only", "--no-renames", "-z", merge_base, candidate, cwd=repo).split("\0") if n]
    instructions = sorted(globs.filter_paths(names, instruction_paths))
    return instructions, sorted(set(names) - set(instructions))


def run(args: argparse.Namespace) -> int:
    manifest = manifest_mod.load(args.manifest)
    instructions, code = changed_paths(args.repo, manifest.instruction_paths, args.base, args.candidate)
    for path in instructions:
        say(quote(path, limit=4096))  # a newline in a path must not print a second line (or a workflow command)
    # A file an agent loads by itself, changed outside `instruction_paths`: the gate will not
    # evaluate it, and whoever edits only that file would otherwise learn it from silence.
    unwatched = [path for path in code if is_instruction_file(path)]
    if unwatched:
        shown = ", ".join(quote(u, limit=200) for u in unwatched[:20])
        example = next((g for g in DEFAULT_INSTRUCTION_PATHS if globs.matches_any(unwatched[0], (g,))), unwatched[0])
        say(f"unwatched instruction files: {shown} {'is' if len(unwatched) == 1 else 'are'} loaded by a known agent but "
            "outside the manifest's instruction_paths, so the gate does not evaluate the change; add them "
            f"(e.g. {quote(example, limit=200)}) to instruction_paths", file=sys.stderr)
    if instructions and code:
        shown = ", ".join(quote(c, limit=200) for c in code[:20]) + (f", ... and {len(code) - 20} more" if len(code) > 20 else "")
        say(f"mixed change: instruction files {', '.join(quote(i, limit=200) for i in instructions)}; code ({len(code)} "
              f"file{'s' if len(code) != 1 else ''}): {shown}. The static contract refuses it unless the policy's "
              "contract.mixed_changes is hold-code", file=sys.stderr)
    return 0
