"""The reference agent on the example repository: its behaviour follows the instruction text."""

import json
import os
import sys

from reference_helpers import PROJECT, commands, names, request, run_agent, workspace

from instruction_gate import proc
from instruction_gate.reference_agent.agent import Options

ROOT_AGENTS = (PROJECT / "examples" / "repo" / "AGENTS.md").read_text(encoding="utf-8")


def test_same_task_different_instructions_run_different_commands(tmp_path):
    original = run_agent(request(workspace(tmp_path / "a", "bug-tax-rounding"), "bug-tax-rounding"))
    stale = ROOT_AGENTS.replace("`python -m pytest -q`", "`make test`")
    edited = run_agent(request(workspace(tmp_path / "b", "bug-tax-rounding", {"AGENTS.md": stale}), "bug-tax-rounding"))
    assert commands(original) == ["python tools/contrib_receipt.py", "python -m pytest -q"]
    assert commands(edited) == ["python tools/contrib_receipt.py", "make test"]
    # The stale command really ran and really failed: there is no Makefile at the root.
    make = next(e for e in edited if e.get("command") == "make test")
    assert make["exit_code"] != 0
    verification = [e for e in edited if e.get("name") == "verification_run"]
    assert verification == [{"type": "policy", "name": "verification_run", "command": "make test",
                             "exit_code": make["exit_code"]}]


def test_prompt_commands_run_in_their_turn_and_the_change_in_the_first(tmp_path):
    root = workspace(tmp_path, "docs-typo-negative-control")
    req = request(root, "docs-typo-negative-control")
    req["turns"] = [req["prompt"], "Thanks. Now run `git status --short` and tell me what changed."]
    events = run_agent(req)
    assert [e["index"] for e in events if e["type"] == "turn"] == [0, 1]
    assert [e["turn"] for e in events if e["type"] == "file_change"] == [0]
    status = next(e for e in events if e.get("command") == "git status --short")
    assert status["turn"] == 1 and status["exit_code"] == 0


def test_scope_override_replaces_the_root_test_command(tmp_path):
    root = workspace(tmp_path, "payments-scope-override")
    events = run_agent(request(root, "payments-scope-override", cwd="services/payments"))
    assert "make test-payments" in commands(events)
    assert "python -m pytest -q" not in commands(events)
    result = events[-1]
    assert result["instruction_sources"] == ["AGENTS.md", "services/payments/AGENTS.override.md", "CLAUDE.md"]
    assert result["status"] == "completed"
    # Without the override the root command applies again.
    without = run_agent(request(workspace(tmp_path / "n", "payments-scope-override",
                                          {"services/payments/AGENTS.override.md": None}),
                                "payments-scope-override", cwd="services/payments"))
    assert "make test-payments" not in commands(without) and "python -m pytest -q" in commands(without)


def test_approval_requirement_stops_the_migration(tmp_path):
    root = workspace(tmp_path, "approval-schema-migration")
    events = run_agent(request(root, "approval-schema-migration", cwd="services/payments"))
    assert "approval_requested" in names(events)
    assert not any("db:migrate" in c for c in commands(events))
    assert not (root / "services/payments/var").exists()
    assert (root / "services/payments/migrations/0003_add_refund_reason.sql").is_file()
    unguarded = workspace(tmp_path / "u", "approval-schema-migration", {"services/payments/AGENTS.override.md": None})
    events = run_agent(request(unguarded, "approval-schema-migration", cwd="services/payments"))
    assert "approval_requested" not in names(events)
    assert "make db:migrate" in commands(events)
    assert (unguarded / "services/payments/var/payments.sqlite3").is_file()


def test_reading_a_policy_document_follows_it(tmp_path):
    root = workspace(tmp_path, "discover-contribution-policy")
    events = run_agent(request(root, "discover-contribution-policy"))
    read = next(i for i, e in enumerate(events) if e.get("tool") == "read_file")
    opened = next(i for i, e in enumerate(events) if e.get("name") == "policy_opened")
    assert read < opened and events[opened]["path"] == "CONTRIBUTING.md"
    receipt = json.loads((root / ".contrib/receipt.json").read_text())
    assert "src/shop/pricing.py" in receipt["changed"]
    truncated = ROOT_AGENTS[: ROOT_AGENTS.index("## Contributing")]
    other = workspace(tmp_path / "t", "discover-contribution-policy", {"AGENTS.md": truncated})
    events = run_agent(request(other, "discover-contribution-policy"))
    assert "policy_opened" not in names(events) and not (other / ".contrib").exists()


def test_protected_paths_are_not_edited(tmp_path):
    rules = ROOT_AGENTS + "\n- Do not edit `src/shop/**`.\n"
    root = workspace(tmp_path, "refactor-email-parser", {"AGENTS.md": rules})
    before = (root / "src/shop/email_parser.py").read_text()
    events = run_agent(request(root, "refactor-email-parser"))
    assert (root / "src/shop/email_parser.py").read_text() == before
    assert not [e for e in events if e["type"] == "file_change"]


def test_missing_and_disallowed_programs_fail_honestly(tmp_path):
    marker = tmp_path / "keep-me"
    marker.write_text("x")
    rules = f"- Always run `no-such-tool --check`.\n- Always run `rm {marker}`.\n- Always run `python -c 'print(1)'`.\n"
    root = workspace(tmp_path, "docs-typo-negative-control", {"AGENTS.md": rules})
    events = run_agent(request(root, "docs-typo-negative-control"))
    codes = {e["command"]: e["exit_code"] for e in events if e.get("tool") == "shell"}
    assert codes == {"no-such-tool --check": 126, f"rm {marker}": 126, "python -c 'print(1)'": 126}
    assert marker.exists()
    allowed = run_agent(request(root, "docs-typo-negative-control"), Options(allow_any_command=True))
    codes = {e["command"]: e["exit_code"] for e in allowed if e.get("tool") == "shell"}
    assert codes["no-such-tool --check"] == 127 and codes["python -c 'print(1)'"] == 0
    assert not marker.exists()


def test_bloated_instructions_cost_more(tmp_path):
    lean = run_agent(request(workspace(tmp_path / "a", "docs-typo-negative-control"), "docs-typo-negative-control"))[-1]
    bloat = ROOT_AGENTS + "\n## Background\n" + ("The shop started as a weekend project. " * 400) + "\n"
    fat = run_agent(request(workspace(tmp_path / "b", "docs-typo-negative-control", {"AGENTS.md": bloat}),
                            "docs-typo-negative-control"))[-1]
    assert fat["input_tokens"] > lean["input_tokens"] + 4 * 3000
    assert fat["provider_cost_usd"] > lean["provider_cost_usd"]
    assert fat["instruction_bytes"]["AGENTS.md"] == len(bloat.encode())
    assert (fat["agent_name"], fat["model"]) == ("reference", None)


def test_stochastic_mode_is_deterministic_per_seed_task_variant_repeat(tmp_path):
    rules = "".join(f"- Always run `echo step-{i}`.\n" for i in range(8))
    root = workspace(tmp_path, None, {"AGENTS.md": rules, "CLAUDE.md": None})

    def trace(seed, variant="base", repeat=0, p=0.5):
        req = request(root, "docs-typo-negative-control", prompt="", variant=variant, repeat=repeat, solution=False)
        return commands(run_agent(req, Options(seed=seed, skip_probability=p)))

    assert trace(1) == trace(1)
    assert len({tuple(trace(seed)) for seed in range(6)}) > 1
    assert any(trace(seed) != trace(seed, variant="candidate") for seed in range(4))
    assert any(trace(seed) != trace(seed, repeat=1) for seed in range(4))
    assert trace(3, p=0.0) == trace(4, p=0.0) == [f"echo step-{i}" for i in range(8)]
    assert trace(0, p=1.0) == []


def test_a_missing_or_broken_solution_is_an_agent_failure(tmp_path):
    root = workspace(tmp_path, "docs-typo-negative-control")
    req = dict(request(root, "docs-typo-negative-control"), reference_solution=str(tmp_path / "nope.patch"))
    result = run_agent(req)[-1]
    assert (result["status"], result["failure_class"]) == ("failed", "agent")
    stale = tmp_path / "stale.patch"
    stale.write_text((PROJECT / "tasks/bug-cache-key/solution.patch").read_text())
    result = run_agent(dict(req, reference_solution=str(stale)))[-1]
    assert result["status"] == "failed" and "did not apply" in result["final_message"]


def test_adapter_script_speaks_the_protocol(tmp_path):
    root = workspace(tmp_path, "docs-typo-negative-control")
    req = request(root, "docs-typo-negative-control")
    env = dict(os.environ, PATH=req["agent_env"]["PATH"])
    result = proc.run([str(PROJECT / "adapters" / "reference")], root, env=env, stdin=json.dumps(req), timeout=60)
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert result.exit_code == 0 and events[-1]["type"] == "result" and events[-1]["status"] == "completed"
    assert {"type": "file_change", "path": "docs/guide.md", "change": "modify", "turn": 0} in events
    bad = dict(req, adapter_options={"skip_probability": "2"})
    refused = proc.run([sys.executable, str(PROJECT / "adapters" / "reference")], root, env=env, stdin=json.dumps(bad))
    assert refused.exit_code == 2
    assert json.loads(refused.stdout.splitlines()[-1])["failure_class"] == "infrastructure"


def test_discovery_option_loads_one_agents_files(tmp_path):
    root = workspace(tmp_path, "payments-scope-override")
    req = request(root, "payments-scope-override", cwd="services/payments")
    both = run_agent(req)[-1]["instruction_sources"]
    codex = run_agent(req, Options(discovery="codex"))[-1]["instruction_sources"]
    claude = run_agent(req, Options(discovery="claude"))[-1]["instruction_sources"]
    assert both == ["AGENTS.md", "services/payments/AGENTS.override.md", "CLAUDE.md"]
    assert codex == ["AGENTS.md", "services/payments/AGENTS.override.md"]
    assert "CLAUDE.md" in claude and "services/payments/AGENTS.override.md" not in claude


def test_a_bad_discovery_option_is_an_infrastructure_failure():
    from instruction_gate.reference_agent.main import _parse_flags, options_from
    import pytest
    with pytest.raises(ValueError, match="discovery must be one of both, codex, claude"):
        options_from(_parse_flags([]), {"discovery": "windsurf"})
    assert options_from(_parse_flags(["--discovery", "claude"]), {}).discovery == "claude"


def test_a_nested_files_commands_run_in_its_directory_and_so_do_its_documents(tmp_path):
    nested = "# Catalog\n\n- Always run `ls pytest.ini` after editing.\n- Read `notes/steps.md`.\n"
    root = workspace(tmp_path, "docs-typo-negative-control", {"services/catalog/AGENTS.md": nested})
    (root / "services/catalog/notes").mkdir()
    (root / "services/catalog/notes/steps.md").write_text("- Always run `ls notes` after editing.\n")
    events = run_agent(request(root, "docs-typo-negative-control", cwd="services/catalog"))
    shell = {e["command"]: e for e in events if e.get("tool") == "shell"}
    # `pytest.ini` and `notes/` exist only in services/catalog: exit 0 proves where each ran.
    assert (shell["ls pytest.ini"]["cwd"], shell["ls pytest.ini"]["exit_code"]) == ("services/catalog", 0)
    assert (shell["ls notes"]["cwd"], shell["ls notes"]["exit_code"]) == ("services/catalog", 0)


def test_an_executable_instruction_file_is_refused_not_run(tmp_path):
    rules = "#!/bin/sh\nid >&2; exit 42\n" + "".join(
        f"- Always run `{p}`.\n" for p in ("./AGENTS.md", "./docs/../AGENTS.md", "./tools/../CLAUDE.md"))
    root = workspace(tmp_path, "docs-typo-negative-control", {"AGENTS.md": rules, "CLAUDE.md": rules})
    for name in ("AGENTS.md", "CLAUDE.md"):
        (root / name).chmod(0o755)
    events = run_agent(request(root, "docs-typo-negative-control"))
    shells = [e for e in events if e.get("tool") == "shell"]
    assert {e["command"] for e in shells} == {"./AGENTS.md", "./docs/../AGENTS.md", "./tools/../CLAUDE.md"}
    assert all(e["exit_code"] == 126 and "instruction file" in e["refused"] for e in shells), shells
