"""The run record's failure_detail: the error line, on one line, scrubbed and capped."""

from __future__ import annotations

from instruction_gate.run import failure_detail

NODE_CRASH = """node:internal/modules/cjs/loader:1228
  throw err;
  ^

Error: Cannot find module '/opt/agent/dist/index.js'
    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)
    at node:internal/main/run_main_module:28:49 {
  code: 'MODULE_NOT_FOUND',
  requireStack: []
}

Node.js v22.3.0
"""


def test_the_error_line_of_a_node_crash_not_its_version_footer():
    assert failure_detail.from_adapter(None, NODE_CRASH) == "Error: Cannot find module '/opt/agent/dist/index.js'"


def test_the_adapters_own_detail_wins_and_plain_stderr_gives_its_last_line():
    assert failure_detail.from_adapter({"failure_detail": "auth: 401"}, NODE_CRASH) == "auth: 401"
    assert failure_detail.from_adapter({}, "starting\nwaiting\n") == "waiting"
    assert failure_detail.from_adapter(None, "") is None


def test_credential_shaped_words_are_redacted_and_the_text_capped():
    text = "Error: Bearer abcdefghijkl rejected, key sk-proj-0123456789abcdef, api_key=zzzzzzzzzz " + "x" * 500
    found = failure_detail.scrubbed(text)
    assert "abcdefghijkl" not in found and "sk-proj" not in found and "zzzzzzzzzz" not in found
    assert len(found) == failure_detail.LIMIT and found.endswith("…")
