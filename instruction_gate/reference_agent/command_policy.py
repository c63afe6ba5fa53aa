"""Which commands the reference agent may run when the instructions ask for them.

Instruction files are untrusted: a candidate may ask for anything. The agent runs only known
programs, each with the subcommands and options that run the project's own (trusted, base-tree)
code, and refuses whatever would run text from elsewhere: inline code, a package fetched from
the network, a command smuggled through configuration (git aliases, pagers and upload-pack,
make variables, cargo and go runners, tox overrides), or a file outside the repository (which
would also copy the runner's files into the run's transcript).
"""

from __future__ import annotations

import fnmatch
import os
import re
from pathlib import Path
from typing import Callable

from instruction_gate.reference_agent import runners

#: Instruction files may never be handed to a program: that would execute candidate text.
INSTRUCTION_FILE_GLOBS = ("AGENTS*.md", "CLAUDE*.md", "*.override.md")
_PROGRAMS = {"python", "python3", "pytest", "make", "git", "npm", "pnpm", "yarn", "node", "ruff", "mypy",
             "tox", "cargo", "go", "ls", "cat", "echo", "true", "false", *runners.SUBCOMMANDS, "just", "nox"}
#: Subcommands that read the repository or run its own code; any other is refused.
_SUBCOMMANDS = {
    "git": {"status", "diff", "log", "show", "add", "commit", "restore", "checkout", "switch", "branch",
            "stash", "rev-parse", "ls-files", "grep", "blame", "reset", "mv", "rm", "tag"},
    "npm": {"test", "t", "run", "run-script", "start", "ci", "install", "i", "ls"},
    "pnpm": {"test", "t", "run", "start", "install", "i", "ls"},
    "yarn": {"test", "run", "start", "install"},
    "cargo": {"test", "build", "check", "clippy", "fmt", "run", "doc", "bench"},
    "go": {"test", "build", "vet", "fmt", "run", "generate", "list"},
}
#: Options (any position) that run code that is not the project's; `--long=value` and `-Xvalue`
#: spellings count. Short options of programs that accept clusters (`-Bc`) are in _CLUSTERS.
_REFUSED = {
    # --output writes text of the git objects (instruction files, commit messages) into a file
    # another command could then run.
    "git": ("--upload-pack", "--receive-pack", "--exec", "-O", "--open-files-in-pager", "--config-env", "--exec-path",
            "--output"),
    "node": ("--eval", "--print", "--require", "--import", "--loader", "--experimental-loader",
             "--inspect", "--inspect-brk", "--inspect-wait", "--inspect-port"),
    "make": ("--file", "--makefile", "--eval"),
    "tox": ("-x", "--override", "--installpkg"),
    "pytest": ("-o", "--override-ini"),
    "cargo": ("--config", "-Z"),
    "go": ("-exec", "-toolexec", "-overlay", "-modfile"),
}
#: Short flags that, anywhere in a cluster such as `-Bc` or `-kf`, take inline code or a foreign
#: file; read only up to the script (python, node), whose own arguments follow it.
_CLUSTERS = {"python": "c", "node": "epr", "make": "fE"}
#: `python -m` modules that run tests, linters or type checkers over the project.
_PYTHON_MODULES = {"pytest", "unittest", "doctest", "compileall", "py_compile", "mypy", "ruff", "black",
                   "flake8", "pylint", "tox", "nox"}
#: Package-manager options that only shape output or which workspace runs; any other option
#: before `--` is refused (npm takes any `--key=value` as configuration: registry, shell, node options).
_PACKAGE_OPTIONS = {"-s", "--silent", "-q", "--quiet", "--if-present", "-w", "--workspace", "--workspaces", "--ws",
                    "--no-audit", "--no-fund", "--prefer-offline", "--offline", "--frozen-lockfile",
                    "--ignore-scripts", "--include-workspace-root", "-r", "--recursive"}


def _is_option(arg: str, option: str) -> bool:
    if option.startswith("--") or len(option) > 2:
        return arg == option or arg.startswith(option + "=")
    return arg.startswith(option) and not arg.startswith("--")


#: URL schemes that name code to load (`data:` inline, `file:` anywhere on disk, remote modules).
_CODE_URL = re.compile(r"(?i)\b(?:data|file|https?|blob|node):")


def _outside(arg: str, repo_root: Path, cwd: Path) -> bool:
    """An argument naming a path outside the repository (`/etc/passwd`, `../../x`, `--out=/tmp/y`)."""
    value = arg.split("=", 1)[1] if arg.startswith("-") and "=" in arg else arg
    if not value or value.startswith("-") or "://" in value:
        return False
    if not (value.startswith(("/", "~")) or ".." in Path(value).parts):
        return False
    target = Path(os.path.expanduser(value)) if value.startswith("~") else cwd / value
    return not target.resolve().is_relative_to(repo_root.resolve())


def _subcommand(family: str, argv: list[str]) -> str | None:
    args = iter(argv[1:])
    for arg in args:
        if family == "git" and arg in ("-C", "--git-dir", "--work-tree", "--namespace"):
            next(args, None)  # the option's value, not the subcommand
        elif family == "git" and arg.startswith("-c"):
            return "-c"  # configuration on the command line can name any program (pager, alias)
        elif not arg.startswith("-"):
            return arg
    return None


def _interpreter_options(family: str, argv: list[str]) -> str | None:
    """python and node: their own options come before the script (or `-m module`)."""
    for position, arg in enumerate(argv[1:], start=1):
        if not arg.startswith("-"):
            return None  # the script; what follows are its own arguments
        if arg.startswith("--"):
            continue
        for index, flag in enumerate(arg[1:]):
            if family == "python" and flag in "WX":
                break  # the rest of the cluster is the option's value
            if flag in _CLUSTERS[family]:
                return f"{arg} would run code given inline or from another file"
            if family == "python" and flag == "m":
                inline = bool(arg[2 + index:])
                module = arg[2 + index:] or (argv[position + 1] if position + 1 < len(argv) else "")
                if module.split(".")[0] not in _PYTHON_MODULES:
                    return f"python -m {module} is not a test, lint or type-check module"
                # The module's own arguments follow: judged as if the module were the program.
                rest = argv[position + (1 if inline else 2):]
                return _module_options(module.split(".")[0], rest)
    return None


def _module_options(module: str, args: list[str]) -> str | None:
    for arg in args:
        if any(_is_option(arg, option) for option in _REFUSED.get(module, ())):
            return f"{arg} would run code that is not the project's"
    return _pytest([module, *args]) if module == "pytest" else None


def _make(argv: list[str]) -> str | None:
    assignment = next((a for a in argv[1:] if "=" in a and not a.startswith("-")), None)
    return f"{assignment}: make variables on the command line can replace a recipe's commands" if assignment else None


def _package_manager(argv: list[str]) -> str | None:
    own = argv[1:argv.index("--")] if "--" in argv else argv[1:]  # after `--`: the script's arguments
    foreign = next((a for a in own if a.startswith("-") and a.split("=", 1)[0] not in _PACKAGE_OPTIONS), None)
    if foreign:
        return f"{foreign}: {argv[0]} reads options as configuration (registry, shell, node options)"
    words = [a for a in own if not a.startswith("-")]
    after = argv[argv.index("--") + 1:] if "--" in argv else []
    if words and words[0] in ("install", "i", "ci") and (len(words) > 1 or after):
        return f"{argv[0]} {words[0]} with package names fetches code the project does not pin"
    return None


def _go(argv: list[str]) -> str | None:
    fetched = next((a for a in argv[2:] if "@" in a and not a.startswith("-")), None)
    return f"{fetched}: go would fetch and run a module from the network" if fetched else None


def _pytest(argv: list[str]) -> str | None:
    for position, arg in enumerate(argv[1:], start=1):
        if arg.startswith("-p") and not arg.startswith("--"):
            plugin = arg[2:] or (argv[position + 1] if position + 1 < len(argv) else "")
            if not plugin.startswith("no:"):
                return f"-p {plugin}: loading a plugin by name runs code that is not the project's"
    return None


_CHECKS: dict[str, Callable[[list[str]], str | None]] = {
    "python": lambda argv: _interpreter_options("python", argv),
    "node": lambda argv: _interpreter_options("node", argv), "make": _make, "npm": _package_manager, "pnpm": _package_manager,
    "yarn": _package_manager, "go": _go, "pytest": _pytest,
}


def refusal(argv: list[str], repo_root: Path, cwd: Path) -> str | None:
    """Why `argv` must not run, or None when it may."""
    if not argv:
        return "empty command"
    program = argv[0]
    name = os.path.basename(program)
    family = "python" if name in ("python", "python3") else name
    if "/" in program:
        if not (cwd / program).resolve().is_relative_to(repo_root.resolve()):
            return f"{program} is outside the repository"
        family = ""  # the project's own script: its arguments are its business
    elif name not in _PROGRAMS:
        return f"{name} is not on the reference agent's allowlist"
    for arg in argv[1:]:
        if any(_is_option(arg, option) for option in _REFUSED.get(family, ())):
            return f"{arg} would run code that is not the project's"
        if family == "make" and arg.startswith("-") and not arg.startswith("--") \
                and any(flag in _CLUSTERS["make"] for flag in arg[1:]):
            return f"{arg} would read a makefile or code from elsewhere"
        if family in ("node", "npm", "pnpm", "yarn") and _CODE_URL.search(arg):
            return f"{arg} names code by URL (inline, on disk or remote)"
        if family == "git" and (arg.startswith(":") or any(c in arg for c in "*?[")):
            return f"{arg}: git pathspec magic or globs could name instruction files"
        if any(fnmatch.fnmatch(os.path.basename(arg), g) for g in INSTRUCTION_FILE_GLOBS):
            return f"{arg} is an instruction file"
        if _outside(arg, repo_root, cwd):
            return f"{arg} is outside the repository"
    if family in _SUBCOMMANDS:
        sub = _subcommand(family, argv)
        if sub is not None and sub not in _SUBCOMMANDS[family]:
            return f"{name} {sub} is not among the subcommands the reference agent runs"
    if family in runners.SUBCOMMANDS or family in ("just", "nox"):
        return runners.refusal(argv, lambda inner: refusal(inner, repo_root, cwd), runners.project_scripts(repo_root))
    check = _CHECKS.get(family)
    return check(argv) if check else None
