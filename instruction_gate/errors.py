"""Error types and the exit codes every command of the project shares.

0 pass, 1 gate failure, 2 usage or configuration error, 3 could not evaluate.
"""

from instruction_gate.untrusted import quote

EXIT_PASS = 0
EXIT_GATE_FAILURE = 1
EXIT_USAGE = 2
EXIT_NOT_EVALUATED = 3


class GateError(Exception):
    """Base class for errors a user can act on; carries its exit code."""

    exit_code = EXIT_USAGE


class ConfigError(GateError):
    """Bad manifest, policy, flags or paths. Nothing was evaluated. Exit 2.

    `problems` lists every finding as `file::$.json.path: message`.
    """

    exit_code = EXIT_USAGE

    def __init__(self, message: str, problems: list[str] | None = None):
        super().__init__(message)
        self.problems = problems or []

    def __str__(self) -> str:
        head = super().__str__()
        # One problem, one line: a path or value from the candidate may hold a newline, which
        # would split its problem in two (or start a line that reads as a workflow command).
        lines = (quote(p, limit=8192) for p in self.problems)
        return "\n".join([head, *(f"  {p}" for p in lines)]) if self.problems else head


class ContractError(ConfigError):
    """The candidate breaks the static contract (changes outside instruction paths, ...)."""


class NotEvaluatedError(GateError):
    """The evaluation could not produce evidence (infrastructure). Exit 3."""

    exit_code = EXIT_NOT_EVALUATED
