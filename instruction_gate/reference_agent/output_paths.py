"""Options of allowed runners that write, replace or delete files at a path they are given.

`pytest --junitxml=tests/conftest.py` overwrites the project's conftest and `--basetemp=src`
deletes the folder before the run: an allowed program turned into a way for untrusted
instructions to change the workspace the task is graded in. One rule for every such option:
its path must be new (nothing there yet), inside the repository (`go build -o bin/tool`, a
build output instruction files often ask for) or strictly below the system temp directory. So
nothing that exists is replaced or emptied (pytest empties its basetemp; the temp directory
itself is refused), and nothing is written elsewhere on the machine. Options whose value is not
a path (`--cov-report=term`, a bare `--debug`) pass.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from instruction_gate.reference_agent.program_rules import is_option

_PYTEST = ("--junitxml", "--junit-xml", "--basetemp", "--report-log", "--resultlog", "--result-log", "--html",
           "--json-report-file", "--log-file", "--debug", "--cov-report", "--benchmark-json", "--benchmark-storage")
#: JS test runners reached through `npm test -- …` (jest, vitest, bun test).
_JS = ("--outputFile", "--coverageDirectory", "--cacheDirectory", "--coverage.reportsDirectory", "--coverage-dir",
       "--reporter-outfile")
#: Program family -> its options that take a path to write. Go's flags also take `--name`.
OPTIONS: dict[str, tuple[str, ...]] = {
    "pytest": _PYTEST,
    "tox": ("--workdir", "--result-json", *_PYTEST),  # tox passes `-- …` on to pytest
    "nox": ("--envdir", "--report", *_PYTEST),
    "mypy": ("--junit-xml", "--cache-dir", "--html-report", "--xml-report", "--txt-report", "--linecount-report",
             "--linecoverage-report", "--lineprecision-report", "--any-exprs-report", "--cobertura-xml-report",
             "--xslt-html-report", "--xslt-txt-report"),
    "ruff": ("--output-file", "-o", "--cache-dir"),
    "go": ("-o", "-coverprofile", "-cpuprofile", "-memprofile", "-blockprofile", "-mutexprofile", "-trace",
           "-outputdir", "-pkgdir"),
    "cargo": ("--target-dir", "--artifact-dir", "--out-dir"),
    **dict.fromkeys(("npm", "pnpm", "yarn", "bun"), _JS),
}
#: Options whose value may be absent; then it is a path only when the next word is no option.
_OPTIONAL_VALUE = {"--debug", "--cov-report"}


def _path_of(option: str, value: str | None) -> str | None:
    if value is None:
        return None
    if option == "--cov-report":  # TYPE or TYPE:PATH
        return value.split(":", 1)[1] if ":" in value else None
    return value


def written_paths(family: str, argv: list[str]) -> list[tuple[int, str, str]]:
    """(index of the word holding the path, option, path) for each output-path option in `argv`."""
    found = []
    for position, arg in enumerate(argv[1:], start=1):
        spelled = arg[1:] if family == "go" and arg.startswith("--") else arg
        for option in OPTIONS.get(family, ()):
            go_flag = family == "go" and (spelled == option or spelled.startswith(option + "="))
            if not (go_flag if family == "go" else is_option(spelled, option)):
                continue
            following = argv[position + 1] if position + 1 < len(argv) else None
            if spelled == option:
                if option in _OPTIONAL_VALUE and (following is None or following.startswith("-")):
                    following = None
                where, value = position + 1, following
            else:
                where, value = position, spelled[len(option):].removeprefix("=")
            if (path := _path_of(option, value)) is not None:
                found.append((where, option, path))
    return found


def acceptable(path: str, repo_root: Path, cwd: Path) -> bool:
    """A new path inside the repository or strictly below the temp directory."""
    target = Path(os.path.expanduser(path))
    target = (target if target.is_absolute() else cwd / target).resolve()
    if os.path.lexists(target):
        return False
    temp = Path(tempfile.gettempdir()).resolve()
    return target.is_relative_to(repo_root.resolve()) or (target != temp and target.is_relative_to(temp))


def _module_view(family: str, argv: list[str]) -> tuple[str, list[str], int]:
    """`python -m pytest …` is judged as `pytest …`: (family, argv, offset of that argv in the original)."""
    if family == "python":
        for position, arg in enumerate(argv[1:], start=1):
            if not arg.startswith("-"):
                break  # a script: its arguments are its own
            flags = "" if arg.startswith("--") else arg[1:]
            for index, flag in enumerate(flags):
                if flag in "WX":
                    break  # the rest of the cluster is that option's value
                if flag == "m":
                    inline = flags[index + 1:]
                    rest = argv[position + (1 if inline else 2):]
                    module = (inline or (argv[position + 1] if position + 1 < len(argv) else "")).split(".")[0]
                    return module, [module, *rest], len(argv) - len(rest) - 1
    return family, argv, 0


def refusal(family: str, argv: list[str], repo_root: Path, cwd: Path) -> tuple[str | None, set[int]]:
    """Why an output-path option of `argv` must not run, else None; and the indices of the
    words holding accepted paths (a temp path is outside the repository by design)."""
    accepted = set()
    family, argv, offset = _module_view(family, argv)
    for where, option, path in written_paths(family, argv):
        if not acceptable(path, repo_root, cwd):
            return (f"{option} {path}: writes or deletes files at that path (only a new path, in the repository or "
                    f"under the system temp directory, is allowed)"), set()
        accepted.add(where + offset)
    return None, accepted
