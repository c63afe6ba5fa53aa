"""Secrets never reach the agent, the checks or the records; the broker token reaches the adapter only."""

from __future__ import annotations

import json

from tests.fixtures.runner_cli import evaluate, make_adapter, record
from tests.runner.suite import build_suite_repo, task

SECRETS = {"FOO_API_KEY": "sk-foo-secret-111111", "GITHUB_TOKEN": "ghp_githubsecret222222",
           "DB_PASSWORD": "dbpass-333333", "NPM_AUTH": "npmauth-444444",
           "AWS_SECRET_ACCESS_KEY": 'aws"quoted\\secret-555555', "USER_SESSION": "sessioncookie-666666",
           "SIGNING_PRIVATE_PHRASE": "pässwört-888888"}
BROKER = {"INSTRUCTION_EVAL_BROKER_TOKEN": "broker-token-777777"}
HARMLESS = {"HARMLESS_SETTING": "visible-value"}


def test_secrets_are_scrubbed_from_every_environment_and_record(git_repo, tmp_path):
    dump = tmp_path / "reports"  # the one directory outside its workspace the sandbox lets the adapter write
    dump.mkdir()
    # Checks run in a sandbox of their own that writes nowhere outside: they report on stdout.
    names = sorted({*SECRETS, *BROKER, *HARMLESS})
    check = ["python", "-c", "import json, os, sys; "
             f"print('SEEN', json.dumps({{k: os.environ[k] for k in {names!r} if k in os.environ}})); "
             "print(sorted(os.environ)); print(open('leak.txt').read()); sys.exit(0)"]
    base, candidate = build_suite_repo(git_repo, [task("t1", checks=[check])])
    values = list(SECRETS.values()) + list(BROKER.values())
    adapter = make_adapter(tmp_path, f"""
        dump = {str(dump)!r}
        piped = os.read(int(os.environ["INSTRUCTION_EVAL_BROKER_TOKEN_FD"]), 4096).decode()
        with open(os.path.join(dump, "adapter-" + request["variant"] + ".json"), "w") as handle:
            json.dump(dict(adapter=dict(os.environ), agent=request["agent_env"], piped=piped), handle)
        values = {values!r}
        print("stderr leak:", *values, os.environ.get("INSTRUCTION_EVAL_BROKER_TOKEN"), file=sys.stderr)
        print("stdout leak (malformed line):", *values)
        emit(type="message", text="event leak: " + " ".join(values))
        emit(type="tool", command="curl -H 'Authorization: " + values[1] + "'")
        open("leak.txt", "w").write("\\n".join(values) + "\\n")
    """)
    out = tmp_path / "out"
    result = evaluate(git_repo, base, candidate, out, adapter, env={**SECRETS, **BROKER, **HARMLESS})
    assert result.returncode == 0, result.stderr

    for variant in ("base", "candidate"):
        dumped = json.loads((dump / f"adapter-{variant}.json").read_text())
        for name in SECRETS:
            assert name not in dumped["adapter"] and name not in dumped["agent"], name
        # The broker token reaches the adapter through a pipe only, never an environment.
        assert dumped["piped"] == BROKER["INSTRUCTION_EVAL_BROKER_TOKEN"]
        assert "INSTRUCTION_EVAL_BROKER_TOKEN" not in dumped["adapter"]
        assert "INSTRUCTION_EVAL_BROKER_TOKEN" not in dumped["agent"]
        for env in (dumped["adapter"], dumped["agent"]):
            assert env["HARMLESS_SETTING"] == "visible-value" and env["GIT_AUTHOR_NAME"] == "Test Author"
    check_envs = [json.loads(record(out, "t1", 0, v)["checks"][0]["stdout_tail"].split("\n")[0][len("SEEN "):])
                  for v in ("base", "candidate")]
    for env in check_envs:
        assert not set(env) & (set(SECRETS) | set(BROKER))
        assert env["HARMLESS_SETTING"] == "visible-value"

    run = record(out, "t1", 0, "candidate")
    assert "[REDACTED]" in run["adapter_stderr_tail"] and "[REDACTED]" in run["checks"][0]["stdout_tail"]
    assert run["malformed_event_lines"] == 1
    files = [p for p in out.rglob("*") if p.is_file()]
    assert len(files) >= 7
    for path in files:
        data = path.read_bytes()
        for value in values:
            # Raw and JSON-escaped forms (a quote or backslash in a secret is escaped in run.json).
            for form in {value, json.dumps(value)[1:-1], json.dumps(value, ensure_ascii=False)[1:-1]}:
                assert form.encode() not in data, (path, value)


def test_a_token_in_the_candidates_instructions_reaches_no_record(git_repo, tmp_path):
    """The header's instruction hunks, the agent's events and its patch all repeat the candidate's
    AGENTS.md; a credential pasted there is redacted by shape, not only by variable value."""
    token, aws = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzR4ND0MKQ"
    base, _ = build_suite_repo(git_repo, [task("t1")])
    candidate = git_repo.commit({"AGENTS.md": f"Run `pytest`.\nSet GITHUB_TOKEN={token} and\n"
                                              f"AWS_SECRET_ACCESS_KEY={aws} first.\n"}, "candidate with a token")
    adapter = make_adapter(tmp_path, """
        text = open(os.path.join(request["workspace"], "AGENTS.md")).read()
        emit(type="message", text="I read:\\n" + text)
        open(os.path.join(request["workspace"], "notes.txt"), "w").write(text)
    """)
    out = tmp_path / "out"
    result = evaluate(git_repo, base, candidate, out, adapter)
    assert result.returncode == 0, result.stderr
    assert token not in result.stdout + result.stderr and aws not in result.stdout + result.stderr
    files = [p for p in out.rglob("*") if p.is_file()]
    assert {"index.json", "events.jsonl", "patch.diff", "run.json"} <= {p.name for p in files}
    for path in files:
        text = path.read_text()
        assert token not in text and aws not in text, path
    events = (out / "t1" / "repeat-0" / "candidate" / "events.jsonl").read_text()
    assert "GITHUB_TOKEN=[REDACTED]" in events and "AWS_SECRET_ACCESS_KEY=[REDACTED]" in events
    assert "GITHUB_TOKEN=[REDACTED]" in json.dumps(json.loads((out / "index.json").read_text()))
