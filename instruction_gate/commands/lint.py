"""`lint`: static checks of the instruction files each agent would load, at no model cost.

With `--base`/`--candidate` both revisions are read from git objects (nothing is checked
out); without `--candidate` the working directory of `--repo` is the candidate.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
from pathlib import Path

from instruction_gate import git
from instruction_gate.suite import manifest as manifest_module
from instruction_gate.errors import EXIT_GATE_FAILURE, EXIT_PASS
from instruction_gate.lint import policy as lint_policy
from instruction_gate.lint import coverage, report
from instruction_gate.lint.chains import imports_closure, instruction_files
from instruction_gate.lint.engine import LintResult, lint_revisions
from instruction_gate.lint.model import RULES
from instruction_gate.lint.sarif import sarif
from instruction_gate.lint.tree import DirTree, GitTree
from instruction_gate.protected import check_repository_outputs
from instruction_gate.records import RECORD_SCHEMA_VERSION, write_json_atomic, write_text_atomic
from instruction_gate.console import one_line, say


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--repo", type=Path, default=Path("."), help="repository root (default: .)")
    parser.add_argument("--manifest", type=Path, help="suite manifest: its instruction_paths and task directories")
    parser.add_argument("--policy", type=Path,
                        help="policy.json with a `lint` section (default: policy.json next to the manifest)")
    parser.add_argument("--base", help="base commit; findings it already has are not new")
    parser.add_argument("--candidate", help="candidate commit (default: the working directory of --repo)")
    parser.add_argument("--sarif", type=Path, help="write SARIF 2.1.0 here (for GitHub code scanning)")
    parser.add_argument("--markdown", type=Path, help="write the Markdown summary section here")
    parser.add_argument("--json", type=Path, help="write machine-readable findings here")
    parser.add_argument("--annotations", action="store_true", default=os.environ.get("GITHUB_ACTIONS") == "true",
                        help="print ::error/::warning workflow annotations (default: on inside GitHub Actions)")


def _policy_path(args: argparse.Namespace) -> Path | None:
    if args.policy is not None:
        return args.policy
    if args.manifest is not None and (args.manifest.parent / "policy.json").is_file():
        return args.manifest.parent / "policy.json"
    return None


def to_json(result: LintResult) -> dict:
    def entry(finding, **extra):
        return {"rule_id": finding.rule_id, "rule": RULES[finding.rule_id].name, "path": finding.path,
                "line": finding.line, "column": finding.column, "message": finding.message,
                "fingerprint": finding.fingerprint, **extra}
    return {"schema_version": RECORD_SCHEMA_VERSION, "failed": result.failed,
            "base": result.base_label, "candidate": result.candidate_label,
            "findings": [entry(j.finding, new=j.new, blocking=j.blocking) for j in result.judged],
            "resolved": [entry(f) for f in result.resolved]}


def _project(repo: Path) -> str:
    """The repository's "owner/name": GitHub's variable in Actions, else the origin remote's URL."""
    if os.environ.get("GITHUB_REPOSITORY", "").count("/") == 1:
        return os.environ["GITHUB_REPOSITORY"]
    result = git.git("remote", "get-url", "origin", cwd=repo, check=False)
    match = re.search(r"[:/]([\w.-]+)/([\w.-]+?)(?:\.git)?/?$", result.stdout.strip()) if result.ok else None
    return f"{match.group(1)}/{match.group(2)}" if match else ""


def run(args: argparse.Namespace) -> int:
    repo = args.repo.resolve()
    outputs = {flag: path for flag, path in (("--markdown", args.markdown), ("--sarif", args.sarif),
                                             ("--json", args.json)) if path is not None}
    paths: tuple[str, ...] = ()
    directories: tuple[str, ...] = ()
    if args.manifest is not None:
        suite = manifest_module.load(args.manifest)
        paths = suite.instruction_paths
        directories = tuple("" if task.cwd == "." else task.cwd for task in suite.tasks)
    check_repository_outputs(repo, outputs, [p for p in (_policy_path(args), args.manifest) if p is not None], paths)
    policy = dataclasses.replace(lint_policy.load(_policy_path(args)), project=_project(repo))
    candidate = (GitTree(repo, args.candidate, f"candidate {one_line(args.candidate)}") if args.candidate
                 else DirTree(repo))
    base = GitTree(repo, args.base, f"base {one_line(args.base)}") if args.base else None
    result = lint_revisions(candidate, base, policy, paths, directories)
    summary = report.markdown(result)
    found: list[coverage.Gap] = []
    if args.manifest is not None:
        files = imports_closure(candidate, instruction_files(candidate, paths))
        found = coverage.gaps(files, directories, policy.byte_caps, candidate.files())
        summary += "\n" + "\n".join(coverage.markdown(found, len(directories)))
    say(summary)
    if args.annotations:
        for line in report.annotations(result):
            print(line)
    if args.markdown:
        write_text_atomic(args.markdown, summary + "\n")
    if args.sarif:
        write_json_atomic(args.sarif, sarif(result, policy))
    if args.json:
        write_json_atomic(args.json, {**to_json(result), **({"coverage": coverage.to_json(found)}
                                                           if args.manifest is not None else {})})
    return EXIT_GATE_FAILURE if result.failed else EXIT_PASS
