"""Command-line entry: one subcommand per module in `commands/`, one error handler.

Each command module exposes `add_arguments(parser)` and `run(args) -> int`.
Modules are imported lazily so a light command never pays for scipy.
"""

from __future__ import annotations

import argparse
import importlib
import os
import select
import sys
from typing import Sequence

from instruction_gate import __version__
from instruction_gate.errors import EXIT_NOT_EVALUATED, EXIT_PASS, EXIT_USAGE, GateError
from instruction_gate.console import one_line, say

#: command name -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "validate": ("instruction_gate.commands.validate", "check manifest and static contract only"),
    "evaluate": ("instruction_gate.commands.evaluate", "run the paired evaluation"),
    "compare": ("instruction_gate.commands.compare", "compare paired results and decide the gate"),
    "lint": ("instruction_gate.commands.lint", "static lint of instruction files (no agent)"),
    "mutate": ("instruction_gate.commands.mutate", "mutation-test the suite against broken instructions"),
    "blame": ("instruction_gate.commands.blame", "on a FAIL, find the instruction hunks the failure follows"),
    "demo": ("instruction_gate.commands.demo", "run the gate on the embedded example"),
    "doctor": ("instruction_gate.commands.doctor", "check that an adapter understands the installed agent CLI "
                                                   "(scripted loopback provider, no model, no key)"),
    "validate-tasks": ("instruction_gate.commands.validate_tasks",
                       "run each task's checks before and after its reference solution (no agent)"),
    "changes": ("instruction_gate.commands.changes", "list the instruction files a candidate changes (CI relevance check)"),
    "backtest": ("instruction_gate.commands.backtest", "replay a repository's instruction history through the gate"),
    "mine": ("instruction_gate.commands.mine", "mine tasks from the repository's own fix commits, validated"),
    "new-task": ("instruction_gate.commands.new_task", "turn one fix commit into a validated task (--from-commit)"),
    "explain": ("instruction_gate.commands.explain", "show the instruction files each agent loads and the directives understood"),
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    if only is not None:
        module_name, help_text = COMMANDS[only]
        parser = argparse.ArgumentParser(description=help_text)
        importlib.import_module(module_name).add_arguments(parser)
        parser.set_defaults(command=only)
        return parser
    parser = argparse.ArgumentParser(prog="instruction-gate", description="Regression gate for agent instruction files.")
    parser.add_argument("--version", action="version", version=f"instruction-gate {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (module_name, help_text) in COMMANDS.items():
        sub_parser = sub.add_parser(name, help=help_text, description=help_text)
        try:
            importlib.import_module(module_name).add_arguments(sub_parser)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
            sub_parser.set_defaults(unavailable=True)
    return parser


def execute(args: argparse.Namespace) -> int:
    """Run a parsed command, mapping user errors to exit codes. Bugs still raise.

    Inputs are checked where they are read (named file, field or path, exit 2). An OSError that
    still escapes comes from the machine, not from our logic (disk full, a file removed under
    us): the evaluation could not be done, exit 3, with the path the system names.
    """
    module = importlib.import_module(COMMANDS[args.command][0])
    try:
        code = module.run(args)
        sys.stdout.flush()  # here, so a reader that left shows as BrokenPipeError below, not at exit
        return code
    except BrokenPipeError as exc:
        if not _reader_gone():  # a pipe to a child process broke: that is the machine's failure
            return _not_evaluated(exc)
        # `... | head -1`: the reader has what it wanted and closed the pipe. Not an error: exit 0,
        # silently, and stdout pointed at /dev/null so the interpreter's final flush cannot fail.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_PASS
    except GateError as exc:
        say(f"instruction-gate: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except OSError as exc:
        return _not_evaluated(exc)
    except KeyboardInterrupt:
        say("instruction-gate: interrupted; finished runs are kept", file=sys.stderr)
        return EXIT_NOT_EVALUATED


def _not_evaluated(exc: OSError) -> int:
    where = f"{exc.filename}: " if exc.filename else ""
    say(f"instruction-gate: error: could not evaluate: {one_line(where)}{exc.strerror or exc}", file=sys.stderr)
    return EXIT_NOT_EVALUATED


def _reader_gone() -> bool:
    """Whether stdout is a pipe whose reader closed it (poll reports an error on its write end)."""
    try:
        descriptor = sys.stdout.fileno()
    except (OSError, ValueError):
        return False
    if not hasattr(select, "poll"):  # Windows: no way to ask; a broken stdout is the likely one
        return True
    watch = select.poll()
    watch.register(descriptor, 0)  # POLLERR and POLLHUP are reported without being asked for
    return any(events & (select.POLLERR | select.POLLHUP) for _, events in watch.poll(0))


def _empty_option(argv: list[str]) -> str | None:
    """The first option given an empty string (`--out ""`, `--out=`), or None."""
    for index, word in enumerate(argv):
        if word == "--":
            return None
        if word.startswith("--") and word.endswith("=") and len(word) > 3:
            return word[:-1]
        if word == "" and index and argv[index - 1].startswith("-") and argv[index - 1] != "-":
            return argv[index - 1]
    return None


def main(argv: Sequence[str] | None = None, only: str | None = None) -> int:
    parser = build_parser(only)
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if empty := _empty_option(argv):
            # `--out ""` would become Path("") = the current directory, `--revision ""` no revision at all
            parser.error(f"{empty}: an empty value (pass a value, or leave the option out)")
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: 0 for --help, 2 for usage errors
        return int(exc.code or 0) if exc.code in (0, None) else EXIT_USAGE
    return execute(args)
