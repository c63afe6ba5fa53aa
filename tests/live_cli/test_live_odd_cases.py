"""Odd trees against the pinned Gemini CLI and OpenCode: what the adapters report is what
reached the scripted provider. Links to nothing, loops, nested repositories, a directory named
AGENTS.md, imports past the first MiB, absolute and `../` imports, trusted workspace settings,
and a working directory linked out of the repository. The runs go concurrently (one scripted
provider each) to keep the module near 20 s; `tests/agents/test_odd_cases.py` holds `explain`
to the same answers."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable

import pytest

from instruction_gate.agents.conformance import LiveRun, gemini_context, gemini_imports, opencode_instructions, \
    run_live
from instruction_gate.agents.scripted_provider import Step
from tests.conftest import GitRepo
from tests.live_cli.conftest import BINARIES

MIB = 1024 * 1024


def _links_and_imports(repo: GitRepo, tmp: Path) -> None:
    repo.commit({"GEMINI.md": "x" * MIB + "\nLate @docs/late.md\n", "docs/late.md": "Late.\n", "docs/up.md": "Up.\n",
                 "docs/abs.md": "Abs.\n", "pkg/AGENTS.md": f"Up @../docs/up.md and absolute @{repo.path}/docs/abs.md\n"})
    os.symlink("missing.md", repo.path / "AGENTS.md")


def _self_loop(repo: GitRepo, tmp: Path) -> None:
    repo.commit({"CLAUDE.md": "Claude.\n", "GEMINI.md": "Gemini.\n", "sub/x.py": "x = 1\n"})
    os.symlink("AGENTS.md", repo.path / "AGENTS.md")


def _links_to_nothing(repo: GitRepo, tmp: Path) -> None:
    repo.commit({"CLAUDE.md": "Claude.\n", "sub/x.py": "x = 1\n"})
    os.symlink("missing.md", repo.path / "AGENTS.md")
    os.symlink("AGENTS.md", repo.path / "sub" / "AGENTS.md")


def _nested_with_directory(repo: GitRepo, tmp: Path) -> None:
    repo.commit({"AGENTS.md": "Root.\n", "GEMINI.md": "Gemini.\n"})
    GitRepo(repo.path / "nested").commit({"AGENTS.md": "Nested.\n", "pkg/AGENTS.md/notes.txt": "x\n",
                                          "pkg/CLAUDE.md": "Shadowed.\n", "pkg/y.py": "y = 1\n"})


def _trusted(repo: GitRepo, tmp: Path) -> None:
    repo.commit({"AGENTS.md": "Root.\n", "GEMINI.md": "Gemini.\n", "RULES.md": "Rules.\n", "docs/a.md": "A.\n",
                 ".gemini/settings.json": '{\n  // comments allowed\n  "context": {"fileName": ["RULES.md"]}\n}\n',
                 "opencode.json": '{"instructions": ["RULES.md", "docs/*.md", "https://example.com/x.md",],}'})


def _linked_out(repo: GitRepo, tmp: Path) -> None:
    repo.commit({"AGENTS.md": "Root.\n"})
    (tmp / "elsewhere").mkdir()
    (tmp / "elsewhere" / "AGENTS.md").write_text("Elsewhere.\n")
    os.symlink(tmp / "elsewhere", repo.path / "out")


TRUST = {"workspace_settings": "trust"}
#: name -> (agent, tree, cwd, adapter options)
SCENARIOS: dict[str, tuple[str, Callable[[GitRepo, Path], None], str, dict[str, str]]] = {
    "gemini-imports": ("gemini", _links_and_imports, "pkg", {}),
    "gemini-loop": ("gemini", _self_loop, "", {}),
    "gemini-nested": ("gemini", _nested_with_directory, "nested/pkg", {}),
    "gemini-trusted": ("gemini", _trusted, "", TRUST),
    "gemini-linked-out": ("gemini", _linked_out, "out", {}),
    "opencode-links": ("opencode", _links_to_nothing, "sub", {}),
    "opencode-nested": ("opencode", _nested_with_directory, "nested/pkg", {}),
    "opencode-trusted": ("opencode", _trusted, "", TRUST),
    "opencode-linked-out": ("opencode", _linked_out, "out", {}),
}


def _run(name: str, tmp: Path) -> tuple[LiveRun, Path]:
    agent, build, cwd, options = SCENARIOS[name]
    repo = GitRepo(tmp / "repo")
    build(repo, tmp)
    return run_live(agent, BINARIES[agent].resolve(), repo.path, [Step("text", text="ok")], tmp, cwd=cwd,
                    options=options), repo.path


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, tuple[LiveRun, Path]]:
    missing = sorted({agent for agent, *_ in SCENARIOS.values() if not BINARIES[agent].is_file()})
    if missing:
        message = f"the pinned {', '.join(missing)} CLI is not installed; run `make live-cli`"
        pytest.fail(message, pytrace=False) if os.environ.get("CI") else pytest.skip(message)
    with ThreadPoolExecutor(max_workers=5) as pool:
        futures = {name: pool.submit(_run, name, tmp_path_factory.mktemp(name)) for name in SCENARIOS}
        return {name: future.result() for name, future in futures.items()}


def _sent(run: LiveRun, repo: Path) -> tuple[list[str], int]:
    """Repository paths of every instruction file whose text reached the model, and its bytes."""
    names: list[str] = []
    sent = 0
    for request in run.requests[:1]:
        found = gemini_context(request) or opencode_instructions(request)
        for path, text in found:
            sent += len(text.encode())
            for each in (path, *gemini_imports(path, text)):
                name = Path(each).relative_to(repo).as_posix()
                names += [name] if name not in names else []
    return names, sent


@pytest.mark.parametrize("name, expected", [
    # A link to nothing is skipped; an import past the first MiB loads; `../` and absolute imports
    # inside the project load.
    ("gemini-imports", ["GEMINI.md", "docs/late.md", "pkg/AGENTS.md", "docs/up.md", "docs/abs.md"]),
    # The nested repository starts the chain; a directory named AGENTS.md sends nothing.
    ("gemini-nested", ["nested/AGENTS.md"]),
    # The trusted workspace's context.fileName replaces the adapter's names; GEMINI.md stays.
    ("gemini-trusted", ["GEMINI.md", "RULES.md"]),
    # Links to nothing (dangling, looping) do not claim AGENTS.md: CLAUDE.md is the name.
    ("opencode-links", ["CLAUDE.md"]),
    # A directory named AGENTS.md claims the name and sends nothing; the nested repository stops the walk.
    ("opencode-nested", ["nested/AGENTS.md"]),
    # The trusted opencode.json's `instructions`, after the project's AGENTS.md; the URL is not fetched.
    ("opencode-trusted", ["AGENTS.md", "RULES.md", "docs/a.md"]),
])
def test_reported_files_are_what_reached_the_model(runs, name, expected):
    run, repo = runs[name]
    assert run.result["status"] == "completed", run.stderr
    names, sent = _sent(run, repo)
    assert run.result["instruction_sources"] == names == expected
    if name.startswith("gemini"):  # what the CLI writes in place of each import counts too
        assert sum(run.result["instruction_bytes"].values()) == sent
    else:
        assert run.result["instruction_bytes"] == {p: (repo / p).stat().st_size for p in expected}


@pytest.mark.parametrize("name, why", [
    # The CLI resolves each context file name in its cwd at start-up and throws on the loop.
    ("gemini-loop", "AGENTS.md in the working directory is a symlink loop"),
    ("gemini-linked-out", "the working directory leads out of the repository"),
    ("opencode-linked-out", "the working directory leads out of the repository"),
])
def test_runs_the_cli_cannot_make_are_the_agents_failure_with_nothing_reported(runs, name, why):
    run, _ = runs[name]
    assert (run.result["failure_class"], run.result["failure_reason"]) == ("agent", "agent_error"), run.stderr
    assert why in run.stderr and not run.requests and run.result["instruction_sources"] == []
