"""Odd trees give one discovery answer: what the gemini and opencode adapters report (or refuse)
and what `explain` says, on the same tree. What the CLIs themselves do with each tree is checked
live in tests/live_cli/test_live_odd_cases.py."""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import SimpleNamespace
from typing import Callable

import pytest

from instruction_gate.agents.discovery import outside_repository
from instruction_gate.agents.gemini.adapter import GeminiAgent
from instruction_gate.agents.opencode.adapter import OpenCodeAgent
from instruction_gate.agents.options import Options
from instruction_gate.agents.protocol import AdapterRequest
from instruction_gate.cli import main
from tests.conftest import GitRepo

ADAPTERS = {"gemini": GeminiAgent, "opencode": OpenCodeAgent}
REFUSED = "refused"


def _dangling(repo: GitRepo, tmp: Path) -> None:
    repo.commit({"CLAUDE.md": "Claude.\n", "GEMINI.md": "Gemini.\n"})
    os.symlink("missing.md", repo.path / "AGENTS.md")


def _self_loop(repo: GitRepo, tmp: Path) -> None:
    repo.commit({"CLAUDE.md": "Claude.\n", "GEMINI.md": "Gemini.\n"})
    os.symlink("AGENTS.md", repo.path / "AGENTS.md")


def _loop_below(repo: GitRepo, tmp: Path) -> None:
    repo.commit({"AGENTS.md": "Root.\n", "sub/x.py": "x = 1\n"})
    os.symlink("AGENTS.md", repo.path / "sub" / "AGENTS.md")


def _directory_named_agents(repo: GitRepo, tmp: Path) -> None:
    repo.commit({"AGENTS.md/notes.txt": "not instructions\n", "CLAUDE.md": "Claude.\n", "GEMINI.md": "Gemini.\n"})


def _nested_repository(repo: GitRepo, tmp: Path) -> None:
    repo.commit({"AGENTS.md": "Root.\n", "GEMINI.md": "Gemini.\n"})
    GitRepo(repo.path / "sub").commit({"AGENTS.md": "Sub.\n", "x.py": "x = 1\n"})


def _imports(repo: GitRepo, tmp: Path) -> None:
    # Past the first MiB, absolute inside the repository, `../` inside it and past it.
    repo.commit({"GEMINI.md": " " * 1024 * 1024 + f"\nPast the first MiB @docs/late.md and @{repo.path}/docs/abs.md\n",
                 "docs/late.md": "Late.\n", "docs/abs.md": "Abs.\n", "docs/up.md": "Up.\n",
                 "pkg/AGENTS.md": "Up @../docs/up.md and past the root @../../outside.md\n"})


def _linked_cwd(repo: GitRepo, tmp: Path) -> None:
    repo.commit({"AGENTS.md": "Root.\n", "pkg/AGENTS.md": "Pkg.\n"})
    os.symlink("pkg", repo.path / "lnk")
    (tmp / "elsewhere").mkdir()
    (tmp / "elsewhere" / "AGENTS.md").write_text("Elsewhere.\n")
    os.symlink(tmp / "elsewhere", repo.path / "out")


def _settings(repo: GitRepo, tmp: Path) -> None:
    repo.commit({"AGENTS.md": "Root.\n", "pkg/.gemini/settings.json": "{}", "pkg/x.py": "x = 1\n",
                 "web/opencode.json": "{}", "web/y.py": "y = 1\n"})


#: name -> (tree, cwd, {agent: what its adapter reports, or REFUSED})
CASES: dict[str, tuple[Callable[[GitRepo, Path], None], str, dict[str, object]]] = {
    # OpenCode passes over a link to nothing and takes the next name; Gemini CLI skips it.
    "dangling link": (_dangling, "", {"gemini": ["GEMINI.md"], "opencode": ["CLAUDE.md"]}),
    # In the cwd Gemini CLI stops before any request; OpenCode passes over it.
    "self-looping link": (_self_loop, "", {"gemini": REFUSED, "opencode": ["CLAUDE.md"]}),
    "loop below the cwd": (_loop_below, "", {"gemini": ["AGENTS.md"], "opencode": ["AGENTS.md"]}),
    # A directory claims OpenCode's name and sends nothing.
    "directory named AGENTS.md": (_directory_named_agents, "", {"gemini": ["GEMINI.md"], "opencode": []}),
    "nested repository": (_nested_repository, "sub", {"gemini": ["sub/AGENTS.md"], "opencode": ["sub/AGENTS.md"]}),
    "imports": (_imports, "pkg", {
        "gemini": ["GEMINI.md", "docs/late.md", "docs/abs.md", "pkg/AGENTS.md", "docs/up.md"],
        "opencode": ["pkg/AGENTS.md"]}),
    "cwd linked inside": (_linked_cwd, "lnk", {"gemini": ["AGENTS.md", "pkg/AGENTS.md"],
                                              "opencode": ["pkg/AGENTS.md", "AGENTS.md"]}),
    "cwd linked out": (_linked_cwd, "out", {"gemini": REFUSED, "opencode": REFUSED}),
    "settings elsewhere": (_settings, "", {"gemini": ["AGENTS.md"], "opencode": ["AGENTS.md"]}),
    "gemini settings in the cwd": (_settings, "pkg", {"gemini": REFUSED, "opencode": ["AGENTS.md"]}),
    "opencode config in the cwd": (_settings, "web", {"gemini": ["AGENTS.md"], "opencode": REFUSED}),
}


def _adapter_answer(agent: str, repo: Path, cwd: str, home: Path) -> object:
    """What the adapter reports for a run that touched nothing, or REFUSED when it fails the run
    before the agent starts (the turn loop's own check, then the adapter's)."""
    workspace = repo / cwd if cwd else repo
    home.mkdir(exist_ok=True)
    request = AdapterRequest.parse(json.dumps({
        "workspace": str(workspace), "repo_root": str(repo), "prompt": "p",
        "agent_env": {"HOME": str(home), "PATH": os.environ["PATH"], "TMPDIR": str(home)}}))
    adapter = ADAPTERS[agent].from_options(Options({}), request)
    if outside_repository(repo, workspace) or adapter.refuse_turn(request) is not None:
        return REFUSED
    parser = SimpleNamespace(session_id="session", touched_paths=[], loaded=[])
    return [f.path for f in adapter.instruction_files(request, parser)]


def _explain_answer(capsys, agent: str, repo: Path, cwd: str) -> object:
    assert main(["explain", "--repo", str(repo), "--cwd", cwd or ".", "--agent", agent, "--json"]) == 0
    chain = json.loads(capsys.readouterr().out)["chains"][0]
    if chain.get("start_failure") or chain.get("refused_project_config"):
        return REFUSED
    return [f["path"] for f in chain["files"]]


@pytest.fixture(scope="module")
def trees(tmp_path_factory) -> dict[str, Path]:
    """Each case's tree, built once for both agents."""
    built = {}
    for name, (build, _, _) in CASES.items():
        tmp = tmp_path_factory.mktemp(name.replace(" ", "-").replace("/", ""))
        build(GitRepo(tmp / "repo"), tmp)
        built[name] = tmp
    return built


@pytest.mark.parametrize("agent", sorted(ADAPTERS))
@pytest.mark.parametrize("case", sorted(CASES))
def test_adapter_and_explain_agree_on_odd_trees(trees, capsys, case, agent):
    _, cwd, expected = CASES[case]
    repo = trees[case] / "repo"
    adapter = _adapter_answer(agent, repo, cwd, trees[case] / f"home-{agent}")
    assert adapter == expected[agent]
    assert _explain_answer(capsys, agent, repo, cwd) == adapter


def test_explain_says_why_gemini_never_starts_next_to_a_loop(trees, capsys):
    repo = trees["self-looping link"] / "repo"
    assert main(["explain", "--repo", str(repo), "--agent", "all"]) == 0
    out = capsys.readouterr().out
    gemini = out.split("\nGemini CLI:")[1].split("\n\n")[0]
    assert "no file reaches the model: Gemini CLI stops before any request: AGENTS.md in the working directory " \
           "is a symlink loop" in gemini and "GEMINI.md" not in gemini
    assert "\nOpenCode: 1 file(s)" in out and "Not loaded: AGENTS.md is a symlink loop" in out


def test_explain_follows_a_linked_working_directory(trees, capsys):
    repo = trees["cwd linked inside"] / "repo"
    assert main(["explain", "--repo", str(repo), "--cwd", "lnk", "--agent", "gemini"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("--cwd lnk is a symlink to pkg: the agents work there\n")
    assert main(["explain", "--repo", str(repo), "--cwd", "out", "--agent", "all"]) == 0
    out = capsys.readouterr().out
    assert out.count("no file reaches the model: the working directory is a symlink to ") == out.count("\n\n") >= 4


def test_explain_notes_imports_as_the_agent_resolves_them(trees, capsys):
    repo = trees["imports"] / "repo"
    assert main(["explain", "--repo", str(repo), "--cwd", "pkg", "--agent", "gemini"]) == 0
    out = capsys.readouterr().out
    assert f"@{repo}/docs/abs.md" not in out and "docs/abs.md  5 B" in out and "docs/up.md  4 B" in out
    assert "docs/late.md  6 B" in out
    assert "@../../outside.md: not loaded (outside the repository)" in out


def test_trusted_workspace_settings_name_the_files_the_adapters_report(tmp_path):
    repo = GitRepo(tmp_path / "repo")
    repo.commit({"AGENTS.md": "Root.\n", "GEMINI.md": "Gemini.\n", "RULES.md": "Rules.\n", "docs/a.md": "A.\n",
                 "docs/deep/b.md": "B.\n", "pkg/docs/c.md": "C.\n", "pkg/x.py": "x = 1\n",
                 # Gemini CLI reads comments but refuses a trailing comma; OpenCode's JSONC takes both.
                 "pkg/.gemini/settings.json": '{"context": {/* one */ "fileName": "RULES.md"}}',
                 "opencode.json": '{"instructions": ["RULES.md", "docs/*.md", "~/x.md", "https://e.x/y.md",],}',
                 "pkg/.opencode/opencode.jsonc": '// more\n{"instructions": ["docs/*.md", "/abs/none.md"]}'})

    homes = iter(range(10))

    def reported(agent: str, **options: str) -> object:
        workspace = repo.path / "pkg"
        home = tmp_path / f"home-{next(homes)}"
        home.mkdir()
        request = AdapterRequest.parse(json.dumps({"workspace": str(workspace), "repo_root": str(repo.path),
                                                   "prompt": "p", "agent_env": {"HOME": str(home), "TMPDIR": str(home)}}))
        adapter = ADAPTERS[agent].from_options(Options(options), request)
        if adapter.refuse_turn(request) is not None:
            return REFUSED
        return [f.path for f in adapter.instruction_files(request, SimpleNamespace(session_id="s", touched_paths=[],
                                                                                   loaded=[]))]

    assert reported("gemini") == reported("opencode") == REFUSED
    # The workspace's context.fileName replaces the adapter's names; the CLI keeps GEMINI.md.
    assert reported("gemini", workspace_settings="trust") == ["GEMINI.md", "RULES.md"]
    # Project files, then each pattern from the cwd up to the git root, nearest first.
    assert reported("opencode", workspace_settings="trust") == [
        "AGENTS.md", "RULES.md", "pkg/docs/c.md", "docs/a.md"]
    (repo.path / "pkg/.gemini/settings.json").write_text('{"context": {"fileName": "RULES.md",},}')
    # Settings the CLI cannot read name nothing (it exits before a session, so nothing is reported then).
    assert reported("gemini", workspace_settings="trust") == ["AGENTS.md", "GEMINI.md"]
