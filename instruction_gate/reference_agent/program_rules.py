"""Per-program rules of the command policy for interpreters, make, git, JS package managers,
cargo, go and pytest: the subcommands and options that run the project's own code.

`command_policy.refusal` applies them; `build_tools` holds the other ecosystems' runners.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Callable

#: Subcommands that read the repository or run its own code; any other is refused.
SUBCOMMANDS = {
    "git": {"status", "diff", "log", "show", "add", "commit", "restore", "checkout", "switch", "branch",
            "stash", "rev-parse", "ls-files", "grep", "blame", "reset", "mv", "rm", "tag"},
    "npm": {"test", "t", "run", "run-script", "start", "ci", "install", "i", "ls"},
    "pnpm": {"test", "t", "run", "start", "install", "i", "ls"},
    "yarn": {"test", "run", "start", "install"},
    # Bun: its own test runner over the project's test files, `bun run <package.json script>`, and
    # installs from the lockfile; never `bun x`/`bun add`, and `bun run` of a file (command_policy).
    "bun": {"test", "run", "install", "i"},
    "cargo": {"test", "build", "check", "clippy", "fmt", "run", "doc", "bench"},
    "go": {"test", "build", "vet", "fmt", "run", "generate", "list"},
}
#: Options (any position) that run code that is not the project's, or set its configuration
#: inline; `--long=value` and `-Xvalue` spellings count. Short options of programs that accept
#: clusters (`-Bc`) are in CLUSTERS.
REFUSED = {
    # --output writes text of the git objects (instruction files, commit messages) into a file
    # another command could then run.
    "git": ("--upload-pack", "--receive-pack", "--exec", "-O", "--open-files-in-pager", "--config-env", "--exec-path",
            "--output"),
    "node": ("--eval", "--print", "--require", "--import", "--loader", "--experimental-loader",
             "--inspect", "--inspect-brk", "--inspect-wait", "--inspect-port"),
    "make": ("--file", "--makefile", "--eval"),
    # a static checker: --pythonpath runs the interpreter it names, --createstub/--writebaseline write
    # files, --watch never ends
    "pyright": ("--pythonpath", "--createstub", "--writebaseline", "--watch", "-w"),
    "tox": ("-x", "--override", "--installpkg", "-c", "--conf"),
    # -c/--config-file pick another ini, -o sets one inline, --rootdir moves where it is looked
    # for, -p loads a plugin by name, --doctest-glob runs text files (instruction files) as doctests.
    "pytest": ("-o", "--override-ini", "-c", "--config-file", "--rootdir", "--confcutdir", "--doctest-glob"),
    "cargo": ("--config", "-Z"),
    "go": ("-exec", "-toolexec", "-overlay", "-modfile"),
}
#: Short flags that, anywhere in a cluster such as `-Bc` or `-kf`, take inline code or a foreign
#: file; read only up to the script (python, node), whose own arguments follow it.
CLUSTERS = {"python": "c", "node": "epr", "make": "fE"}
#: `python -m` modules that run tests, linters or type checkers over the project. Not doctest:
#: it runs any text file it is given, instruction files included.
_PYTHON_MODULES = {"pytest", "unittest", "compileall", "py_compile", "mypy", "ruff", "black",
                   "flake8", "pylint", "tox", "nox"}
#: Package-manager options that only shape output or which workspace runs; any other option
#: before `--` is refused (npm takes any `--key=value` as configuration: registry, shell, node options).
_PACKAGE_OPTIONS = {"-s", "--silent", "-q", "--quiet", "--if-present", "-w", "--workspace", "--workspaces", "--ws",
                    "--no-audit", "--no-fund", "--prefer-offline", "--offline", "--frozen-lockfile",
                    "--ignore-scripts", "--include-workspace-root", "-r", "--recursive", "--filter"}


def is_option(arg: str, option: str) -> bool:
    if option.startswith("--") or len(option) > 2:
        return arg == option or arg.startswith(option + "=")
    return arg.startswith(option) and not arg.startswith("--")


#: pnpm's and yarn's own commands win over a script of the same name: never a shorthand.
_MANAGER_COMMANDS = {"add", "dlx", "exec", "x", "create", "init", "remove", "rm", "up", "update", "upgrade", "link",
                     "unlink", "publish", "patch", "patch-commit", "setup", "env", "store", "config", "set", "global",
                     "import", "rebuild", "prune", "why", "outdated", "audit", "licenses", "deploy", "pack", "node",
                     "dedupe", "fetch", "self-update", "plugin", "npm", "workspace", "workspaces", "info", "cache",
                     "policies", "constraints", "version", "stage", "unplug", "bin", "explain", "search", "root",
                     "doctor", "login", "logout", "owner", "tag", "team", "generate-lock-entry", "upgrade-interactive"}


#: Bun's own commands, which win over a script of the same name (`bun build` bundles, whatever "build" says).
BUN_COMMANDS = {"build", "x", "exec", "repl", "pm", "create", "init", "add", "a", "remove", "rm", "update", "link",
                "unlink", "publish", "install", "i", "upgrade", "outdated", "patch", "audit", "info", "why", "test",
                "run", "completions", "feedback", "ci"}


def package_scripts(repo_root: Path, cwd: Path) -> set[str]:
    """Script names of the package.json in `cwd` (else the repository root): base-tree files,
    so `pnpm lint` / `yarn lint` run the project's own script. Names of the managers' own
    commands are left out: `pnpm dlx` runs pnpm's dlx even when a script is called so."""
    for directory in (cwd, repo_root):
        try:
            scripts = json.loads((directory / "package.json").read_text(encoding="utf-8")).get("scripts")
        except (OSError, ValueError, AttributeError):
            continue
        return set(scripts) - _MANAGER_COMMANDS if isinstance(scripts, dict) else set()
    return set()


def interpreter_options(family: str, argv: list[str]) -> str | None:
    """python and node: their own options come before the script (or `-m module`)."""
    for position, arg in enumerate(argv[1:], start=1):
        if not arg.startswith("-"):
            return None  # the script; what follows are its own arguments
        if arg.startswith("--"):
            continue
        for index, flag in enumerate(arg[1:]):
            if family == "python" and flag in "WX":
                break  # the rest of the cluster is the option's value
            if flag in CLUSTERS[family]:
                return f"{arg} would run code given inline or from another file"
            if family == "python" and flag == "m":
                inline = bool(arg[2 + index:])
                module = arg[2 + index:] or (argv[position + 1] if position + 1 < len(argv) else "")
                if module.split(".")[0] not in _PYTHON_MODULES:
                    return f"python -m {module} is not a test, lint or type-check module"
                # The module's own arguments follow: judged as if the module were the program.
                rest = argv[position + (1 if inline else 2):]
                return module_options(module.split(".")[0], rest)
    return None


def module_options(module: str, args: list[str]) -> str | None:
    for arg in args:
        if any(is_option(arg, option) for option in REFUSED.get(module, ())):
            return f"{arg} would run code that is not the project's"
    return pytest([module, *args]) if module == "pytest" else None


def make(argv: list[str]) -> str | None:
    assignment = next((a for a in argv[1:] if "=" in a and not a.startswith("-")), None)
    return f"{assignment}: make variables on the command line can replace a recipe's commands" if assignment else None


def package_manager(argv: list[str]) -> str | None:
    own = argv[1:argv.index("--")] if "--" in argv else argv[1:]  # after `--`: the script's arguments
    foreign = next((a for a in own if a.startswith("-") and a.split("=", 1)[0] not in _PACKAGE_OPTIONS), None)
    if foreign:
        return f"{foreign}: {argv[0]} reads options as configuration (registry, shell, node options)"
    words = [a for a in own if not a.startswith("-")]
    after = argv[argv.index("--") + 1:] if "--" in argv else []
    if words and words[0] in ("install", "i", "ci") and (len(words) > 1 or after):
        return f"{argv[0]} {words[0]} with package names fetches code the project does not pin"
    return None


def go(argv: list[str]) -> str | None:
    fetched = next((a for a in argv[2:] if "@" in a and not a.startswith("-")), None)
    return f"{fetched}: go would fetch and run a module from the network" if fetched else None


def pytest(argv: list[str]) -> str | None:
    for position, arg in enumerate(argv[1:], start=1):
        if arg.startswith("-p") and not arg.startswith("--"):
            plugin = arg[2:] or (argv[position + 1] if position + 1 < len(argv) else "")
            if not plugin.startswith("no:"):
                return f"-p {plugin}: loading a plugin by name runs code that is not the project's"
    return None


CHECKS: dict[str, Callable[[list[str]], str | None]] = {
    "python": lambda argv: interpreter_options("python", argv),
    "node": lambda argv: interpreter_options("node", argv), "make": make, "npm": package_manager,
    "pnpm": package_manager, "yarn": package_manager, "bun": package_manager, "go": go, "pytest": pytest,
}
#: URL schemes that name code to load (`data:` inline, `file:` anywhere on disk, remote modules).
CODE_URL = re.compile(r"(?i)\b(?:data|file|https?|blob|node):")
