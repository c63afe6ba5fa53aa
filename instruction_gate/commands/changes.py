"""`changes`: list the instruction files a candidate changes, one per line; exit 0 or 2.

A cheap first CI job runs this to decide whether the gate has anything to evaluate. It
reads only the trusted base manifest's `instruction_paths` and git objects, so it is safe
for pull requests from anyone. Unlike `validate` it does not object to other changed
files: deciding relevance and enforcing the static contract are separate jobs.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from instruction_gate import git, globs
from instruction_gate.suite import manifest as manifest_mod
from instruction_gate.errors import ConfigError
from instruction_gate.untrusted import quote


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--repo", type=Path, default=Path.cwd(), help="repository (default: current directory)")
    parser.add_argument("--manifest", type=Path, required=True, help="suite manifest (JSON or YAML)")
    parser.add_argument("--base", required=True, help="trusted base commit")
    parser.add_argument("--candidate", required=True, help="candidate commit")


def changed_instruction_paths(repo: Path, instruction_paths: tuple[str, ...], base: str, candidate: str) -> list[str]:
    """Instruction paths that differ between the merge base of base and candidate, and the candidate."""
    try:
        merge_base = git.out("merge-base", base, candidate, cwd=repo).strip()
    except git.GitError as exc:
        raise ConfigError(f"cannot find the merge base of {base} and {candidate} (is the candidate commit fetched?): {exc}") from None
    names = git.out("diff", "--name-only", "--no-renames", "-z", merge_base, candidate, cwd=repo)
    return sorted(globs.filter_paths([n for n in names.split("\0") if n], instruction_paths))


def run(args: argparse.Namespace) -> int:
    manifest = manifest_mod.load(args.manifest)
    for path in changed_instruction_paths(args.repo, manifest.instruction_paths, args.base, args.candidate):
        print(quote(path, limit=4096))  # a newline in a path must not print a second line (or a workflow command)
    return 0
