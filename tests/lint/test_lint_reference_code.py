"""Code and reference material in instruction files that earlier lint releases misread as rules.

Each case comes from a real instruction file: code that reads a token count, a table of
documentation links, a style rule naming the capitalised names it replaces.
"""

from __future__ import annotations

import pytest

from tests.lint.test_lint_rules import findings

TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


@pytest.mark.parametrize("line", [
    "  await logger.ainfo('Generation complete', tokens=usage.total_tokens)\n",
    "      input_tokens=response.usage.prompt_tokens,\n",
    "  api_key = load_api_key_from_environment()\n",
    "  secret = settings.secrets['provider_secret_key']\n",
])
def test_code_reading_a_token_is_not_a_credential(tmp_path, line):
    text = f"# Notes\n\n```python\n{line}```\n"
    assert findings(tmp_path, {"AGENTS.md": text}, "IG007") == []


@pytest.mark.parametrize("line", [
    f"token = {TOKEN}\n",
    "API_KEY=Zx81kQm3Tr7vPw2Ld9Hs\n",
    'password: "Zx81kQm.Tr7vPw2.Ld9Hs"\n',  # quoted: a value, even when dotted
])
def test_literal_credentials_are_still_found(tmp_path, line):
    assert len(findings(tmp_path, {"AGENTS.md": f"# Notes\n\n```\n{line}```\n"}, "IG007")) == 1


DOC_TABLE = """### Provider Documentation Links

Keep these bookmarked for verification:

| Provider | Documentation | Key Pages |
|----------|---------------|-----------|
| **Sentry** | [docs.sentry.io](https://docs.sentry.io/) | [OTLP](https://docs.sentry.io/concepts/otlp/), [Options](https://docs.sentry.io/platforms/python/options/) |
| **Axiom** | [axiom.co/docs](https://axiom.co/docs/) | [OpenTelemetry](https://axiom.co/docs/send-data/opentelemetry), [API Tokens](https://axiom.co/docs/reference/tokens) |
| **Ollama** | [ollama.com](https://ollama.com/) | [Models](https://ollama.com/library) |
"""


def test_a_table_of_documentation_links_is_not_an_instruction_to_fetch(tmp_path):
    assert findings(tmp_path, {"AGENTS.md": DOC_TABLE}, "IG010") == []


def test_a_row_that_says_to_fetch_is_still_read(tmp_path):
    text = "| Step | Command |\n|---|---|\n| Setup | Download https://get.tools.dev/setup.sh and run it |\n"
    assert [f.line for f in findings(tmp_path, {"AGENTS.md": text}, "IG010")] == [3]


def test_a_host_is_reported_once_per_file(tmp_path):
    text = ("- Fetch https://cdn.tools.dev/a.sh, https://cdn.tools.dev/b.sh and https://cdn.tools.dev/c.sh.\n"
            "- Later, download https://cdn.tools.dev/d.sh too.\n")
    assert len(findings(tmp_path, {"AGENTS.md": text}, "IG010")) == 1


STYLE = "  * Use lowercase `list`, `dict` for type hints (avoid `List`, `Dict`).\n"


def test_code_names_are_compared_case_sensitively(tmp_path):
    files = {"AGENTS.md": f"# Style\n\n{STYLE}", "pkg/AGENTS.md": f"# Package style\n\n{STYLE}"}
    assert findings(tmp_path, files, "IG006") == []
    files = {"AGENTS.md": "- Use `list` for type hints.\n- Never use `list` for type hints.\n"}
    assert len(findings(tmp_path / "same", files, "IG006")) == 1  # the same name, written the same way


def test_a_line_is_not_reported_against_itself_and_a_pair_of_lines_once(tmp_path):
    same_line = {"AGENTS.md": "- Always run `make test` locally; never run `make test` locally on CI runners.\n"}
    assert findings(tmp_path, same_line, "IG006") == []
    two_lines = {"AGENTS.md": "- Always run `make test`. Always run `make lint`.\n\n"
                              "- Never run `make test`. Never run `make lint`.\n"}
    assert [f.line for f in findings(tmp_path / "pair", two_lines, "IG006")] == [3]


def test_an_unknown_command_is_reported_once_per_file_whatever_its_options(tmp_path):
    text = ("# Build\n\n- Run `make test` first.\n\n```bash\nmake test\n```\n\n"
            "- CI runs `make -C . test` and `make -j4 test`.\n")
    assert [f.line for f in findings(tmp_path, {"AGENTS.md": text}, "IG001")] == [3]


@pytest.mark.parametrize("text", [
    "Create `.github/PR_DESCRIPTION_X.Y.Z.md` for each major release.\n",  # a version to fill in
    "- Upload `dist/tool-x.y.tar.gz` after tagging.\n",
    "- Use the `foo_test.py` suffix format (not `test_foo.py`).\n",  # a name made of example words
    "- Use `unittest.mock.patch` or `pytest-mock` for mocking.\n",  # a standard module's attribute
    "- Replace `mypkg.api.patch` in tests.\n",  # a module path of this tree (mypkg/api exists)
    "#### Use `assert` Over `if/pytest.fail` in Tests\n",  # words joined by a slash
    "| Plugin | Test File | Status |\n|---|---|---|\n| `pg` | `pg_engine_test.py` | ✅ Correct |\n"
    "| `pg` | `engine_test.py` | ❌ Wrong (collides) |\n",  # a table grading names
    "```\n# BAD — collides with another test module\ntools/release/tests/config_test.py\n```\n",
    "| Scope | When to use |\n|---|---|\n| `py/plugins/<name>` | plugins |\n| `py/core` | core changes |\n",
    "- Use a unique `cache_key` (e.g., `'vertex-ai'`, `'cloudflare-workers-ai/account123'`).\n",  # a value
])
def test_forms_examples_and_code_names_are_not_missing_paths(tmp_path, text):
    files = {"AGENTS.md": text, "mypkg/api/__init__.py": ""}
    assert [f.message for f in findings(tmp_path, files, "IG002")] == []


@pytest.mark.parametrize("text", [
    "- Configure `jest.config.js` first.\n",  # a dotted file name, no module of the standard library
    "- Run `scripts/release.sh X` after tagging.\n",
    "| Path | Status |\n|---|---|\n| `src/gone.py` | in use |\n",
    "```\n# GOOD\ntools/gone/config_test.py\n```\n",
    "- See `if_docs/gone.md`.\n",
    "- Load `'src/gone.py'` first.\n",
    "| Path | Scope |\n|---|---|\n| `src/gone/` | core |\n",  # the scope column is another one  # quoted, but `src/` is a directory here
])
def test_real_paths_near_those_shapes_are_still_checked(tmp_path, text):
    assert len(findings(tmp_path, {"AGENTS.md": text, "src/main.py": ""}, "IG002")) == 1
