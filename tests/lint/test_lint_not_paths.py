"""IG002 and names shaped like paths that are no file of the tree: git refs, images, packages,
placeholders, naming examples, and files the reader is told to write."""

from __future__ import annotations

import pytest

from tests.lint.test_lint_rules import findings


def _missing(tmp_path, text: str, **extra: str) -> list[str]:
    files = {"AGENTS.md": text, "src/app.py": "", **extra}
    return [f.message.split("`")[1] for f in findings(tmp_path, files, "IG002")]


@pytest.mark.parametrize("text", [
    "Lock entries point at `refs/heads/main` upstream.\n",  # a git ref
    "Release from `refs/tags/v1.2.0` only.\n",
    "This uses Docker (`acme/lint-docs`) to check the docs.\n",  # an image
    "- Focused test: `uv run pytest path/to/test.py -q`\n",  # a placeholder
    "Edit `path/to/module/`, then rerun.\n",
    "- **Files**: `snake_case` (e.g., `abstract_operator.cpp`)\n",  # a naming style shown
    "- Include `RELEASE.md` file describing changes\n",  # the reader writes it
    "- Create a new `docs/adr/0007-cache.md` for the decision.\n",
    "- Write the `CHANGES.txt` entry before merging.\n",
])
def test_names_that_are_no_file_of_the_tree_are_not_stale(tmp_path, text):
    assert _missing(tmp_path, text) == []


def test_a_composer_package_name_is_not_stale(tmp_path):
    text = "- **Demo server** (`acme/mcp-bundle`): start it by hand.\n"
    assert _missing(tmp_path, text, **{"composer.json": "{}"}) == []
    # no Composer project, and an `acme/` directory here: a path of this repository
    assert _missing(tmp_path / "bare", text, **{"acme/README.md": ""}) == ["acme/mcp-bundle"]


@pytest.mark.parametrize(("text", "stale"), [
    ("See `refs/old/main.txt`.\n", ["refs/old/main.txt"]),  # not a ref namespace
    ("This uses Docker with `src/gone.py` mounted.\n", ["src/gone.py"]),  # a file, not owner/name
    # the missing directory is the problem; an example inside it ("e.g., …") is not reported again
    ("- Shared tools live in `tools/` (e.g., `tools/release.rb`)\n", ["tools/"]),
    ("- Add tests to `tests/unit/` for each change.\n", ["tests/unit/"]),  # a place, not what to write
    ("- Follow `snake_case`; see `docs/naming.md`.\n", ["docs/naming.md"]),  # a path in a naming sentence
])
def test_stale_paths_next_to_such_names_are_still_found(tmp_path, text, stale):
    assert _missing(tmp_path, text) == stale


@pytest.mark.parametrize("text", [
    "- Mocks come from `mockery/v2`.\n",  # a module, not a directory of ours
    "- The bundle is `acme/widgets-bundle`.\n",
    "- Images are pushed as `org/service`.\n",
])
def test_a_name_into_no_directory_of_the_tree_is_not_stale(tmp_path, text):
    assert _missing(tmp_path, text) == []


@pytest.mark.parametrize(("text", "stale"), [
    ("- Helpers are in `src/gone`.\n", ["src/gone"]),  # `src/` is here: a path of ours
    ("- Run `./tools/check` first.\n", ["./tools/check"]),  # written as a path
    ("- Docs live in `handbook/`.\n", ["handbook/"]),
    ("- See `guide/setup.md`.\n", ["guide/setup.md"]),  # a file name
])
def test_a_name_written_as_a_path_or_into_a_directory_here_is_still_checked(tmp_path, text, stale):
    assert _missing(tmp_path, text) == stale


def test_a_directory_the_change_removed_still_anchors_its_paths(tmp_path):
    from instruction_gate.lint.engine import lint_revisions
    from instruction_gate.lint.policy import LintPolicy
    from instruction_gate.lint.tree import DirTree

    text = "- Internal helpers live in `internal/cache`.\n"
    for name, files in {"base": {"AGENTS.md": text, "internal/cache/a.go": ""},
                        "candidate": {"AGENTS.md": text, "pkg/cache/a.go": ""}}.items():
        for rel, body in files.items():
            (tmp_path / name / rel).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / name / rel).write_text(body, encoding="utf-8")
    result = lint_revisions(DirTree(tmp_path / "candidate"), DirTree(tmp_path / "base"), LintPolicy())
    assert [(j.finding.rule_id, j.new) for j in result.judged] == [("IG002", True)]
    alone = lint_revisions(DirTree(tmp_path / "candidate"), None, LintPolicy())
    assert [j.finding.rule_id for j in alone.judged] == []  # nothing anchors it without the base


@pytest.mark.parametrize("text", [
    "- Patch releases live in `release/<major>.x` (for example `release/3.x`, `release/v4.x`).\n",  # branches
    "- Do not use `signing-key-KEEP-SECURE.txt`; that key is another project's.\n",  # forbidden, absent on purpose
    "- Only use Claude memory (`MEMORY.md`) for user-specific preferences.\n",  # an agent's memory, not the tree
])
def test_branch_series_and_files_of_elsewhere_are_not_stale(tmp_path, text):
    assert _missing(tmp_path, text) == []


def test_a_missing_file_in_plain_prose_is_still_reported(tmp_path):
    assert _missing(tmp_path, "- Keys are listed in `signing-keys.txt`.\n") == ["signing-keys.txt"]


@pytest.mark.parametrize("text", [
    "- **Directories**: lowercase with dashes (`components/auth-wizard/`)\n",  # a name's shape
    "- Runtime or generated dirs: `_build/`, `log/`, `tmp/`.\n",  # made by running
    "Presets use Ninja and export `compile_commands.json`.\n",  # a file the tool writes
])
def test_shapes_runtime_places_and_exports_are_not_stale(tmp_path, text):
    assert _missing(tmp_path, text) == []


@pytest.mark.parametrize("text", [
    "- Run one file: `uv run pytest tests/ci/test_specific_test.py`\n",  # placeholders
    "- Name it `tests/ci/test_action_EventNameHere.py`.\n",
    "- `settings.profile.tsx` → `/settings/profile` (`.` creates nesting)\n",  # a file-to-route convention
])
def test_placeholders_and_route_conventions_are_not_stale(tmp_path, text):
    assert _missing(tmp_path, text, **{"tests/ci/test_a.py": ""}) == []


def test_an_example_scheme_after_e_g_comma_needs_its_first_directory_here(tmp_path):
    scheme = "- Put overrides in per-framework subdirectories (e.g., `.publicApi/net462/`).\n"
    assert _missing(tmp_path, scheme) == []
    stale = "- Shared tools live in `tools/` (e.g., `tools/release.rb`)\n"
    assert _missing(tmp_path / "t", stale, **{"tools/run": ""}) == ["tools/release.rb"]


@pytest.mark.parametrize("text", [
    "Past sessions tried to install it inside Fabric (in\n`Resources/builtin/`, in custom Environments).\n",
    "The agent runs on the server (`/srv/agent/config.toml`) we deploy to.\n",
    "Logs land inside the container, under `var/log/app/`.\n",
])
def test_a_path_in_another_system_is_not_stale(tmp_path, text):
    assert _missing(tmp_path, text) == []


def test_a_path_of_this_tree_after_a_capitalised_name_is_still_checked(tmp_path):
    text = "Fix it in Core (`src/core/gone.py`) first.\n"  # `src/` is here: this repository's place
    assert _missing(tmp_path, text) == ["src/core/gone.py"]


@pytest.mark.parametrize("text", [
    # kept out of git by the sentence itself: absent from the tree by design
    "- Keep local artifacts out of git. Do not commit `.venv/`, `.cache/` or `out/` under `tests/e2e`.\n",
    "- `build/output/` is git-ignored.\n",
    # names any directory may carry, not one path
    "- `Fixture/`, `Source/`, `Golden/` directories are skipped by the linters.\n",
])
def test_paths_kept_out_of_git_or_named_as_kinds_of_directory_are_not_stale(tmp_path, text):
    assert _missing(tmp_path, text) == []


def test_a_path_after_cd_is_looked_up_below_that_directory(tmp_path):
    extra = {"tests/e2e/run.py": "", "tests/e2e/setup.sh": ""}
    text = "```sh\ncd tests/e2e && ./setup.sh && ./run.py\n```\n\n- `cd tests/e2e && ./run.py --list`\n"
    assert _missing(tmp_path, text, **extra) == []
    # each `cd x && …` line starts again at the root; a script missing below the directory is reported
    text = "```sh\ncd tests/e2e && ./run.py\ncd tests/e2e && ./gone.py\n```\n"
    found = findings(tmp_path / "again", {"AGENTS.md": text, **extra}, "IG002")
    assert [f.message for f in found] == [
        "Referenced path `./gone.py` does not exist (looked in the repository root, after `cd tests/e2e`)."]
    # a `cd` on its own line holds for the lines under it
    assert _missing(tmp_path / "own", "```sh\ncd tests/e2e\n./run.py\n```\n", **extra) == []


@pytest.mark.parametrize("name", ["back\\slash/notes.md", "pipe|x/notes.md", "semi;colon/run.sh"])
def test_a_path_with_shell_syntax_in_its_name_is_checked_as_written(tmp_path, name):
    """A one-word span is a name, not shell: the escape is not removed nor the pipe split."""
    text = f"Read `{name}` first.\n"
    assert _missing(tmp_path, text) == [name]  # as written
    assert _missing(tmp_path / "present", text, **{name: "x\n"}) == []


@pytest.mark.parametrize("span, missing", [("make&&./run.sh", ["./run.sh"]), ("ls|./filter.sh", ["./filter.sh"])])
def test_commands_written_without_spaces_are_still_commands(tmp_path, span, missing):
    assert _missing(tmp_path, f"Run `{span}`.\n", Makefile="all:\n\ttrue\n") == missing


def test_a_nested_files_own_directory_anchors_no_path(tmp_path):
    """`pip/uv-add` in docs/realtime/AGENTS.md names a macro: `docs/` existing says nothing about it."""
    text = "Install blocks use the `pip/uv-add` macro with the name.\n"
    assert _missing(tmp_path, "# Root\n", **{"docs/realtime/AGENTS.md": text}) == []
    # a path whose first directory is beside the file, or at the root, is still checked
    nested = "See `guides/setup.md` and `src/gone.py`.\n"
    found = _missing(tmp_path / "n", "# Root\n", **{"docs/realtime/AGENTS.md": nested, "docs/realtime/guides/x.md": ""})
    assert found == ["guides/setup.md", "src/gone.py"]


@pytest.mark.parametrize("text", [
    "Plan big changes first (with just a `PLAN.md` file that can be deleted afterwards).\n",
    "Keep notes in `NOTES.md` (temporary, do not commit).\n",
    "Write progress to `progress.txt`, which you should delete when done.\n",
])
def test_a_file_made_for_the_task_and_removed_is_not_stale(tmp_path, text):
    assert _missing(tmp_path, text) == []
    assert _missing(tmp_path / "still", text + "Read `GONE.md` first.\n") == ["GONE.md"]
