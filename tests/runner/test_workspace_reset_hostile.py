"""A hostile agent against the workspace reset: what one run leaves never reaches the next run of
its slot, never makes the harness write or read outside, and never ends the evaluation.

Every run of one slot (`--jobs 1`, 2 repeats: four runs) first reports what it found, then
attacks; each later run must find the exact starting tree. Under `--unisolated` (control) the
same protections hold: they are the reset's, not the sandbox's.
"""

from __future__ import annotations

import json
import textwrap

import pytest

from instruction_gate.run.limits import OutputLimits
from tests.fixtures.runner_cli import evaluate, make_adapter, records
from tests.runner.suite import build_suite_repo, task

PROBE = """
    import shutil, socket, stat
    OUTSIDE = {outside!r}
    root = request["repo_root"]
    os.chdir(root)
    def head():
        try:
            return open(".git/HEAD").read()
        except OSError as exc:
            return type(exc).__name__
    emit(type="probe", git_is_dir=os.path.isdir(".git") and not os.path.islink(".git"), head=head(),
         src_is_dir=os.path.isdir("src") and not os.path.islink("src"),
         app=open("src/app.py").read() if os.path.isfile("src/app.py") else None,
         leftovers=sorted(n for n in os.listdir(".") + os.listdir("src") if n.startswith("left-")))
"""

ATTACKS = {
    "git-link-outside": 'shutil.rmtree(".git"); os.symlink(OUTSIDE, ".git")',
    "git-regular-file": 'shutil.rmtree(".git"); open(".git", "w").write("gitdir: /nowhere\\n")',
    "git-garbage": """
        for name in ("HEAD", "index", "config", "refs/heads/main"):
            open(".git/" + name, "w").write("garbage\\x00\\xff")
        open(".git/objects/info/alternates", "w").write(OUTSIDE + "\\n")
        os.mkfifo(".git/objects/pack/pack-0000000000000000000000000000000000000000.idx")""",
    "fifo-socket": """
        os.mkfifo("left-pipe"); os.mkfifo("src/left-pipe")
        socket.socket(socket.AF_UNIX).bind("left-socket")""",
    "src-link-outside": 'shutil.rmtree("src"); os.symlink(OUTSIDE, "src")',
    "locked-directories": """
        os.makedirs("left-locked/inner"); open("left-locked/inner/f", "w").write("x")
        os.chmod("left-locked/inner", 0); os.chmod("left-locked", 0); os.chmod("src", 0o500)""",
}


def _suite(git_repo, **fields):
    return build_suite_repo(git_repo, [task("t1", **fields)], repeats=2)


@pytest.mark.parametrize("isolation", [(), ("--unisolated",)], ids=["bwrap", "unisolated"])
@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_the_next_run_of_a_slot_starts_clean(git_repo, tmp_path, attack, isolation):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "app.py").write_text("OUTSIDE = True\n")
    base, candidate = _suite(git_repo)
    adapter = make_adapter(tmp_path, textwrap.dedent(PROBE.format(outside=str(outside))) + "\n"
                           + textwrap.dedent(ATTACKS[attack]).strip())
    out = tmp_path / "out"
    result = evaluate(git_repo, base, candidate, out, adapter, "--jobs", "1", "--temp-dir", str(tmp_path), *isolation)

    assert result.returncode in (0, 1), result.stderr  # never "could not evaluate"
    runs = records(out)
    assert len(runs) == 4
    assert all(run["failure_class"] != "infrastructure" for run in runs.values()), result.stderr
    probes = [next(e for e in run["events"] if e["type"] == "probe") for run in runs.values()]
    for probe in probes:  # the first run of the slot too: a fresh slot is clean
        assert probe == {"type": "probe", "git_is_dir": True, "head": "ref: refs/heads/main\n", "src_is_dir": True,
                         "app": "VALUE = 1\n", "leftovers": []}
    # Nothing was written through a link the agent made.
    assert sorted(p.name for p in outside.iterdir()) == ["app.py"]
    assert (outside / "app.py").read_text() == "OUTSIDE = True\n"
    assert git_repo.git("status", "--porcelain", "--untracked-files=all") == ""


def test_a_link_to_a_host_file_puts_its_content_in_no_record(git_repo, tmp_path):
    secret = tmp_path / "host-secret.txt"
    secret.write_text("HOST-SECRET-MARKER\n")
    check = ["python", "-c", "import sys; print(open('src/data.txt').read()); sys.exit(1)"]
    base, candidate = _suite(git_repo, checks=[check])
    body = f'os.makedirs("src", exist_ok=True); os.symlink({str(secret)!r}, "src/data.txt")'
    adapter = make_adapter(tmp_path, body)
    out = tmp_path / "out"
    result = evaluate(git_repo, base, candidate, out, adapter, "--jobs", "1", "--temp-dir", str(tmp_path))
    assert result.returncode in (0, 1), result.stderr
    assert len(records(out)) == 4
    leaked = [p for p in out.rglob("*") if p.is_file() and b"HOST-SECRET-MARKER" in p.read_bytes()]
    assert leaked == []


def test_an_adapter_over_the_event_limit_leaves_a_bounded_run_directory(git_repo, tmp_path):
    limits = {"max_event_bytes": 64 * 1024, "max_event_line_bytes": 4096, "max_patch_bytes": 64 * 1024}
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"schema_version": 1, "limits": limits}))
    base, candidate = _suite(git_repo)
    # Short lines written back longer: escaped non-ASCII and the spaces json.dumps adds.
    body = """
        line = json.dumps({"type":"message","text":"\\u00e9" * 300}, ensure_ascii=False, separators=(",", ":"))
        for _ in range(2000):
            print(line)
    """
    adapter = make_adapter(tmp_path, body)
    out = tmp_path / "out"
    result = evaluate(git_repo, base, candidate, out, adapter, "--jobs", "1", "--policy", str(policy))
    assert result.returncode in (0, 1, 3), result.stderr
    bound = OutputLimits.from_policy(limits)
    for run_dir in out.glob("t1/repeat-*/*"):
        sizes = {p.name: p.stat().st_size for p in run_dir.iterdir()}
        assert sizes["events.jsonl"] <= limits["max_event_bytes"], sizes
        assert sum(sizes.values()) <= bound.run_dir_bytes, sizes
        run = json.loads((run_dir / "run.json").read_text())
        assert run["failure_reason"] == "output_limit:events"
        assert len(run["events"]) == len((run_dir / "events.jsonl").read_text().splitlines()) > 0


def test_a_directory_named_in_adapter_options_is_not_visible(git_repo, tmp_path):
    scope = tmp_path / "scope"
    scope.mkdir()
    (scope / "hidden-check.py").write_text("CHECK-MARKER\n")
    base, candidate = _suite(git_repo)
    body = """
        scope = request["adapter_options"]["scope"]
        try:
            found = sorted(os.listdir(scope))
        except OSError as exc:
            found = type(exc).__name__
        emit(type="probe", found=found)
    """
    adapter = make_adapter(tmp_path, body)
    seen = {}
    for label, extra in (("bwrap", ()), ("unisolated", ("--unisolated",))):
        out = tmp_path / f"out-{label}"
        result = evaluate(git_repo, base, candidate, out, adapter, "--adapter-option", f"scope={scope}", *extra)
        assert result.returncode in (0, 1), result.stderr
        seen[label] = {str(next(e for e in r["events"] if e["type"] == "probe")["found"]) for r in records(out).values()}
    assert seen["bwrap"] == {"FileNotFoundError"}
    assert seen["unisolated"] == {"['hidden-check.py']"}  # control: without the sandbox it is there
