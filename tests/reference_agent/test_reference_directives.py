import pytest

from instruction_gate.reference_agent.directives import is_command, parse


def kinds(text: str) -> list[tuple[str, str | None]]:
    return [(d.kind, d.argument) for d in parse(text, "AGENTS.md")]


@pytest.mark.parametrize(("sentence", "expected"), [
    ("Run the tests with `python -m pytest -q` before finishing.",
     [("test_command", "python -m pytest -q"), ("verify", None)]),
    ("Test command: run `make check` for the tests.", [("test_command", "make check")]),
    ("Always run `ruff check .` after editing.", [("run", "ruff check .")]),
    ("Use `ruff format` to format code.", [("run", "ruff format")]),
    ("Never run `npm test` or `npm ci` here.", [("forbid_command", "npm test"), ("forbid_command", "npm ci")]),
    ("Do not edit `src/billing/**`; it is generated.", [("protect_path", "src/billing/**")]),
    ("Ask for approval before running `make db:migrate`.", [("approve_command", "make db:migrate")]),
    ("Ask for permission before editing `migrations/**`.", [("approve_edit", "migrations/**")]),
    ("Read `CONTRIBUTING.md` before changing code.", [("read", "CONTRIBUTING.md")]),
    ("Follow docs/STYLE.md for naming.", [("read", "docs/STYLE.md")]),
    ("Run the tests before finishing.", [("verify", None)]),
])
def test_each_directive_form(sentence, expected):
    assert kinds(f"- {sentence}\n") == expected


@pytest.mark.parametrize("sentence", [
    "Use `pathlib` instead of `os.path`.",  # "use" without "to/for" is style advice, not a command
    "Money is always a `Decimal` (never a `float`).",
    "Tests never touch the network.",
    "See README.md for an overview.",
    "- Never run `pip ins",  # a file cut off mid-directive yields nothing, not half a command
])
def test_prose_is_not_a_directive(sentence):
    assert kinds(sentence) == []


def test_negation_never_turns_into_a_command():
    assert kinds("Do not run the tests with `pytest -x`.") == [("forbid_command", "pytest -x")]


def test_one_directive_per_clause():
    text = "Never run `pytest` directly; run `make test` before finishing."
    assert kinds(text) == [("forbid_command", "pytest"), ("test_command", "make test"), ("verify", None)]


def test_fenced_code_is_ignored_and_lines_are_recorded():
    text = "# Rules\n```sh\nrun `rm -rf /`\n```\n- Run `make lint`.\n"
    directives = parse(text, "services/x/AGENTS.md")
    assert [(d.kind, d.argument, d.line, d.source) for d in directives] == [
        ("run", "make lint", 5, "services/x/AGENTS.md")]


@pytest.mark.parametrize("code", ["make test", "./scripts/test", "scripts/check.py --all", "CI=1 npm test",
                                  "python -c 'print(1)'", "uv run pytest", "pytest", "cargo test --workspace",
                                  "go test ./...", "just lint", "no-such-tool --check", "rm -rf build"])
def test_commands_are_recognised(code):
    assert is_command(code), code


@pytest.mark.parametrize("code", ["PYTHONWARNDEFAULTENCODING=1", "--fail-under=0", "tests/", "uv.lock",
                                  "strict-no-cover", "assert isinstance(x, T)", "pyproject.toml", "foo(bar)",
                                  "import os", "x == 1", "setup.py", "<path>", "$HOME", "const x = 1",
                                  "docs/guide.md", "tests"])
def test_text_that_is_not_a_command_is_never_run(code):
    assert not is_command(code), code
    assert kinds(f"- Always run `{code}` after editing.\n") == []


@pytest.mark.parametrize(("text", "expected"), [
    # The tests are the occasion here, not the command's purpose: a setup step, run like any other.
    ("Run `pip install -e .` before running the tests.", [("run", "pip install -e .")]),
    ("Always run `pip install -e .` after editing source files.", [("run", "pip install -e .")]),
    ("Run `make fmt` after the tests pass.", [("run", "make fmt")]),
    ("Run the tests with `make test`.", [("test_command", "make test")]),
])
def test_a_command_before_or_after_the_tests_is_a_step_not_the_test_command(text, expected):
    assert kinds(f"- {text}\n") == expected


def test_a_hard_wrapped_sentence_is_read_whole_with_the_line_of_its_clause():
    text = ("# Rules\n\nBefore you open a pull request, always run\n`make lint` and then run the\n"
            "tests with `make test` before finishing.\n\n- Never run\n  `npm publish`.\n")
    found = [(d.kind, d.argument, d.line) for d in parse(text, "AGENTS.md")]
    assert ("forbid_command", "npm publish", 7) in found
    assert ("run", "make lint", 3) in found or ("test_command", "make lint", 3) in found
    assert any(kind == "verify" for kind, _, _ in found)


@pytest.mark.parametrize("text", ["**NEVER** run `make deploy`.", "FORBIDDEN: running `make deploy`.",
                                  "Using `make deploy` is prohibited.", "_Never_ run `make deploy`."])
def test_prohibitions_in_capitals_or_emphasis(text):
    assert kinds(f"- {text}\n") == [("forbid_command", "make deploy")]


@pytest.mark.parametrize(("text", "expected"), [
    # a URL is not a program, whatever it is forbidden with
    ("- Never run `mise.jdx.dev/backends/x` docs.\n", []),
    ("- Before starting any task, read `CONTRIBUTING.md`.\n", [("read", "CONTRIBUTING.md")]),
    ("- Consult `tests/README.md` for snapshot workflows.\n", []),  # a pointer, not a rule for every task
    ("- Run `pnpm test` to run the full test suite.\n", [("test_command", "pnpm test")]),
    ("- **Test**: `task test` or `go test ./...`\n", [("test_command", "task test")]),
    ("## Strictly Forbidden Git Operations\n\n- `git push --force` / `git push -f`\n- `git rebase -i`\n",
     [("forbid_command", "git push --force"), ("forbid_command", "git push -f"), ("forbid_command", "git rebase -i")]),
    ("## Commands\n\n```bash\n# Run all tests\nmake tests\n# one test\nmake test-one\n```\n", [("test_command", "make tests")]),
])
def test_forms_found_on_repositories_outside_the_corpus(text, expected):
    assert kinds(text) == expected


def test_a_documents_test_command_does_not_replace_the_files_own():
    from instruction_gate.reference_agent.plan import build_plan
    files = [("AGENTS.md", "- Run the tests with `make tests`.\n- Read `tests/README.md` before starting.\n")]
    plan = build_plan(files, lambda path: "- Run the tests with `make tests-parallel`.\n")
    assert plan.test.text == "make tests" and plan.documents == ["tests/README.md"]


@pytest.mark.parametrize("text", [
    # commands in tips, troubleshooting and reference sections are for when they are needed
    "### Utilities & Tips\n\n- Run the tests on Python 3.10:\n  ```bash\n  uv run --python 3.10 pytest\n  ```\n",
    "## Troubleshooting\n\n- Run `make clean` and try again.\n",
    "## Quick reference\n\n- Run `astro add` to add an integration.\n",
    # scoped prohibitions and occasional steps are not rules for every change
    "- Do not use `curl` to test HMR issues.\n",
    "- Run `make generate` after modifying source templates.\n",
    "- Use `modtools check --direct-only` to check for updates.\n",
])
def test_commands_for_particular_needs_are_not_directives(text):
    assert kinds(text) == []


def test_the_purpose_may_come_later_in_the_sentence():
    assert kinds("- Run `pnpm test` in the workspace root to run the full test suite (slow).\n") == [
        ("test_command", "pnpm test")]


@pytest.mark.parametrize(("text", "expected"), [
    # the alternative after the ban is recommended, not banned
    ("- Never use `yarn`, use `pnpm` instead.\n", [("forbid_command", "yarn")]),
    # a rule for one situation, with an example and the alternative, bans nothing outright
    ("- When calling `tool -e \"\"`, never use `print` like `tool -e \"print x\"`; just write `tool -e \"x\"`.\n", []),
    ("- Try to avoid doing `make distclean` because rebuilding is slow.\n", [("forbid_command", "make distclean")]),
    # protected paths: bare file names, a closing "(generated, don't edit)", never a name in code
    ("- Never change settings.json or yarn.lock files unless asked to.\n",
     [("protect_path", "settings.json"), ("protect_path", "yarn.lock")]),
    ("- Don't update files under `gen/*.go` as they are generated.\n", [("protect_path", "gen/*.go")]),
    ("- **Schema**: tables defined in `db/schema/*.sql` (generated, don't edit)\n", [("protect_path", "db/schema/*.sql")]),
    ("- Avoid modifying `os.environ` directly; use the fixture.\n", []),
])
def test_prohibitions_ban_what_they_name_and_nothing_else(text, expected):
    assert kinds(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    # the Windows form of a step is not run, the POSIX one is
    ("- **IDE**: Run `./setup.cmd` first.\n- Always run `./setup.sh` first.\n", [("run", "./setup.sh")]),
    # a block introduced for one situation does not name the suite
    ("## Running tests\n\nTo run specific tests, add a filter:\n\n```bash\nmake test FILTER=x\n```\n", []),
    # under a heading that says what not to do, or marked as wrong, a line is not the test command
    ("## Tests\n\n### Do NOT pass `--filter`\n\n```bash\n# WRONG\ndotnet test --filter X\n```\n", []),
    ("## Testing\n\n```bash\n# wrong: hangs\nmake test-all\n# right\nmake test\n```\n", [("test_command", "make test")]),
    # one .NET test project, or a filtered run, is a variant, not the suite
    ("## Testing\n\n```bash\ndotnet test tests/App.Tests/App.Tests.csproj\n```\n", []),
    # chat and pull-request slash commands are not programs
    ("## Flaky tests\n\n```bash\n/quarantine-test Namespace.Type.Method https://ci.invalid/1\n```\n", []),
])
def test_commands_that_are_not_the_suite_or_not_runnable_here(text, expected):
    assert kinds(text) == expected


@pytest.mark.parametrize("code", ["./build.cmd", "powershell -File check.ps1", "/deploy now"])
def test_windows_only_and_slash_commands_are_not_run_as_written(code):
    from instruction_gate.reference_agent.command_text import runnable_as_written
    assert not runnable_as_written(code)


@pytest.mark.parametrize(("text", "expected"), [
    # labels written "**Label:** `cmd`", the colon inside the emphasis
    ("- **Install dependencies:** `bundle install`\n- **Build:** `rake build`\n", [("run", "bundle install")]),
    ("- **Test commands:**\n  - **Unit (all):** `make test`\n  - **E2E:** `make e2e`\n", [("test_command", "make test")]),
    ("- **Process:** Follow the steps in `docs/PROCESS.md`. Sign the CLA.\n", [("read", "docs/PROCESS.md")]),
    # "(1)" numbered steps, and a sentence ending inside emphasis; "Build with `X`" describes how, in a
    # guide to one part as often as in a routine, so it is no step (precision first)
    ("(1) Build from the root with `./build.sh` (a few minutes).\n", []),
    ("**Always bootstrap first.** Run `./bootstrap.sh` (Linux/macOS) or `./bootstrap.cmd` (Windows) first.\n",
     [("run", "./bootstrap.sh")]),
    # a pointer to the rules to follow is a read; a pointer to background is not
    ("See `AGENTS.md` for the shared agent instructions.\n\nSee `docs/dev.md` for prerequisites.\n",
     [("read", "AGENTS.md")]),
])
def test_label_and_step_forms_found_on_held_out_files(text, expected):
    assert kinds(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("1. Add the package.\n2. Run `make refs` if adding dependencies between packages.\n", []),
    ("- Run `make lint` when you are done.\n", [("run", "make lint")]),  # finishing is not a condition
    ("Before making changes that touch the architecture, check the decisions:\n\n"
     "1. Read `docs/decisions/README.md` for the index.\n\nRead `CONTRIBUTING.md`.\n",
     [("read", "CONTRIBUTING.md")]),
    ("When modifying code:\n\n- Install dependencies with `bundle install`.\n", [("run", "bundle install")]),
])
def test_steps_for_one_kind_of_change_are_not_directives(text, expected):
    assert kinds(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    # a prohibition lifted by a human's yes is an approval, not a ban
    ("- Do not run `make deploy` or `git clean -fdx` without prior approval.\n",
     [("approve_command", "make deploy"), ("approve_command", "git clean -fdx")]),
    ("- Never edit `schema/*.sql` without asking.\n", [("approve_edit", "schema/*.sql")]),
    # another instruction file's rules hold here; a re-read at the end of every task
    ("The parent `AGENTS.md` also applies.\n", [("read", "AGENTS.md")]),
    ("At the end of each task, re-read `docs/RULES.md` and update it.\n", [("read", "docs/RULES.md")]),
    # a pointer to instructions on one topic is not the rules to follow
    ("See `docs/build.md` for detailed instructions on packaging.\n", []),
    # the condition names the suite itself
    ("- If you need to run the full test suite, run `npm run check`.\n", [("test_command", "npm run check")]),
    ("- **Full tests:** `cargo nextest run`\n", [("test_command", "cargo nextest run")]),
    # the command a contrast names is the one not to use
    ("- Use `./bin/app` (not `bundle exec app`, which may load the installed gem).\n",
     [("forbid_command", "bundle exec app")]),
    ("- Always use `git push --force-with-lease` rather than `git push -f`.\n", [("forbid_command", "git push -f")]),
])
def test_forms_found_on_the_second_held_out_files(text, expected):
    assert kinds(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    # a list item's path is what "these" points back at
    ("- `vendor/upstream/` - imported golden files. Do not modify these.\n", [("protect_path", "vendor/upstream/")]),
    # the items of a section about files never to edit are paths, not commands
    ("## Generated files (do not edit)\n\n- `docs/api.md` is generated from `scripts/api.ts` by `make api`\n",
     [("protect_path", "docs/api.md")]),
    # a path that only says where the subject lives is not protected
    ("- the exported names, i.e. those in `lib/` should not change\n", []),
    ("- Code under `lib/` (generated, do not edit)\n", [("protect_path", "lib/")]),
])
def test_protected_paths_follow_what_the_prohibition_is_about(text, expected):
    assert kinds(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    # a list introduced for one occasion
    ("When writing a release note:\n\n- Follow `docs/NOTES.md`.\n", []),
    ("When the change is done:\n\n- Run `make lint`.\n", [("run", "make lint")]),
    # "for a given component" is one component's suite
    ("Run all tests for a given package:\n\n```bash\nmake pkg-test\n```\n", []),
    # a subproject's suite, and the other lines of a test block that carry their own comment
    ("## Testing\n\n```bash\ncd web && pnpm test   # Run all tests\n```\n", []),
    ("Run the tests:\n\n```bash\nmake test    # all tests\nmake quick   # smoke test\n```\n",
     [("test_command", "make test")]),
    # the else branch of a condition, even under a set-up heading
    ("## Setup\n\nIf the tools are active, run make. Otherwise, prefix it with `env --`:\n\n```sh\nenv -- make build\n```\n",
     []),
    # a reference block's line marked required is a step; the others are not
    ("## Quick reference\n\n```bash\ncargo build      # build\ncargo fmt        # format (required)\n"
     "make snap       # only if snapshots are required\n```\n", [("run", "cargo fmt")]),
    ("## Building and testing\n\n```bash\n# Run all JVM tests\n./gradlew jvmTest\n```\n", [("test_command", "./gradlew jvmTest")]),
])
def test_blocks_and_lists_for_one_occasion_or_subproject(text, expected):
    assert kinds(text) == expected


def test_steps_under_a_heading_for_one_kind_of_task_are_not_every_change():
    text = ("## Adding integrations\n\n1. Add the minimum version.\n2. Run `scripts/generate-test-files.sh`\n\n"
            "## Checks\n\n- Run `make lint` before committing.\n"
            "## Creating a pull request\n\n- Run `make check` first.\n")
    assert kinds(text) == [("run", "make lint"), ("run", "make check")]


@pytest.mark.parametrize(("sentence", "expected"), [
    ("**Always use Bun** — never Node.js, npm, pnpm, yarn, or jest.",
     [("forbid_command", "npm"), ("forbid_command", "pnpm"), ("forbid_command", "yarn"), ("forbid_command", "jest")]),
    ("Never use pip.", [("forbid_command", "pip")]),
    ("Use **tox** for testing (not pytest directly).", [("forbid_command", "pytest")]),
    ("Never commit secrets or API keys.", []),  # not programs
    ("Never run npm scripts from a hook without reading them.", []),  # not a list of tools
    ("Use **tox** for testing (not mocks).", []),
])
def test_tools_named_bare_in_a_prohibition(sentence, expected):
    assert kinds(f"- {sentence}\n") == expected


def test_default_suite_label_is_the_test_command():
    assert kinds("- Common tests: `uv run tox -e py3.14-common`\n") == [("test_command", "uv run tox -e py3.14-common")]
    assert kinds("- Integration tests: `uv run tox -e py3.14-integration`\n") == []


def test_a_paragraph_introduces_the_list_below_it():
    text = ("Use **ruff** for linting and formatting:\n- `uv run ruff check --fix src`\n- `uv run ruff format src`\n\n"
            "Do NOT edit these directly — modify the source scripts instead:\n"
            "- `tox.ini` — generated by `scripts/populate.py`\n- `.github/workflows/test-*.yml` — generated\n"
            "- Regenerate all: `scripts/generate.sh`\n\n"
            "**Ask first**\n- Adding or upgrading a dependency (`go.mod`).\n"
            "- Changing a high-fan-in package (`session`, `agent`).\n\n"
            "**Never**\n- Edit vendored code (`internal/httprr`) or commit secrets.\n- Break the public API.\n\n"
            "Notes:\n- `docs/` holds the guides.\n")
    assert kinds(text) == [
        ("run", "uv run ruff check --fix src"), ("run", "uv run ruff format src"),
        ("protect_path", "tox.ini"), ("protect_path", ".github/workflows/test-*.yml"),
        ("approve_edit", "go.mod"), ("approve_edit", "session"), ("approve_edit", "agent"),
        ("protect_path", "internal/httprr")]


def test_set_up_block_introduced_before_an_explanation():
    text = ("Set up a Go workspace first — `go.work` is local-only, and `go work init` fails if one exists:\n\n"
            "```bash\ntest -f go.work || go work init\ngo work use -r .\n```\n")
    assert kinds(text) == [("run", "test -f go.work || go work init"), ("run", "go work use -r .")]


def test_install_comment_marks_the_set_up_step_of_a_command_list():
    text = ("## Commands\n\n```bash\n# Install dependencies\nbun install\n\n# Development (watch mode)\nbun run dev\n\n"
            "# Build all packages\nbun run build\n```\n")
    assert kinds(text) == [("run", "bun install")]


def test_checklist_outcomes_and_commands_written_in_full_above():
    text = ("- Build: `go build -mod=readonly work`\n- Test: `go test -race work`\n- Single pkg: `go test -race ./agent/...`\n\n"
            "## Definition of done\n\n1. `go build` (above) succeeds.\n2. `go test` (above) is green.\n"
            "3. `golangci-lint run` reports no findings.\n4. `go mod tidy -diff` prints nothing.\n")
    found = [(d.kind, d.argument, d.line) for d in parse(text, "AGENTS.md")]
    assert found == [("test_command", "go test -race work", 2), ("run", "go build -mod=readonly work", 1),
                     ("verify", None, 8), ("run", "golangci-lint run", 9), ("run", "go mod tidy -diff", 10)]


@pytest.mark.parametrize(("text", "expected"), [
    ("See [AGENTS.md](./AGENTS.md) for project context, commands, and contribution guidelines for AI coding agents.\n",
     [("read", "AGENTS.md")]),
    ("See [CONTRIBUTING.md](./CONTRIBUTING.md) for the release process.\n", []),
])
def test_pointer_to_another_instruction_file(text, expected):
    assert kinds(text) == expected


def test_a_catalogue_of_patterns_describes_code_it_asks_nothing_to_run():
    text = ("## Hook Script Best Practices\n\n**Common Patterns**:\n"
            "- Dependency detection: Use `grep -qE '{:dep' mix.exs` to check for specific dependency\n"
            "- File filtering: Check file extensions with `grep -qE '\\.(ex|exs)$'`\n\n"
            "Steps:\n- Lint your changes with `mix credo`\n")
    assert kinds(text) == [("run", "mix credo")]


@pytest.mark.parametrize(("item", "expected"), [
    ("- **Test (Zig):** `zig build test`", [("test_command", "zig build test")]),
    ("- Tests (core): `cargo test -p core`", [("test_command", "cargo test -p core")]),
    ("- Ensure all unit tests pass (`go test ./...`)", [("test_command", "go test ./..."), ("verify", None)]),
    ("- **Test (single file):** `pytest tests/test_x.py`", []),  # a qualifier naming one situation
])
def test_a_qualified_test_label_and_a_pass_check_name_the_test_command(item, expected):
    assert kinds(item + "\n") == expected


def test_a_prohibition_with_an_exception_is_no_blanket_ban():
    text = ("- If code outside `macos/` changed, use `zig build -Demit-macos-app=false` to build the library.\n"
            "- Use `macos/build.nu` to build the app, do not use `zig build`\n"
            "  (except to build the underlying library as mentioned above).\n"
            "- Never use `npm`, except when told so.\n- Never run `git push --force`.\n")
    assert [k for k in kinds(text) if k[0] == "forbid_command"] == [("forbid_command", "git push --force")]


def test_numbered_steps_under_a_label_for_one_task_are_that_tasks():
    text = ("- Run unit tests directly with `macos/build.nu --action test`\n"
            "- Test AppleScript support:\n  (1) Build with `macos/build.nu`\n  (2) Launch the app\n")
    assert kinds(text) == [("test_command", "macos/build.nu --action test")]


def test_a_comment_after_one_space_is_not_part_of_the_command():
    # the shell opens a comment where a word starts with `#`, however few spaces come before it
    text = ("## Running tests\n\n```bash\nbuild/release/test/unittest # Fast unit tests\n```\n\n"
            "Run these before committing:\n\n```bash\ngrep -c '# x' notes.txt # count markers\n"
            "make lint#fast\n```\n")
    found = [(d.kind, d.argument) for d in parse(text, "AGENTS.md")]
    assert ("test_command", "build/release/test/unittest") in found
    assert ("run", "grep -c '# x' notes.txt") in found and ("run", "make lint#fast") in found


@pytest.mark.parametrize("sentence", [
    "- Bug-fix-only PRs (`Bug fix? = yes`) must not modify any `CHANGELOG.md`/`UPGRADE.md`.",
    "- Docs-only changes should not touch `src/`.",
    "- Test-only commits must never run `make release`.",
])
def test_a_rule_for_one_kind_of_change_protects_nothing_on_every_change(sentence):
    assert kinds(sentence + "\n") == []


def test_a_rule_for_every_change_still_protects():
    assert kinds("- PRs must not modify `CHANGELOG.md`.\n") == [("protect_path", "CHANGELOG.md")]


@pytest.mark.parametrize("lead", ["When working in this repository", "While developing on this project",
                                  "When working on this codebase"])
def test_working_in_this_repository_is_every_change_not_a_situation(lead):
    text = (f"{lead}, run the following commands to verify your changes.\n\n```bash\n# Test whole repo\nmake test\n\n"
            "# Test individual file you worked on:\nmake test FILE=a_test.py\n\n# Re-run tests on intermittent failure\n"
            "make test-failed\n\nmake lint\n\ncd web\nif out=$(fmt -l .); [ -n \"$out\" ]; then\n  echo bad && exit 1\nfi\n"
            "npm run tsc\ncd ..\n```\n\nThese commands should pass before committing.\n")
    assert kinds(text) == [("test_command", "make test"), ("run", "make lint"), ("run", "npm run tsc"), ("verify", None)]


def test_when_debugging_is_still_a_situation():
    assert kinds("When debugging this repository, run these:\n\n```bash\nmake trace\n```\n") == []


@pytest.mark.parametrize("text", [
    "## Documentation Change Verification Tiers\n\n- **Editorial**: Run `git diff --check` for the changed files.\n",
    "## Docs changes\n\nRun `pnpm docs:build` before committing.\n",
    "- For documentation changes, run `pnpm docs:build`.\n",
    "- When editing docs, run `pnpm docs:build`.\n",
])
def test_checks_for_one_kind_of_change_are_not_every_changes(text):
    assert kinds(text) == []


def test_a_documentation_heading_without_a_kind_of_change_keeps_its_steps():
    assert kinds("## Documentation\n\nRun `pnpm docs:build` before committing.\n") == [("run", "pnpm docs:build")]


def test_a_setup_block_stops_at_a_placeholder_secret_and_skips_services():
    text = ("## Setup\n\n```bash\ndocker compose up -d   # Start PostgreSQL\ncomposer install\n"
            "echo \"API_KEY='sk-...'\" > .env.local\nbin/console app:index\n```\n")
    assert kinds(text) == [("run", "composer install")]


@pytest.mark.parametrize("line", ["export TOKEN=<your-token>", "echo 'KEY=...' > .env", "echo \"KEY='sk-...'\" > .env"])
def test_a_line_with_a_placeholder_value_is_never_a_command(line):
    text = f"Run these before committing:\n\n```bash\n{line}\nmake check\n```\n"
    assert ("run", line) not in kinds(text)


def test_a_range_of_git_revisions_is_not_a_placeholder():
    text = "Run these before committing:\n\n```bash\ngit diff origin/main... --stat\n```\n"
    assert kinds(text) == [("run", "git diff origin/main... --stat")]


def test_validate_before_handoff_lists_the_finishing_steps():
    text = "- Validate before handoff: `pnpm run lint` (SwiftLint), `pnpm run format` (fix), then `pnpm run test:safe`.\n"
    assert kinds(text) == [("test_command", "pnpm run test:safe"), ("run", "pnpm run lint"), ("run", "pnpm run format"),
                           ("verify", None)]


def test_a_ban_for_a_stretch_of_the_work_forbids_nothing():
    """"Avoid `make test` between edits" (both are slow) still leaves them for the end of the task."""
    from instruction_gate.reference_agent.directives import parse
    found = lambda text: [(d.kind, d.argument) for d in parse(text, "AGENTS.md")]  # noqa: E731
    assert found("- Avoid `make typecheck` and `make test` between edits — both are slow.\n") == []
    assert found("- Never run `make deploy` during development.\n") == []
    assert found("- Avoid `make test` while iterating.\n") == []
    assert found("- Avoid `git push --force`.\n") == [("forbid_command", "git push --force")]
