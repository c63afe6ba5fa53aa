"""Which commands the reference agent may run when the instructions ask for them.

Instruction files are untrusted: a candidate may ask for anything. The agent runs only known
programs, each with the subcommands and options that run the project's own (trusted, base-tree)
code, and refuses whatever would run text from elsewhere: inline code, a package fetched from
the network, a command smuggled through configuration (git aliases, pagers and upload-pack,
make variables, cargo and go runners, tox overrides, inline ini and properties), a file outside
the repository (which would also copy the runner's files into the run's transcript), and any
argument that names or globs an instruction file of any agent, or reads arguments from a file
(`@argfile`): that would hand candidate text to a program. The program itself is held to the
same rule: `./AGENTS.md` (or a link to it, `./docs/../CLAUDE.md`) would run the candidate's text.
In the gate's pure-instruction mode the instruction files are the only files a candidate can
change, so every other program path in the repository is base-tree code.
"""

from __future__ import annotations

import fnmatch
import os
import re
from pathlib import Path

from instruction_gate.agents.loading import LoadSettings, names_of
from instruction_gate.reference_agent import build_tools, output_paths, program_rules, runners
from instruction_gate.reference_agent.program_rules import CLUSTERS, CODE_URL, REFUSED, SUBCOMMANDS, is_option

#: Instruction files of every supported agent; names a run loaded (configured fallbacks) are added.
INSTRUCTION_FILE_GLOBS = ("AGENTS*.md", "CLAUDE*.md", "GEMINI*.md", "*.override.md", "CONTEXT.md")
#: Concrete names a glob argument is tried against (`*.md`, `A?ENTS.md`, `[AC]*`).
_KNOWN_NAMES = frozenset({*names_of("all", LoadSettings()), "AGENTS.override.md", "GEMINI.md"})
_PROGRAMS = {"python", "python3", "pytest", "make", "git", "npm", "pnpm", "yarn", "bun", "node", "ruff", "mypy", "pyright",
             "tox", "cargo", "go", "ls", "cat", "echo", "true", "false", "just", "nox",
             *runners.SUBCOMMANDS, *build_tools.ALLOWED}
#: Programs whose `@word` arguments are names (npm scopes, git revisions), not argument files.
_AT_IS_A_NAME = {"git", "npm", "pnpm", "yarn", "bun"}
#: Where a file name can sit inside one argument: `--opt=NAME`, `-p:Prop=NAME`, `a,NAME`, `@NAME`.
_PIECES = re.compile(r"[=,:;@]")


def _outside(arg: str, repo_root: Path, cwd: Path) -> bool:
    """An argument naming a path outside the repository (`/etc/passwd`, `../../x`, `--out=/tmp/y`)."""
    value = arg.split("=", 1)[1] if arg.startswith("-") and "=" in arg else arg
    if not value or value.startswith("-") or "://" in value:
        return False
    if not (value.startswith(("/", "~")) or ".." in Path(value).parts):
        return False
    target = Path(os.path.expanduser(value)) if value.startswith("~") else cwd / value
    return not target.resolve().is_relative_to(repo_root.resolve())


def _instruction_name(base: str, extra_names: frozenset[str]) -> bool:
    """Whether a lower-case base name is, or globs, an instruction file's name."""
    names = {n.lower() for n in _KNOWN_NAMES | extra_names}
    if base in names or any(fnmatch.fnmatch(base, g.lower()) for g in INSTRUCTION_FILE_GLOBS):
        return True
    return any(c in base for c in "*?[") and any(fnmatch.fnmatch(n, base) for n in names)


def names_instruction_file(arg: str, cwd: Path, extra_names: frozenset[str] = frozenset()) -> bool:
    """Whether `arg`, or a piece of it, names or globs an instruction file (any case; a link to
    one counts)."""
    for piece in {arg, *_PIECES.split(arg)}:
        base = os.path.basename(piece.rstrip("/")).lower()
        if not base:
            continue
        if _instruction_name(base, extra_names):
            return True
        target = cwd / piece
        if target.is_symlink() and names_instruction_file(os.path.basename(os.path.realpath(target)), cwd, extra_names):
            return True
    return False


def _program_is_instruction_file(program: str, cwd: Path, extra_names: frozenset[str]) -> bool:
    """Whether the program path, as written, normalised (`docs/../AGENTS.md`) or resolved through
    links at any depth, is an instruction file."""
    spellings = {program, os.path.normpath(program), os.path.realpath(cwd / program)}
    return any(_instruction_name(os.path.basename(s).lower(), extra_names) for s in spellings)


#: Options whose value is the next word, not the subcommand.
_VALUED = {"git": ("-C", "--git-dir", "--work-tree", "--namespace"),
           **dict.fromkeys(("npm", "pnpm", "yarn", "bun"), ("-w", "--workspace", "--filter", "-C", "--dir", "--prefix"))}


def _subcommand(family: str, argv: list[str]) -> str | None:
    args = iter(argv[1:])
    for arg in args:
        if arg in _VALUED.get(family, ()):
            next(args, None)  # the option's value, not the subcommand
        elif family == "git" and arg.startswith("-c"):
            return "-c"  # configuration on the command line can name any program (pager, alias)
        elif not arg.startswith("-"):
            return arg
    return None


def _bun_run_target(argv: list[str]) -> str | None:
    """What `bun run` is asked to run (a script, a file or a package binary: bun tries all three), else None."""
    if _subcommand("bun", argv) != "run":
        return None
    return _subcommand("bun", ["bun", *argv[argv.index("run") + 1:]]) or ""


def _argument_refusal(family: str, arg: str, repo_root: Path, cwd: Path, extra_names: frozenset[str],
                      temp_output: bool = False) -> str | None:
    if any(is_option(arg, option) for option in REFUSED.get(family, ())):
        if family == "pyright":  # a checker's refused options write files, run an interpreter or never end
            return f"{arg} would write files, run another interpreter or never end"
        return f"{arg} would run code that is not the project's"
    if family == "make" and arg.startswith("-") and not arg.startswith("--") and any(f in CLUSTERS["make"] for f in arg[1:]):
        return f"{arg} would read a makefile or code from elsewhere"
    if family in ("node", "npm", "pnpm", "yarn", "bun") and CODE_URL.search(arg):
        return f"{arg} names code by URL (inline, on disk or remote)"
    if family == "git" and (arg.startswith(":") or any(c in arg for c in "*?[")):
        return f"{arg}: git pathspec magic or globs could name instruction files"
    if names_instruction_file(arg, cwd, extra_names):
        return f"{arg} is an instruction file (or a pattern matching one)"
    if arg.startswith("@") and len(arg) > 1 and family not in _AT_IS_A_NAME:
        return f"{arg}: arguments read from a file (@argfile) are not the command the instructions show"
    if not temp_output and _outside(arg, repo_root, cwd):
        return f"{arg} is outside the repository"
    return None


def refusal(argv: list[str], repo_root: Path, cwd: Path, instruction_names: frozenset[str] = frozenset()) -> str | None:
    """Why `argv` must not run, or None when it may. `instruction_names`: base names of the
    instruction files this run loaded (configured fallback names among them)."""
    if not argv:
        return "empty command"
    program = argv[0]
    name = os.path.basename(program)
    family = "python" if name in ("python", "python3") else name
    if program.startswith("~"):
        # no shell expands it, but what the writer means is a home directory: outside the repository
        return f"{program} is in a home directory, outside the repository"
    if "/" in program:
        if _program_is_instruction_file(program, cwd, instruction_names):
            return f"{program} is an instruction file: its text is the candidate's, never a program to run"
        if not (cwd / program).resolve().is_relative_to(repo_root.resolve()):
            return f"{program} is outside the repository"
        family = build_tools.WRAPPERS.get(name, "")  # the project's own script: its arguments are its business
    elif name not in _PROGRAMS:
        return f"{name} is not on the reference agent's allowlist"
    writes, temp_outputs = output_paths.refusal(family, argv, repo_root, cwd)
    for position, arg in enumerate(argv[1:], start=1):
        if why := _argument_refusal(family, arg, repo_root, cwd, instruction_names, position in temp_outputs):
            return why
    if writes:
        return writes
    judge = lambda inner: refusal(inner, repo_root, cwd, instruction_names)  # noqa: E731
    scripts = program_rules.package_scripts(repo_root, cwd) if family in ("pnpm", "yarn", "bun") else set()
    if _subcommand(family, argv) in scripts - (program_rules.BUN_COMMANDS if family == "bun" else set()):
        return program_rules.package_manager(argv)  # `pnpm lint`, `bun lint`: the project's own script
    if family == "bun" and (target := _bun_run_target(argv)) is not None and target not in scripts:
        return f"bun run {target}: only package.json scripts (bun run also runs files and package binaries)"
    if family in SUBCOMMANDS:
        sub = _subcommand(family, argv)
        if sub is not None and sub not in SUBCOMMANDS[family]:
            return f"{name} {sub} is not among the subcommands the reference agent runs"
    if family in runners.SUBCOMMANDS or family in ("just", "nox"):
        return runners.refusal(argv, judge, runners.project_scripts(repo_root))
    if family in build_tools.ALLOWED:
        return build_tools.refusal(family, argv, judge)
    check = program_rules.CHECKS.get(family)
    return check(argv) if check else None
