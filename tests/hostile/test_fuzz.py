"""Property-based fuzzing (hypothesis) of hostile inputs: manifest, policy, run records and
instruction files. Whatever the input: no traceback (main() returning is the proof: bugs raise),
an exit code the command documents, and nothing written outside the chosen output directory.
Example counts stay modest so `make test` stays fast; a failure prints the shrunk input."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from instruction_gate.agents.codex.discovery import codex_chain

from instruction_gate.agents.claude.discovery import claude_sources
from instruction_gate.cli import main
from tests.conftest import GitRepo
from tests.runner.suite import build_suite_repo, manifest, task

#: IG_FUZZ_EXAMPLES=500 explores further with fresh random inputs; the default run is deterministic.
_EXAMPLES = int(os.environ.get("IG_FUZZ_EXAMPLES", "0"))
FUZZ = settings(max_examples=_EXAMPLES or 30, deadline=None, derandomize=not _EXAMPLES,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

#: Scalars a hostile document may hold: non-finite and huge numbers, control characters.
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2 ** 70), max_value=2 ** 70),
    st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([math.nan, math.inf, -math.inf, 1e308, -0.0]),
    st.text(max_size=12), st.sampled_from(["", "\n", "t1\n", "yes", "../x", "a" * 300, "\x00", "NaN"]))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)), max_leaves=12)


def _files(root: Path) -> set[Path]:
    return {p for p in root.rglob("*")}


def _dump(data) -> str:
    return json.dumps(data, allow_nan=True)  # NaN/Infinity literals on purpose


@pytest.fixture(scope="module")
def suite_repo(tmp_path_factory):
    repo = GitRepo(tmp_path_factory.mktemp("fuzz") / "repo")
    env = {"GIT_AUTHOR_NAME": "Fuzz", "GIT_AUTHOR_EMAIL": "f@example.invalid",
           "GIT_COMMITTER_NAME": "Fuzz", "GIT_COMMITTER_EMAIL": "f@example.invalid"}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        base, candidate = build_suite_repo(repo, [task("t1")])
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return repo, base, candidate


MANIFEST_KEYS = ["schema_version", "repeats", "instruction_paths", "hidden_paths", "defaults", "tasks", "rules"]
TASK_KEYS = ["id", "kind", "cwd", "prompt_file", "checks", "timeout_seconds", "max_tool_calls",
             "max_provider_cost_usd", "check_timeout_seconds", "turns", "forbidden_globs", "required_command_patterns"]


@FUZZ
@given(top=st.dictionaries(st.sampled_from(MANIFEST_KEYS), VALUES, max_size=3),
       fields=st.dictionaries(st.sampled_from(TASK_KEYS), VALUES, max_size=3), yaml_form=st.booleans())
def test_fuzz_manifest(suite_repo, tmp_path, capsys, top, fields, yaml_form):
    repo, base, candidate = suite_repo
    data = manifest([task("t1")])
    data["tasks"][0].update(fields)
    data.update(top)
    path = tmp_path / ("m.yaml" if yaml_form else "m.json")
    if yaml_form:
        import yaml
        try:
            path.write_text(yaml.safe_dump(data))
        except yaml.YAMLError:
            return
    else:
        path.write_text(_dump(data))
    before = _files(repo.path)
    code = main(["validate", "--repo", str(repo.path), "--manifest", str(path), "--base", base,
                 "--candidate", candidate])
    assert code in (0, 2), capsys.readouterr().err
    assert _files(repo.path) == before


POLICY_SECTIONS = ["hard", "soft", "statistics", "sequential", "budget", "lint"]


def _index(directory: Path, runs: list) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "index.json").write_text(_dump({"schema_version": 1, "tasks": ["t1", "t2"], "repeats": 2,
                                                 "runs": runs}))
    return directory / "index.json"


def _runs() -> list[dict]:
    return [{"task_id": t, "repeat": r, "variant": v, "valid": True, "resolved": (t, r, v) != ("t2", 1, "candidate"),
             "hard_failures": [], "input_tokens": 10, "output_tokens": 5, "provider_cost_usd": 0.01,
             "tool_calls": 3, "wall_seconds": 1.5}
            for t in ("t1", "t2") for r in range(2) for v in ("base", "candidate")]


def _compare(tmp_path: Path, runs: list, policy_text: str) -> tuple[int, set[Path], set[Path]]:
    inputs, out = tmp_path / "in", tmp_path / "out"
    _index(inputs, runs)
    (tmp_path / "policy.json").write_text(policy_text)
    before = _files(tmp_path)
    code = main(["compare", "--results", str(inputs), "--policy", str(tmp_path / "policy.json"),
                 "--summary", str(out / "summary.md")])
    return code, before, _files(tmp_path)


@FUZZ
@given(policy=st.dictionaries(st.sampled_from(POLICY_SECTIONS),
                              st.one_of(VALUES, st.dictionaries(st.sampled_from(
                                  ["confidence_level", "max_success_rate_drop", "minimum_valid_fraction", "seed",
                                   "draws", "min_reproductions", "max_agent_runs", "max_provider_usd",
                                   "max_arm_coverage_gap", "categories", "max_rounds"]), VALUES, max_size=3)),
                              max_size=3))
def test_fuzz_policy(tmp_path_factory, capsys, policy):
    tmp_path = tmp_path_factory.mktemp("policy")
    code, before, after = _compare(tmp_path, _runs(), _dump(policy))
    assert code in (0, 1, 2, 3), capsys.readouterr().err
    assert {p for p in after - before if not p.is_relative_to(tmp_path / "out")} == set()


RECORD_KEYS = ["task_id", "repeat", "variant", "valid", "resolved", "hard_failures", "input_tokens",
               "output_tokens", "provider_cost_usd", "tool_calls", "wall_seconds", "checks", "rules",
               "rule_metrics", "failure_class", "base_sha", "schema_version", "reused", "order"]


@FUZZ
@given(edits=st.lists(st.tuples(st.integers(0, 7), st.sampled_from(RECORD_KEYS), VALUES), max_size=3),
       drop=st.lists(st.integers(0, 7), max_size=2))
def test_fuzz_run_records(tmp_path_factory, capsys, edits, drop):
    tmp_path = tmp_path_factory.mktemp("records")
    runs = _runs()
    for position, key, value in edits:
        runs[position][key] = value
    runs = [r for i, r in enumerate(runs) if i not in drop]
    code, before, after = _compare(tmp_path, runs, "{}")
    assert code in (0, 1, 2, 3), capsys.readouterr().err
    assert {p for p in after - before if not p.is_relative_to(tmp_path / "out")} == set()


IMPORTS = st.sampled_from(["@x\x00y", "@../../etc/passwd", "@/dev/zero", "@CLAUDE.md", "@sub/CLAUDE.md", "@~/.x",
                           "@a\nb", "@" + "d/" * 40 + "x.md", "@.", "@"])
INSTRUCTION = st.one_of(
    st.binary(max_size=400),
    st.lists(st.one_of(IMPORTS, st.text(max_size=40), st.sampled_from(
        ["Always run `make test`.", "Never run `make test`.", "```", "<!-- x -->", "\u202e"])),
        max_size=12).map(lambda parts: "\n".join(parts).encode("utf-8", errors="surrogatepass")))


@FUZZ
@given(files=st.dictionaries(st.sampled_from(["AGENTS.md", "CLAUDE.md", "sub/CLAUDE.md", "sub/AGENTS.override.md",
                                              ".claude/CLAUDE.md", "CLAUDE.local.md"]), INSTRUCTION, min_size=1))
def test_fuzz_instruction_files(tmp_path_factory, capsys, files):
    root = tmp_path_factory.mktemp("instructions")
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    claude_sources(root, "sub", touched_paths=["sub/x.py"])
    codex_chain(root, "sub")
    before = _files(root)
    code = main(["lint", "--repo", str(root)])
    assert code in (0, 1), capsys.readouterr().err
    assert _files(root) == before
