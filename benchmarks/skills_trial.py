#!/usr/bin/env python3
"""Project skills of real repositories through each pinned CLI: the names a CLI lists in its
first model request against `agents/skills.py`'s `skill_files`, per repository and agent.

Each FOLDER is a checkout (or a copy of its skills directories, links kept) of a repository
with skills. Each is copied, one run per agent goes through the scripted provider (the CLIs of
`tests/live_cli`; `make live-cli`), and the skill names found in the request are compared with
what `skill_files` says the agent lists. Usage:
python benchmarks/skills_trial.py FOLDER [FOLDER ...] [--agents claude,codex,...]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from instruction_gate.agents.conformance import run_live  # noqa: E402
from instruction_gate.agents.scripted_provider import Step  # noqa: E402
from instruction_gate.agents.skills import SKILL_AGENTS, parse_skill, skill_files  # noqa: E402
from tests.live_cli.conftest import BINARIES  # noqa: E402


def _shown(text: str, name: str) -> bool:
    """A skill listed in a request: `- name: …` / `- name (…)` lines or `<name>name</name>`."""
    escaped = re.escape(name)
    return re.search(rf"\\n- {escaped}(:| \()|<name>{escaped}</name>", text) is not None


def trial(folder: Path, agent: str, scratch: Path) -> tuple[list[str], list[str]]:
    """(names the CLI listed, names `skill_files` gives) for one repository and agent."""
    names = set()
    for path in folder.rglob("SKILL.md"):
        skill = parse_skill(str(path), path.read_bytes())
        names |= {skill.folder, *([skill.name] if skill.name else [])}
    repo = scratch / "repo"
    shutil.copytree(folder, repo, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    run = run_live(agent, BINARIES[agent].resolve(), repo, [Step("text", text="ok")], scratch)
    text = json.dumps(run.requests[0].body) if run.requests else ""
    rules = SKILL_AGENTS[agent]
    return sorted(n for n in names if _shown(text, n)), sorted(rules.name_of(s) for s in skill_files(repo, agent))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--agents", default=",".join(SKILL_AGENTS))
    args = parser.parse_args()
    mismatches = 0
    for folder in args.folders:
        for agent in args.agents.split(","):
            with tempfile.TemporaryDirectory(prefix="ig-skills-") as scratch:
                sent, ours = trial(folder, agent, Path(scratch))
            mismatches += sent != ours
            print(f"{folder.name} {agent}: {'match' if sent == ours else 'DIFFER'} ({len(sent)} listed)"
                  + ("" if sent == ours else f"; CLI only {sorted(set(sent) - set(ours))}, "
                                             f"ours only {sorted(set(ours) - set(sent))}"), flush=True)
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
