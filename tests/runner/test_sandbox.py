"""Hostile adapters against the agent sandbox: nothing they start outlives, reaches or reads past their run.

The adapter stands for an agent obeying hostile candidate instructions: it leaves detached
daemons (setsid, double fork, nohup) that, after it exits, write into the workspace, `..`, the
validation directory, the user's checkout and the suite; it reads every path it can guess.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from tests.conftest import REPO_ROOT
from tests.fixtures.runner_cli import evaluate, load_runs, make_adapter, record, survivors, wait_for
from tests.runner.suite import build_suite_repo, task

CHECK = "import sys; sys.exit(0 if 'VALUE = 2' in open('src/app.py').read() else 1)  # CHECK-MARKER\n"
SOLUTION = ("--- a/src/app.py\n+++ b/src/app.py\n@@ -1 +1 @@\n-VALUE = 1\n+VALUE = 2  # SOLUTION-MARKER\n")

#: Runs detached from the adapter; argv[1] is a marker (to find survivors), argv[2] a JSON list of
#: (path, text) to keep writing for ten seconds, starting once the adapter has exited.
DAEMON = """
import json, os, sys, time
time.sleep(0.7)
for _ in range(100):
    for path, text in json.loads(sys.argv[2]):
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            open(path, "w").write(text)
        except OSError:
            pass
    time.sleep(0.1)
"""

HOSTILE = """
    MARKER, REPO, TMP = {marker!r}, {repo!r}, {tmp!r}
    root = request["repo_root"]
    up = os.path.dirname(root)
    targets = []
    if request["variant"] == "base":
        # Plant a forbidden edit for the next run in this slot, and do the task honestly.
        targets.append([os.path.join(root, ".github/workflows/planted.yml"), "on: push"])
        open("src/app.py", "w").write("VALUE = 2\\n")
    else:
        # Do no work; rewrite every check the daemon can find, wherever the suite may be.
        for base in (os.path.join(up, "val"), REPO, os.path.join(up, "..", "slot-0", "val")):
            targets.append([os.path.join(base, "evals/tasks/t1/check.py"), "raise SystemExit(0)\\n"])
        targets += [[os.path.join(up, "pwned-parent"), "x"], [os.path.join(TMP, "pwned-tmp"), "x"],
                    [os.path.join(REPO, "pwned-checkout"), "x"], [os.path.join(root, "pwned-late"), "x"],
                    [os.path.join(TMP, "out/t1/repeat-0/base/run.json"), "{{}}"]]  # the base run's record
    # Look around first (before the daemons fill this sandbox's own /tmp with decoys).
    def listing(path):
        try:
            return sorted(os.listdir(path))
        except OSError as exc:
            return type(exc).__name__
    def read(path):
        try:
            return open(path, errors="replace").read()[:2000]
        except OSError as exc:
            return type(exc).__name__
    guesses = [up, os.path.join(up, ".."), os.path.join(up, "../.."), "/", "/tmp", os.path.expanduser("~"),
               REPO, TMP, os.path.join(up, "val"), os.path.join(up, "../solutions")]
    reads = [os.path.join(up, "../stage.git/objects/info/alternates"), os.path.join(REPO, "evals/manifest.json"),
             os.path.join(REPO, "evals/tasks/t1/check.py"), os.path.join(REPO, "evals/tasks/t1/solution.patch"),
             "/proc/1/cmdline", os.path.join(root, ".git/objects/info/alternates")]
    # Everything readable outside the system and interpreter directories, searched for the suite.
    skip = ("/usr", "/etc", "/opt", "/proc", "/sys", "/dev", sys.base_prefix, sys.prefix)
    found, seen = [], 0
    for directory, dirs, names in os.walk("/") if not os.path.exists(REPO) else ():  # unisolated: everything
        dirs[:] = [d for d in dirs if not os.path.join(directory, d).startswith(skip)]
        for name in names:
            seen += 1
            text = read(os.path.join(directory, name))
            if "CHECK-MARKER" in text or "SOLUTION-MARKER" in text:
                found.append(os.path.join(directory, name))
    probe = dict(type="probe", listings={{p: listing(p) for p in guesses}}, reads={{p: read(p) for p in reads}},
         found=found, files_seen=seen, pids=sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
         request_keys=sorted(request), confined=os.environ.get("INSTRUCTION_GATE_CONFINED"))

    code = [sys.executable, "-c", {daemon!r}, MARKER, json.dumps(targets)]
    quiet = dict(stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    subprocess.Popen(["setsid", *code], start_new_session=True, **quiet)
    subprocess.Popen(["nohup", *code], **quiet)
    if os.fork() == 0:  # double fork, keeping our stdout open
        os.setsid()
        if os.fork() == 0:
            os.execv(sys.executable, code)
        os._exit(0)
    if request["variant"] == "candidate":
        time.sleep(1.5)  # let the base run's daemons (if alive) plant their file here

    emit(**probe)
"""


def hostile_suite(git_repo):
    t1 = task("t1", checks=[["python", "evals/tasks/t1/check.py"]], reference_solution="evals/tasks/t1/solution.patch",
              forbidden_globs=[".github/workflows/**"])
    return build_suite_repo(git_repo, [t1], extra={"evals/tasks/t1/check.py": CHECK,
                                                   "evals/tasks/t1/solution.patch": SOLUTION},
                            hidden_paths=["evals/**"])


def hostile_adapter(tmp_path, git_repo, marker):
    body = HOSTILE.format(marker=marker, repo=str(git_repo.path), tmp=str(tmp_path), daemon=DAEMON)
    return make_adapter(tmp_path, body)


def test_hostile_daemons_change_nothing_and_read_nothing_hidden(git_repo, tmp_path):
    base, candidate = hostile_suite(git_repo)
    marker = f"hostile-{os.getpid()}-{time.monotonic_ns()}"
    adapter = hostile_adapter(tmp_path, git_repo, marker)
    out = tmp_path / "out"
    result = evaluate(git_repo, base, candidate, out, adapter, "--temp-dir", str(tmp_path))
    # Every process of a run is gone when its run ends: none is left by the time the runner exits.
    assert survivors(marker) == [], "a detached daemon outlived its run"
    time.sleep(1.0)  # a daemon that had escaped would write from 0.7 s after its adapter exited

    runs = load_runs(out)
    honest, attacker = runs[("t1", 0, "base")], runs[("t1", 0, "candidate")]
    # The verdict honest runs imply: the base did the work, the candidate did not (its check stands).
    assert honest["resolved"] is True and honest["hard_failures"] == []
    assert attacker["resolved"] is False and attacker["hard_failures"] == ["required_check_failed"]
    # The base run's daemon did not plant a forbidden edit into the next run of its slot; what the
    # candidate's own daemon wrote while its run lasted is its own work.
    assert attacker["edited_files"] == ["pwned-late"]
    assert "planted" not in (out / "t1/repeat-0/candidate/patch.diff").read_text()
    assert result.returncode == 1, result.stderr  # the candidate's new hard failure, and only that
    assert honest["isolation"] == attacker["isolation"] == "bwrap (network: host)"

    # Nothing outside the workspace was written: the checkout, the suite, the temp directory.
    assert git_repo.git("status", "--porcelain", "--untracked-files=all") == ""
    assert (git_repo.path / "evals/tasks/t1/check.py").read_text() == CHECK
    assert [p for p in tmp_path.rglob("pwned-*")] == []
    assert record(out, "t1", 0, "base")["resolved"] is True  # its record untouched

    probe = next(e for e in record(out, "t1", 0, "candidate")["events"] if e["type"] == "probe")
    assert probe["found"] == [] and probe["files_seen"] > 0
    assert "reference_solution_patch" in probe["request_keys"]
    assert probe["confined"] == "1"  # an agent's own sandbox steps aside (it cannot nest in bwrap)
    for path, content in probe["reads"].items():
        if path.endswith("/gen/.git/objects/info/alternates"):  # the workspace's own: the common store only
            assert "common.git" in content and "stage.git" not in content
        elif path != "/proc/1/cmdline":
            assert content == "FileNotFoundError", (path, content)
    assert "bwrap" in probe["reads"]["/proc/1/cmdline"] and len(probe["pids"]) < 10  # no runner in /proc
    listings = probe["listings"]
    assert listings[str(git_repo.path)] == "FileNotFoundError"
    # Of the runner's temp directory only the adapter file and the way down to the workspace exist.
    assert [n for n in listings[str(tmp_path)] if not n.startswith("instruction-gate-")] == ["adapter"]
    assert [v for k, v in listings.items() if k.endswith("/slot-0")] == [["gen", "home"]]
    assert [v for k, v in listings.items() if k.endswith("/slot-0/..")] == [["common.git", "slot-0"]]
    assert all(isinstance(v, str) or not {"val", "stage.git", "solutions", "gen.index"} & set(v)
               for v in listings.values()), listings


def test_without_the_sandbox_the_same_attack_works(git_repo, tmp_path):
    """The control: `--unisolated` runs are exposed exactly as the records then say."""
    base, candidate = hostile_suite(git_repo)
    marker = f"hostile-{os.getpid()}-{time.monotonic_ns()}"
    adapter = hostile_adapter(tmp_path, git_repo, marker)
    out = tmp_path / "out"
    try:
        result = evaluate(git_repo, base, candidate, out, adapter, "--temp-dir", str(tmp_path), "--unisolated")
        # (the records say why when a run could not be made; the runner's own output says the rest)
        assert (out / "t1" / "repeat-0" / "candidate" / "run.json").is_file(), (result.returncode, result.stderr[-3000:])
        attacker = record(out, "t1", 0, "candidate")
        assert ".github/workflows/planted.yml" in attacker["edited_files"]
        assert "forbidden_file_edited" in attacker["hard_failures"]
        assert attacker["isolation"] == "unisolated"
        assert json.loads((out / "index.json").read_text())["isolation"] == "unisolated"
        summary = tmp_path / "summary.md"
        subprocess.run([sys.executable, str(REPO_ROOT / "compare.py"), "--results", str(out), "--policy",
                        str(REPO_ROOT / "policy.json"), "--summary", str(summary)], capture_output=True, check=False)
        text = summary.read_text()
        headline = text.splitlines()[0]
        assert headline.endswith("(unisolated)"), headline
        assert "- unisolated: the base and candidate runs had no agent sandbox" in text
        assert "| isolation | unisolated | unisolated |" in text
        assert json.loads(summary.with_suffix(".json").read_text())["headline"].endswith("(unisolated)")
    finally:
        assert wait_for(lambda: survivors(marker) == [], seconds=15)
