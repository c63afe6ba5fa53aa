"""A stand-in for the `codex` and `claude` CLIs, copied by the tests into a PATH directory.

It behaves like the real CLI would on the outside: it checks the flags it is called with,
prints a recorded transcript on stdout and exits. What to do comes from its environment
(which is the adapter request's `agent_env`), so the tests also prove which environment the
agent received:
  STANDIN_LOG         directory: each call appends {argv, stdin, cwd, env} to calls.jsonl
  STANDIN_TRANSCRIPTS comma-separated transcript files, one per call (turn)
  STANDIN_MODE        ok | exit3 | hang | garbage | broker | memprobe
In `broker` mode it first calls the provider at $OPENAI_BASE_URL with $OPENAI_API_KEY, then
writes everything it could read (environment, argv, files in its workspace and home, its
ancestors' /proc environ and cmdline, the provider's answer) to STANDIN_LOG/dump.json. In
`memprobe` mode a child it starts tries to read each ancestor's memory through /proc/<pid>/mem
and writes what it got to STANDIN_LOG/mem.json (`broker` mode does that too).
"""

import json
import os
import sys
import time
import urllib.request
from pathlib import Path

NAME = Path(sys.argv[0]).name
ARGS = sys.argv[1:]


def fail(message):
    print(f"{NAME} stand-in: {message}", file=sys.stderr)
    sys.exit(64)


def check_codex(call_index):
    if ARGS[:1] != ["exec"] or "--json" not in ARGS or "--" not in ARGS:
        fail(f"expected `exec --json ... -- PROMPT`, got {ARGS}")
    positionals = ARGS[ARGS.index("--") + 1:]
    if call_index == 0:
        if ARGS[1] == "resume" or ARGS[ARGS.index("--sandbox") + 1] != "workspace-write":
            fail("first turn must be a fresh workspace-write exec")
        if len(positionals) != 1:
            fail(f"expected one prompt, got {positionals}")
    elif ARGS[1] != "resume" or len(positionals) != 2 or positionals[0] != os.environ["STANDIN_SESSION"]:
        fail(f"later turns must resume session {os.environ.get('STANDIN_SESSION')}, got {ARGS}")
    return positionals[-1]


def check_claude(call_index, stdin):
    for flag, value in (("--output-format", "stream-json"), ("--permission-mode", "acceptEdits")):
        if flag not in ARGS or ARGS[ARGS.index(flag) + 1] != value:
            fail(f"expected {flag} {value}, got {ARGS}")
    if "-p" not in ARGS or "--verbose" not in ARGS:
        fail("expected -p and --verbose")
    if ARGS[-2] != "--allowedTools":
        fail("--allowedTools must come last")
    resumed = "--resume" in ARGS and ARGS[ARGS.index("--resume") + 1] == os.environ.get("STANDIN_SESSION")
    if (call_index > 0) != resumed:
        fail(f"turn {call_index} resume flags wrong: {ARGS}")
    if not stdin.strip():
        fail("expected the prompt on stdin")
    return stdin


def readable_files(root):
    found = {}
    for directory, _, names in os.walk(root):
        for name in names:
            path = os.path.join(directory, name)
            try:
                with open(path, "rb") as handle:
                    found[path] = handle.read().decode("utf-8", errors="replace")
            except OSError:
                pass
    return found


def ancestors():
    """environ and cmdline of every ancestor process this user may read."""
    seen, pid = {}, os.getppid()
    while pid > 1:
        entry = {}
        for part in ("environ", "cmdline"):
            try:
                entry[part] = Path(f"/proc/{pid}/{part}").read_bytes().decode("utf-8", errors="replace")
            except OSError:
                entry[part] = None
        seen[pid] = entry
        pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    return seen


MEM_PROBE = """
import json, sys
from pathlib import Path
found, pid = [], int(Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[1])
while pid > 1:
    cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").replace("\\0", " ")
    try:
        start = int(Path(f"/proc/{pid}/maps").read_text().split("-", 1)[0], 16)
        with open(f"/proc/{pid}/mem", "rb") as mem:
            mem.seek(start)
            outcome = "read %d bytes" % len(mem.read(16))
    except OSError as exc:
        outcome = type(exc).__name__
    found.append({"pid": pid, "cmdline": cmdline, "mem": outcome})
    pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
json.dump(found, open(sys.argv[1], "w"))
"""


def probe_memory(log):
    import subprocess
    subprocess.run([sys.executable, "-c", MEM_PROBE, str(log / "mem.json")], check=True)


def call_provider_and_dump(log):
    request = urllib.request.Request(
        os.environ["OPENAI_BASE_URL"] + "/responses", data=b'{"model":"m","input":"hi","stream":true}',
        headers={"Authorization": "Bearer " + os.environ["OPENAI_API_KEY"], "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        answer = {"status": response.status, "headers": dict(response.headers), "body": response.read().decode()}
    dump = {"env": dict(os.environ), "argv": sys.argv, "answer": answer, "ancestors": ancestors(),
            "files": {**readable_files(os.getcwd()), **readable_files(os.environ["HOME"])}}
    (log / "dump.json").write_text(json.dumps(dump))


def main():
    if ARGS == ["--version"]:
        print("codex-cli 0.46.0" if NAME == "codex" else "2.0.14 (Claude Code)")
        return 0
    log = Path(os.environ["STANDIN_LOG"])
    calls = log / "calls.jsonl"
    call_index = len(calls.read_text().splitlines()) if calls.exists() else 0
    stdin = "" if NAME == "codex" else sys.stdin.read()
    with calls.open("a") as handle:
        handle.write(json.dumps({"argv": sys.argv, "stdin": stdin, "cwd": os.getcwd(), "pid": os.getpid(), "ppid": os.getppid(),
                                 "env": dict(os.environ)}) + "\n")
    prompt = check_codex(call_index) if NAME == "codex" else check_claude(call_index, stdin)
    mode = os.environ.get("STANDIN_MODE", "ok")
    if mode == "garbage":
        print("Welcome to the agent!\n\x1b[32mthinking...\x1b[0m\n{not json")
        return 0
    if mode == "hang":
        print(json.dumps({"type": "thread.started", "thread_id": "hang"}), flush=True)
        time.sleep(600)
    if mode == "broker":
        call_provider_and_dump(log)
    if mode in ("broker", "memprobe"):
        probe_memory(log)
    transcripts = os.environ["STANDIN_TRANSCRIPTS"].split(",")
    text = Path(transcripts[call_index]).read_text().replace("/REPO", os.environ["STANDIN_REPO"])
    sys.stdout.write(text.replace("PROMPT_ECHO", prompt.strip()))
    sys.stdout.flush()
    return 3 if mode == "exit3" else 0


sys.exit(main())
