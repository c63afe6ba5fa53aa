"""What text in backticks is: a command to run, or a flag, path, variable, name or code.

Instruction files name many things in backticks; the reference agent runs only commands, and
only the ones meant for every change (not placeholders, not one-test variants).
"""

from __future__ import annotations

import re
import shlex

from instruction_gate.lint import placeholders

_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
#: Code, not a command: a statement keyword first, or a call / block / comparison inside.
_CODE_STATEMENT = re.compile(r"(?:assert|import|from|def|class|return|raise|async|await|const|let|var|function|fn|"
                             r"pub|use|impl|struct|type|interface|export|if|for|while|with|except|try|finally|"
                             r"lambda|yield|elif|else|not|pass|del|print|self|this|new)\b")
_CODE_SHAPE = re.compile(r"\w\(|[{};]|==|!=|=>|->|\)\s*$")
#: Files named alone are documents or data, not programs (`uv.lock`, `pyproject.toml`).
_DATA_FILE = re.compile(r"(?i)\.(?:lock|toml|json|jsonc|ya?ml|cfg|ini|md|mdx|rst|txt|csv|xml|html?|css|env|sql|"
                        r"proto|snap|log)$")
#: Directories whose files are programs (`bin/test`, `scripts/check`, `vendor/bin/phpunit`, `build/debug/unittest`).
_SCRIPT_DIR = re.compile(r"^(?:\.{1,2}/|(?:[\w.-]+/)*(?:bin|sbin|scripts?|tools|dev|hack|ci|build|\.bin|target|out)/)")
#: Source files: a program when given as a path (`scripts/check.py`), a mention when named alone.
_SOURCE_FILE = re.compile(r"(?i)\.(?:py|ts|tsx|js|mjs|cjs|jsx|rs|go|java|kt|rb|c|h|cpp|hpp|cs|swift)$")
#: Programs that are commands when named alone (one word in backticks).
_LONE_PROGRAMS = frozenset({
    "pytest", "make", "tox", "nox", "just", "ruff", "mypy", "pyright", "black", "isort", "flake8", "pylint",
    "npm", "pnpm", "yarn", "bun", "deno", "jest", "vitest", "eslint", "prettier", "tsc", "biome", "cargo",
    "go", "gofmt", "golangci-lint", "gradle", "mvn", "bazel", "cmake", "ctest", "ninja", "rake", "rspec",
    "bundle", "composer", "phpunit", "dotnet", "swift", "mix", "uv", "poetry", "hatch", "pdm", "pre-commit",
    "prek", "lefthook", "turbo", "nx", "lerna", "zig", "stack", "cabal", "dune", "sbt", "lein", "tflint",
    "webpack", "vite", "rollup", "esbuild", "parcel", "mocha", "karma", "jasmine", "nose2",
})


#: Programs whose arguments may look like code (`python -c 'print(1)'`): known commands anyway.
_SHELL_PROGRAMS = _LONE_PROGRAMS | frozenset({
    "python", "python3", "node", "npx", "pnpx", "uvx", "pipx", "pip", "pip3", "git", "gh", "docker", "kubectl",
    "terraform", "helm", "sh", "bash", "zsh", "rm", "cp", "mv", "curl", "wget", "ls", "cat", "echo", "sudo",
    "apt", "apt-get", "brew", "rustup", "cargo-nextest", "coverage", "alembic", "django-admin",
})


def is_command(code: str) -> bool:
    """Whether text in backticks is something to run, not a flag, a path, a variable or code.

    `PYTHONWARNDEFAULTENCODING=1`, `--fail-under=0`, `tests/`, `uv.lock`, `strict-no-cover` and
    `assert isinstance(x, T)` are not; `make test`, `./scripts/test`, `CI=1 npm test` are.
    """
    try:
        tokens = shlex.split(code.strip())
    except ValueError:
        return False
    while tokens and _ASSIGNMENT.match(tokens[0]):  # `CI=1 npm test`: the command follows
        tokens = tokens[1:]
    if not tokens:
        return False
    first = tokens[0]
    if _ARITY.search(first) or _HOST_PATH.match(first) or _SLASH_COMMAND.match(first):
        return False  # `GenServer.call/3`, `mise.jdx.dev/backends/x`, `/deploy`: a function, a URL, a chat command
    if first in _SHELL_PROGRAMS or first.startswith(("./", "../")) and not first.endswith("/"):
        return True
    if first.startswith(("-", "<", "[", "@", "#", "$")) or first.endswith("/") or \
            _CODE_STATEMENT.match(code.strip()) or _CODE_SHAPE.search(code):
        return False
    if _DATA_FILE.search(first) or _SOURCE_FILE.search(first) and "/" not in first:
        return False
    if len(tokens) == 1 and "/" not in first:
        return False  # one unknown word: a name (`strict-no-cover`, `tests`), not a program to run
    if len(tokens) == 1 and not _SCRIPT_DIR.match(first) and not _SOURCE_FILE.search(first) and "." not in first.rsplit("/", 1)[-1]:
        return False  # `tests/ci`, `src/app`: a directory or a module named alone, not a script to run
    return bool(re.fullmatch(r"[\w.+~/-]+", first))


#: Placeholders: a command to adapt, not to run as written (`uv run <script>`, `path/to/test.py`,
#: `./gradlew :module-name:test`; an option such as `--test-name-pattern` is no placeholder).
_PLACEHOLDER = re.compile(r"<[^>]*>|(?<![-\w])[a-z]+[-_]name(?![-\w])|(?<![.\w])\[[^\]]*\]|\{[^}]*\}|\bpath/to\b|(?:^|\s)\.\.\.(?:\s|$)|/\.\.\./|\byour[-_]|"
                          r"\bmy[-_]test|\bfoo\b|\bxxx\b")
#: Options and arguments that pick one test out of the suite: a variant, not the test command.
_ONE_TEST = re.compile(r"(?:^|\s)(?:-k|-run|--grep|-t|--test-name-pattern|--filter-test|--filter-method|"
                       r"--filter-class|--filter-namespace)(?:\s|=)|::|:\d+(?:\s|$)"
                       r"|\bdotnet\s+test\b.*\s--filter\s"  # pnpm's --filter picks a package, dotnet's the tests
                       r"|\s\S*(?:_test|test_|\.test|\.spec|_spec)\S*\.(?:py|exs|ts|js|go|rb)\b"
                       r"|\s\S+\.(?:csproj|fsproj|vbproj)\b")  # one test project of a .NET solution
#: A name with an arity or a member access (`GenServer.call/3`, `dbg/1`): code, not a program path.
_ARITY = re.compile(r"/\d+$")
_HOST_PATH = re.compile(r"^[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}/", re.IGNORECASE)
#: `/quarantine-test`, `/azp run`: a command typed into a pull-request comment or a chat, not a program
#: (a program at the file system's root would have a directory: `/usr/bin/env`).
_SLASH_COMMAND = re.compile(r"^/[A-Za-z][\w-]*$")
#: Windows-only scripts and shells: the Windows form of a step (`./build.cmd`), not runnable here.
_WINDOWS_ONLY = re.compile(r"(?i)^(?:\S*\.(?:cmd|bat|ps1)|powershell(?:\.exe)?|pwsh|cmd(?:\.exe)?)$")


#: Tools that, named alone, do not do a job: run with no arguments they print help, wait on stdin or open a
#: REPL (`gofmt`, `prettier`, `cargo`, `python`). "Use `gofmt` to format code" names a tool, not a command;
#: `pytest`, `make`, `tox`, `tsc` or `ls` alone do what they are for.
_NEEDS_ARGUMENTS = frozenset({
    "gofmt", "prettier", "ruff", "black", "isort", "pylint", "mypy", "biome", "golangci-lint", "eslint",
    "cargo", "go", "npm", "pnpm", "bun", "deno", "uv", "poetry", "hatch", "pdm", "composer", "dotnet", "swift",
    "zig", "stack", "cabal", "dune", "sbt", "lein", "gradle", "mvn", "bazel", "cmake", "rustup", "git", "gh",
    "docker", "kubectl", "terraform", "helm", "pip", "pip3", "python", "python3", "node", "npx", "uvx",
    "pipx", "vite", "rollup", "esbuild", "parcel", "karma", "turbo", "nx", "lerna", "rustfmt", "clang-format",
})


#: Plugins of a program that, named with no subcommand of their own, print help (`cargo nextest` needs `run`).
_NEEDS_A_SUBCOMMAND = frozenset({("cargo", "nextest"), ("cargo", "insta"), ("cargo", "hack"), ("go", "tool"),
                                 ("dotnet", "tool"), ("npm", "run"), ("pnpm", "run"), ("yarn", "run"), ("bun", "run"),
                                 ("uv", "run"), ("poetry", "run"), ("hatch", "run"), ("pdm", "run")})


def names_a_tool_only(code: str) -> bool:
    """A bare program name with nothing after it that, run so, does not do the job (`gofmt`, `ruff`),
    or a plugin or runner named without the subcommand it needs (`cargo nextest`, `uv run`)."""
    tokens = code.split()
    return (len(tokens) == 1 and tokens[0] in _NEEDS_ARGUMENTS) or (len(tokens) == 2 and tuple(tokens) in _NEEDS_A_SUBCOMMAND)


def is_known_program(word: str) -> bool:
    """A tool named bare in prose ("never npm, pnpm or jest"): only the programs known by name count."""
    return word.lower() in _SHELL_PROGRAMS


def runnable_as_written(code: str) -> bool:
    """A command that is meant to be run as it stands: no placeholder to fill in, not Windows-only,
    not a tool named alone that needs arguments to do anything."""
    return (is_command(code) and not _PLACEHOLDER.search(code) and not placeholders.GENERIC_SEGMENT.search(code)
            and not windows_only(code) and not names_a_tool_only(code))


def windows_only(code: str) -> bool:
    """`./build.cmd`, `scripts\\check.ps1`, `powershell -File x`: the Windows form of a step."""
    try:
        tokens = shlex.split(code.strip(), posix=False)
    except ValueError:
        return False
    return bool(tokens) and bool(_WINDOWS_ONLY.match(tokens[0]))


#: Words that, as a whole word of a command, run a test suite: `make test`, `npm test`, `uv run pytest`.
_SUITE_WORDS = frozenset({"test", "tests", "pytest", "rspec", "jest", "vitest", "phpunit"})


def runs_the_suite(code: str) -> bool:
    """Whether a command is shaped like the whole test suite (`make test`, `cargo test`, `go test ./...`),
    not one test of it."""
    words = code.split()
    # `test -f go.work || go work init`: `test` as the program is the shell's file test
    # (`vendor/bin/phpunit`, `bin/test`: the runner by its name, wherever it is installed)
    names = {w.rsplit("/", 1)[-1] for w in words}
    return bool(words) and words[0] not in ("test", "[") and bool(_SUITE_WORDS.intersection(names)) and \
        not picks_one_test(code) and not re.search(r"&&|\|\||[|;]", code)


def picks_one_test(code: str) -> bool:
    """Whether a test command selects particular tests (`-k name`, `file::test`, `x_test.exs:12`)."""
    return bool(_ONE_TEST.search(" " + code))
