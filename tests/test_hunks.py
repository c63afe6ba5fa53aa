"""Instruction hunks: parsed from `git diff -U0`, labelled, matched against behaviours."""

from __future__ import annotations

import subprocess

from instruction_gate import hunks
from instruction_gate.verdict import attribution

DIFF = """diff --git a/AGENTS.md b/AGENTS.md
index d4b3d36..122e3be 100644
--- a/AGENTS.md
+++ b/AGENTS.md
@@ -13,0 +14 @@ Guidance
+- Never run `pytest` yourself.
@@ -23,5 +24 @@ Guidance
--- Never run `pip install`; the environment is pinned.
-Read `CONTRIBUTING.md` before changing code.
-
-## Contributing
-x
+- Never run `pip ins
\\ No newline at end of file
diff --git a/new/AGENTS.md b/new/AGENTS.md
new file mode 100644
--- /dev/null
+++ b/new/AGENTS.md
@@ -0,0 +1,2 @@
+# New
++++ not a header
"""


def test_parse_keeps_each_hunk_with_its_lines_and_numbers():
    found = hunks.parse(DIFF)
    assert [(h.path, h.old_start, h.old_count, h.new_start, h.new_count) for h in found] == [
        ("AGENTS.md", 13, 0, 14, 1), ("AGENTS.md", 23, 5, 24, 1), ("new/AGENTS.md", 0, 0, 1, 2)]
    assert found[1].removed[0] == "-- Never run `pip install`; the environment is pinned."
    assert found[2].added == ("# New", "+++ not a header")
    assert [h.label for h in found] == ["AGENTS.md:14", "AGENTS.md:24", "new/AGENTS.md:1–2"]
    assert all(hunks.from_dict(h.as_dict()) == h for h in found)


def test_parse_reads_what_git_writes(tmp_path):
    def git(*args):
        return subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True, text=True).stdout

    git("init", "-q")
    (tmp_path / "AGENTS.md").write_text("a\nb\nc\n")
    git("add", "."), git("commit", "-qm", "one")
    (tmp_path / "AGENTS.md").write_text("a\nB\nc\nd\n")
    git("commit", "-qam", "two")
    found = hunks.parse(git("diff", "-U0", "HEAD~1", "HEAD"))
    assert [(h.removed, h.added, h.label) for h in found] == [(("b",), ("B",), "AGENTS.md:2"),
                                                              ((), ("d",), "AGENTS.md:4")]


def test_from_dict_ignores_malformed_entries():
    assert hunks.from_dict({"path": "AGENTS.md", "old_start": -1, "old_count": 0, "new_start": 1, "new_count": 1}) is None
    assert hunks.from_dict(["AGENTS.md"]) is None


def test_a_hunk_mentions_a_command_by_its_distinctive_word_not_by_the_interpreter():
    added = hunks.Hunk("AGENTS.md", 1, 0, 2, 1, (), ("- Never run `pytest` yourself.",))
    python_only = hunks.Hunk("AGENTS.md", 1, 0, 2, 1, (), ("- Use python 3.12.",))
    assert attribution.mentions(added, "command", "python -m pytest -q")
    assert not attribution.mentions(python_only, "command", "python -m pytest -q")
    assert attribution.mentions(added, "pattern", r"\bpytest\b")
    assert not attribution.mentions(added, "pattern", r"\bpip3? install\b")
    removed = hunks.Hunk("AGENTS.md", 5, 1, 4, 0, ("Read `docs/CONTRIBUTING.md` first.",), ())
    assert attribution.mentions(removed, "read", "CONTRIBUTING.md") and removed.label == "AGENTS.md:5 (removed)"
    assert attribution.quote(removed, [("read", "CONTRIBUTING.md")]) == ("-", 5, "Read `docs/CONTRIBUTING.md` first.", True)
