from instruction_gate.reference_agent.plan import build_plan, command_matches


def plan_of(files, documents=None, skip=lambda d: False):
    documents = documents or {}
    return build_plan(files, documents.get, skip)


def test_prohibition_beats_a_command_in_any_order():
    plan = plan_of([("AGENTS.md", "- Never run `pytest`.\n- Run the tests with `python -m pytest -q` before finishing.\n")])
    assert plan.test is not None and plan.verify
    assert plan.prohibition_for(plan.test.text).line == 1


def test_deeper_file_overrides_the_root_test_command():
    plan = plan_of([("AGENTS.md", "Run the tests with `python -m pytest -q` before finishing.\n"),
                    ("services/payments/AGENTS.override.md", "Run the payments tests with `make test-payments`.\n")])
    assert (plan.test.text, plan.test.cwd) == ("make test-payments", "services/payments")


def test_later_line_beats_earlier_line():
    plan = plan_of([("AGENTS.md", "Run the tests with `tox`.\nRun the tests with `nox`.\n")])
    assert plan.test.text == "nox"


def test_read_opens_document_once_relative_to_its_file():
    plan = plan_of([("sub/AGENTS.md", "Read `GUIDE.md`. Read `GUIDE.md` again.\n")],
                   {"sub/GUIDE.md": "Always run `make lint`.\nRead `../AGENTS.md`.\n"})
    assert plan.documents == ["sub/GUIDE.md"]
    assert [(c.text, c.source) for c in plan.run] == [("make lint", "sub/GUIDE.md")]


def test_read_never_leaves_the_repository():
    opened = []
    build_plan([("AGENTS.md", "Read `../secrets.md`.\n")], lambda p: opened.append(p), lambda d: False)
    assert opened == []


def test_paths_are_relative_to_the_declaring_file():
    present = {"services/payments/migrations/0001.sql", "migrations/0001.sql"}
    plan = build_plan([("services/payments/AGENTS.override.md", "Do not edit `migrations/0001.sql`.\n"
                        "Ask for approval before editing `schema/**`.\n")], {}.get, exists=present.__contains__)
    assert plan.is_protected("services/payments/migrations/0001.sql")
    assert not plan.is_protected("migrations/0001.sql")  # it exists where the file is: that one is meant
    assert plan.needs_edit_approval("services/payments/schema/a.py")


def test_a_nested_files_path_only_the_root_has_is_the_roots():
    present = {"go/ai/gen.go", "go/ai", "go", "bin/fmt", "bin", "macos/build.nu", "macos"}
    files = [("go/GEMINI.md", "- Do not edit `go/ai/gen.go`.\n- Never modify `gen/*.go`.\n- Always run `bin/fmt`.\n"),
             ("macos/AGENTS.md", "- Run unit tests directly with `macos/build.nu --action test`\n")]
    plan = build_plan(files, {}.get, exists=present.__contains__)
    assert plan.is_protected("go/ai/gen.go") and not plan.is_protected("go/go/ai/gen.go")
    # in neither place: both spellings are protected
    assert plan.is_protected("go/gen/x.go") and plan.is_protected("gen/x.go")
    assert [(c.text, c.cwd) for c in plan.run] == [("bin/fmt", ".")]
    assert (plan.test.text, plan.test.cwd) == ("macos/build.nu --action test", ".")


def test_a_program_the_files_directory_has_runs_there():
    present = {"tools/bin/check", "bin/check"}
    plan = build_plan([("tools/AGENTS.md", "- Always run `bin/check --all`.\n")], {}.get, exists=present.__contains__)
    assert [(c.text, c.cwd) for c in plan.run] == [("bin/check --all", "tools")]


def test_skipped_directives_are_not_followed():
    plan = plan_of([("AGENTS.md", "Never run `pytest`.\nRun `make lint`.\n")], skip=lambda d: d.kind == "forbid_command")
    assert plan.prohibition_for("pytest -q") is None
    assert [d.kind for d in plan.skipped] == ["forbid_command"]


def test_command_match_is_by_whole_words():
    assert command_matches("python -m pytest -q", "pytest")
    assert command_matches("make db:migrate", "make db:migrate")
    assert not command_matches("python -m pytest_cov", "pytest")
    assert not command_matches("make test-payments", "make test")


def test_a_step_said_twice_runs_once():
    plan = plan_of([("AGENTS.md", "- Always run `./setup.sh` first.\n- **Setup**: run `./setup.sh` first.\n"
                                  "- Always run `make lint` after editing.\n"),
                    ("sub/AGENTS.md", "- Always run `make lint` after editing.\n")])
    assert [(c.text, c.cwd, c.line) for c in plan.run] == [("./setup.sh", ".", 1), ("make lint", ".", 3),
                                                          ("make lint", "sub", 1)]


def test_a_glob_in_a_nested_file_is_resolved_by_its_literal_directories():
    present = {"docs", "go/src", "go", "schema"}
    files = [("go/AGENTS.md", "- Do not edit `*.md`.\n- Never modify `src/**`.\n- Never change `schema/*.json`.\n")]
    plan = build_plan(files, {}.get, exists=present.__contains__)
    assert plan.protected_globs == ["go/*.md", "go/src/**", "schema/*.json"]


def test_a_bare_document_name_in_a_nested_file_is_that_directorys_own():
    exists = {"CONTRIBUTING.md", "docs/style.md"}.__contains__
    files = [("vendor/lib/AGENTS.md", "- Read `CONTRIBUTING.md` before changing code.\n- Read `docs/style.md` first.\n")]
    documents = {"CONTRIBUTING.md": "- Always run `make lint`.\n", "docs/style.md": "- Always run `make fmt`.\n"}
    plan = build_plan(files, documents.get, exists=exists)
    # the vendored package's CONTRIBUTING.md is not the root's; a root-relative path with a directory still is
    assert plan.documents == ["docs/style.md"]
    assert [c.text for c in plan.run] == ["make fmt"]
