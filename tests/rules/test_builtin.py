"""Every built-in rule kind reaches satisfied, violated and inapplicable on hand-written runs."""

from __future__ import annotations

import pytest

from instruction_gate.rules import builtin
from instruction_gate.rules.bundle import RunBundle
from instruction_gate.rules.model import evaluate


def tool(command: str, **extra) -> dict:
    return {"type": "tool", "command": command, **extra}


def edit(path: str, change: str = "modify") -> dict:
    return {"type": "file_change", "path": path, "change": change}


def event(name: str) -> dict:
    return {"type": "policy", "name": name}


#: kind -> (parameters, {expected outcome: authored run})
CASES = {
    "command_required": ({"pattern": r"\bpytest\b", "when_edited": ["src/**"]}, {
        "satisfied": {"events": [edit("src/a.py"), tool("pytest -q")]},
        "violated": {"events": [edit("src/a.py"), tool("python -m unittest")]},
        "inapplicable": {"events": [edit("docs/a.md"), tool("ls")]},
    }),
    "command_forbidden": ({"pattern": r"git push"}, {
        "satisfied": {"events": [tool("git status"), tool("pytest")]},
        "violated": {"events": [tool("git status"), tool("git push origin main")]},
        "inapplicable": {"events": [edit("a.py")]},
    }),
    "command_order": ({"command": r"pytest", "require_success": True}, {
        "satisfied": {"events": [tool("pytest", exit_code=1), edit("a.py"), tool("pytest -q", exit_code=0)]},
        "violated": {"events": [tool("pytest", exit_code=0), edit("a.py"), tool("ls", exit_code=0)]},
        "inapplicable": {"events": [tool("pytest", exit_code=0)]},
    }),
    "read_before_edit": ({"globs": ["src/**"]}, {
        "satisfied": {"events": [tool("cat src/a.py"), edit("src/a.py")]},
        "violated": {"events": [edit("src/a.py"), tool("cat src/a.py")]},
        "inapplicable": {"events": [edit("src/new.py", "add"), edit("docs/x.md")]},
    }),
    "approval_before": ({"command": r"db:migrate", "paths": ["migrations/**"]}, {
        "satisfied": {"events": [event("approval_requested"), tool("rake db:migrate"), edit("migrations/1.sql")]},
        "violated": {"events": [tool("rake db:migrate"), event("approval_requested")]},
        "inapplicable": {"events": [tool("pytest"), edit("src/a.py")]},
    }),
    "event_required": ({"event": "verification_run", "when_edited": ["src/**"]}, {
        "satisfied": {"events": [edit("src/a.py"), event("verification_run")]},
        "violated": {"events": [edit("src/a.py"), event("policy_opened")]},
        "inapplicable": {"events": [event("verification_run")]},
    }),
    "instruction_source_required": ({"path": "services/AGENTS.override.md", "when_edited": ["services/**"]}, {
        "satisfied": {"instruction_sources": ["AGENTS.md", "services/AGENTS.override.md"], "events": [edit("services/a.py")]},
        "violated": {"instruction_sources": ["AGENTS.md"], "events": [edit("services/a.py")]},
        "inapplicable": {"instruction_sources": ["AGENTS.md"], "events": [edit("docs/a.md")]},
    }),
    "paths_forbidden": ({"globs": [".github/workflows/**"]}, {
        "satisfied": {"events": [edit("src/a.py")]},
        "violated": {"events": [edit("src/a.py"), edit(".github/workflows/ci.yml")]},
        "inapplicable": {"events": [tool("pytest")]},
    }),
    "paths_required": ({"globs": ["changes/*.md"], "when_edited": ["src/**"]}, {
        "satisfied": {"events": [edit("src/a.py"), edit("changes/1.md", "add")]},
        "violated": {"events": [edit("src/a.py")]},
        "inapplicable": {"events": [edit("docs/a.md")]},
    }),
    "diff_size": ({"max_files": 2, "max_changed_lines": 10}, {
        "satisfied": {"edited_files": ["a.py"], "additions": 3, "deletions": 2},
        "violated": {"edited_files": ["a.py"], "additions": 9, "deletions": 2},
        "inapplicable": {"edited_files": [], "additions": 0, "deletions": 0},
    }),
    "commit_message": ({"pattern": r"^[A-Z][^\n]*[^.]$", "max_subject_length": 50}, {
        "satisfied": {"commits": ["Fix rounding of tax totals\n\nLonger body."]},
        "violated": {"commits": ["Fix rounding", "fixed stuff."]},
        "inapplicable": {"commits": []},
    }),
    "file_encoding": ({"encoding": "utf-8", "globs": ["**/*.py"]}, {
        "satisfied": {"created": {"src/new.py": "print('héllo')\n"}},
        "violated": {"created": {"src/new.py": b"print('h\xe9llo')\n"}},
        "inapplicable": {"created": {"notes.txt": b"\xff\xfe"}},
    }),
    "line_endings": ({"style": "lf"}, {
        "satisfied": {"created": {"a.txt": "one\ntwo\n"}},
        "violated": {"created": {"a.txt": "one\r\ntwo\r\n"}},
        "inapplicable": {"created": {"image.bin": b"\0\r\n"}},
    }),
    "keyword_present": ({"keywords": ["SPDX-License-Identifier"], "globs": ["**/*.py"]}, {
        "satisfied": {"created": {"src/new.py": "# SPDX-License-Identifier: MIT\n"}},
        "violated": {"created": {"src/new.py": "x = 1\n", "src/ok.py": "# SPDX-License-Identifier: MIT\n"}},
        "inapplicable": {"created": {"README.md": "text"}},
    }),
    "keyword_absent": ({"pattern": r"TODO|FIXME", "ignore_case": True}, {
        "satisfied": {"created": {"a.py": "x = 1\n"}},
        "violated": {"created": {"a.py": "# todo: later\n"}},
        "inapplicable": {"created": {}},
    }),
}


def outcome(kind: str, params: dict, case: dict) -> tuple[str, tuple[str, ...]]:
    decl = {"id": "r", "kind": kind, **params}
    if "turn" in case:
        decl["turn"] = case["turn"]
    assert builtin.declaration_problems(decl, "$.rules[0]", case.get("turns", 1)) == []
    [rule] = builtin.build(decl, case.get("turns", 1))
    result = evaluate(rule, RunBundle.from_case(case))
    return result.outcome.value, result.evidence


def test_every_kind_has_cases():
    assert set(CASES) == set(builtin.KINDS)


@pytest.mark.parametrize("kind,expected", [(k, e) for k in CASES for e in ("satisfied", "violated", "inapplicable")])
def test_kind_reaches_outcome(kind, expected):
    params, cases = CASES[kind]
    got, evidence = outcome(kind, params, cases[expected])
    assert got == expected, evidence
    assert bool(evidence) == (expected == "violated")


def test_violation_evidence_names_the_targets():
    params, cases = CASES["commit_message"]
    _, evidence = outcome("commit_message", params, cases["violated"])
    assert len(evidence) == 1 and "fixed stuff." in evidence[0]
    params, cases = CASES["paths_forbidden"]
    _, evidence = outcome("paths_forbidden", params, cases["violated"])
    assert evidence == (".github/workflows/ci.yml: forbidden path",)


@pytest.mark.parametrize("kind,params,case", [
    ("command_order", {"command": "pytest", "require_success": True}, {"events": [edit("a.py"), tool("pytest")]}),
    ("command_order", {"command": "pytest"}, {"edited_files": ["a.py"]}),  # edits but no file_change events
    ("commit_message", {"max_subject_length": 50}, {}),  # commits unreadable
    ("file_encoding", {}, {"created": {"big.bin": None}}),  # too large to read
    ("keyword_present", {"keywords": ["Done"], "scope": "final_message"}, {}),  # no final message
    ("command_required", {"pattern": "x"}, {"turns": 2, "turn": 1, "events": [tool("x")]}),  # no turn markers
])
def test_missing_evidence_is_undetermined_never_violated(kind, params, case):
    got, evidence = outcome(kind, params, case)
    assert got == "undetermined"
    assert evidence and "missing evidence" in evidence[0]


def test_read_tools_and_cwd_relative_reads_count():
    params = {}
    case = {"events": [tool("Read a.py", tool="Read"), {"type": "tool", "tool": "read_file", "path": "pkg/b.py"},
                       edit("src/a.py"), edit("pkg/b.py")]}
    assert outcome("read_before_edit", params, case)[0] == "satisfied"


def test_keyword_in_final_message():
    params = {"keywords": ["Summary:"], "scope": "final_message"}
    assert outcome("keyword_present", params, {"events": [{"type": "result", "status": "completed",
                                                            "final_message": "Summary: fixed"}]})[0] == "satisfied"
    assert outcome("keyword_present", params, {"final_message": "fixed"})[0] == "violated"


@pytest.mark.parametrize("decl,message", [
    ({"kind": "command_required"}, "needs 'pattern'"),
    ({"kind": "command_forbidden", "pattern": "("}, "invalid regex"),
    ({"kind": "diff_size"}, "needs one of max_files"),
    ({"kind": "file_encoding", "encoding": "no-such-codec"}, "unknown encoding"),
    ({"kind": "line_endings", "pattern": "x"}, "not a parameter of kind 'line_endings'"),
    ({"kind": "command_forbidden", "pattern": "x", "category": "vibes"}, "unknown category 'vibes'"),
    ({"kind": "command_forbidden", "pattern": "x", "turn": 3}, "turn 3 does not exist"),
])
def test_declaration_problems(decl, message):
    problems = builtin.declaration_problems({"id": "r", **decl}, "$.tasks[0].rules[0]", 2)
    assert any(message in p for p in problems), problems
    assert all(p.startswith("$.tasks[0].rules[0]") for p in problems)
