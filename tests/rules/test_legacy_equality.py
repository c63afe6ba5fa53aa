"""The reference-format checks, now rule instances, give the same hard failures and evidence as before.

`previous_fields` is the derivation the gates used before the rule model, kept here as the
oracle. It is compared with `gates.hard_failures` on thousands of seeded random inputs and on
the runs the reference agent produces for the example suite.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import replace
from pathlib import Path

from instruction_gate.run import gates

from instruction_gate import globs
from instruction_gate.rules.completion import incomplete_reason
from instruction_gate.run.adapter import AdapterOutcome
from instruction_gate.suite.manifest import Task

FIELDS = ("forbidden_files", "missing_commands", "forbidden_commands", "missing_events", "missing_instruction_sources")


def previous_fields(task: Task, ev: gates.Evidence) -> dict[str, list[str]]:
    # Only commands that ran count for required patterns (a refused or not-found one never does),
    # and only when they completed (a crashed or killed one asked for work it never finished).
    codes = dict(enumerate(ev.exit_codes))
    ran = [(c, codes.get(i)) for i, c in enumerate(ev.commands) if i not in ev.not_run]
    return {
        "missing_commands": [p for p in task.required_command_patterns
                             if not any(re.search(p, c) and incomplete_reason(c, code, p) is None for c, code in ran)],
        "forbidden_commands": [p for p in task.forbidden_command_patterns if any(re.search(p, c) for c in ev.commands)],
        "forbidden_files": globs.filter_paths(ev.edited_files, task.forbidden_globs),
        "missing_events": sorted(set(task.required_events) - ev.event_names),
        "missing_instruction_sources": sorted(set(task.required_instruction_sources) - ev.instruction_sources),
    }


LEGACY_CATEGORIES = {"forbidden_file_edited": "forbidden_files", "required_command_missing": "missing_commands",
                     "forbidden_command_observed": "forbidden_commands",
                     "required_policy_event_missing": "missing_events",
                     "instruction_source_missing": "missing_instruction_sources"}


def previous_failures(fields: dict[str, list[str]]) -> list[str]:
    return [category for category, field in LEGACY_CATEGORIES.items() if fields[field]]


COMMANDS = ["pytest -q", "make test-payments", "npm test", "", "git push", "rake db:migrate", "ls", "python -m pytest tests"]
PATTERNS = ["pytest", r"^make\b", "npm test", "db:migrate", "^$", "terraform apply", r"git\s+push", "x*"]
PATHS = ["src/a.py", ".github/workflows/ci.yml", "infra/prod/main.tf", "src/billing/x.py", "docs/a.md", "migrations/1.sql"]
GLOBS = [".github/workflows/**", "infra/prod/**", "src/billing/**", "migrations/**", "**/*.md", "src/*.py"]
EVENTS = ["approval_requested", "policy_opened", "verification_run"]
SOURCES = ["AGENTS.md", "services/payments/AGENTS.override.md", "CLAUDE.md"]
#: Completed (None, 0, 1) and not completed for pytest (4, 5) or any command (137, -15).
EXIT_CODES = [None, 0, 1, 4, 5, 137, -15]


def random_case(rng: random.Random) -> tuple[Task, gates.Evidence]:
    def some(items: list[str], most: int = 3) -> list[str]:
        return [rng.choice(items) for _ in range(rng.randint(0, most))]  # duplicates on purpose

    task = Task(id="t", kind="k", cwd=".", prompt_files=("p.md",), checks=(), fixture_patch=None,
                reference_solution=None, required_command_patterns=tuple(some(PATTERNS)),
                forbidden_command_patterns=tuple(some(PATTERNS)), forbidden_globs=tuple(some(GLOBS)),
                required_events=tuple(some(EVENTS)), required_instruction_sources=tuple(some(SOURCES)),
                timeout_seconds=10, max_tool_calls=None, max_provider_cost_usd=None, check_timeout_seconds=10)
    commands = some(COMMANDS, 5)
    evidence = gates.Evidence(commands=commands, event_names=set(some(EVENTS)),
                              instruction_sources=set(some(SOURCES)), edited_files=some(PATHS, 4),
                              patch_applied=True, checks_passed=True,
                              exit_codes=tuple(rng.choice(EXIT_CODES) for _ in commands))
    return task, evidence


def test_same_fields_and_failures_on_random_inputs():
    rng = random.Random(20240601)
    completed = gates.Classification(None, None)
    differing = unfinished = 0
    for _ in range(3000):
        task, evidence = random_case(rng)
        expected = previous_fields(task, evidence)
        got = gates.hard_failures(task, completed, AdapterOutcome(), evidence)
        assert {f: got[f] for f in FIELDS} == expected
        assert got["hard_failures"] == previous_failures(expected)
        differing += bool(got["hard_failures"])
        unknown_codes = previous_fields(task, replace(evidence, exit_codes=()))
        unfinished += unknown_codes["missing_commands"] != expected["missing_commands"]
    assert differing > 500 and 3000 - differing > 50  # the inputs exercise both passing and failing runs
    assert unfinished > 50  # ... and required commands that ran but did not complete


def _events(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines() if line.strip()]


def test_same_hard_failures_on_the_example_suite(example_runs):
    """Every run of the example suite (reference agent, contradiction mutation) keeps its hard failures."""
    out, manifest, records = example_runs
    assert len(records) == 2 * len(manifest.tasks)
    for record in records:
        events = _events(out / record["task_id"] / f"repeat-{record['repeat']}" / record["variant"])
        outcome = AdapterOutcome(events=events, result=next(e for e in reversed(events) if e.get("type") == "result"))
        evidence = gates.evidence_from(outcome, record["edited_files"], True, True)
        expected = previous_fields(manifest.task(record["task_id"]), evidence)
        assert {f: record[f] for f in FIELDS} == expected, record["task_id"]
        rule_backed = set(record["hard_failures"]) & set(LEGACY_CATEGORIES)
        assert rule_backed == set(previous_failures(expected)), record["task_id"]
        # The same checks appear among the run's rules, judged the same way.
        violated = {r["id"] for r in record["rules"] if r["outcome"] == "violated"}
        assert {f"required_command:{p}" for p in expected["missing_commands"]} <= violated
    assert any(r["hard_failures"] for r in records)  # the mutation makes some run fail a gate
