"""The checks' sandbox: checks run what the agent left behind, so they are confined like the agent.

A planted `conftest.py` is code the candidate's instructions made an agent write; pytest runs
it while collecting. Each check therefore starts in a bubblewrap sandbox of its own
(`sandbox.bwrap_args`): a PID namespace that dies with it (nothing a check starts outlives it),
no network unless the task grants its checks network (`check_network`), `/proc/sys`
read-only, the validation workspace (a scratch tree rebuilt from git objects every run) and a
private home writable, the harness, the check environment and the system read-only, and
nothing else: not the user's checkout, the stage repository, other slots or the records. Its
environment is the agent's (no secret-named variable, no broker token) less the CI runner's
variables (`GITHUB_ENV` would let a check set variables for the workflow's later steps).

Under `--unisolated` checks run on the host, like the agent: the explicit opt-out.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from instruction_gate import proc
from instruction_gate.run import sandbox_paths
from instruction_gate.run.sandbox import SYSTEM_PATHS, UNISOLATED, Sandbox, View, fresh_dir

#: Variable prefixes of CI runners, removed from every check's environment: they name files a
#: later workflow step reads (GITHUB_ENV, GITHUB_OUTPUT, GITHUB_PATH) or the runner's own URLs.
CI_PREFIXES = ("GITHUB_", "ACTIONS_", "RUNNER_")


def without_ci_variables(env: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if not k.upper().startswith(CI_PREFIXES)}


@dataclass(frozen=True)
class CheckSandbox:
    """How one evaluation's (or validation's) checks are confined.

    `readable` are shown read-only besides the system (the harness, agent CLIs' installations,
    `--sandbox-readable`); `protected` read-only whatever is writable around them (the check
    environment); `scratch` is where each slot's private check home is made."""

    sandbox: Sandbox = UNISOLATED
    readable: tuple[Path, ...] = ()
    protected: tuple[Path, ...] = ()
    scratch: Path | None = None

    @property
    def isolated(self) -> bool:
        return self.sandbox.isolated

    def home(self, slot_name: str) -> Path | None:
        """A fresh, empty home for one run's checks (None when unisolated: checks keep the host's)."""
        if not self.isolated or self.scratch is None:
            return None
        return fresh_dir(self.scratch / f"check-home-{slot_name}")

    def environment(self, env: Mapping[str, str], home: Path | None) -> dict[str, str]:
        """`env` as a check inside this sandbox gets it."""
        env = without_ci_variables(env)
        if home is None:
            return env
        private = {k: v for k, v in env.items() if not k.startswith("XDG_")}
        return {**private, "HOME": str(home), "TMPDIR": "/tmp"}

    def run(self, argv: Sequence[str], cwd: Path, workspace: Path, env: Mapping[str, str], timeout: float,
            tail_bytes: int, network: bool = False, home: Path | None = None,
            writable: Iterable[Path] = ()) -> proc.ProcResult:
        """One check, confined to `workspace` (and `home`, `writable`) when isolated."""
        if not self.isolated:
            return proc.run(list(argv), cwd, env=dict(env), timeout=timeout, tail_bytes=tail_bytes)
        # The check gets the sandbox's mechanism, never the agents' shared directories.
        confining = Sandbox(self.sandbox.mechanism, "host" if network else "none", self.sandbox.binary)
        view = View((workspace, *([home] if home else []), *writable),
                    (*self.readable, *self.protected, *_program(argv)), cwd, protected=self.protected)
        confined = confining.confine(list(argv), view)
        try:
            result = proc.run(confined.argv, cwd, env=dict(env), timeout=timeout, tail_bytes=tail_bytes,
                              pass_fds=confined.pass_fds)
        finally:
            confined.finish()
        why = confined.start_error(result.exit_code, result.stderr, 0)
        # A program that cannot start is recorded as on the host: no exit code, the reason instead.
        return replace(result, exit_code=None, start_error=why) if why else result


def _program(argv: Sequence[str]) -> tuple[Path, ...]:
    """A check's program named by an absolute path outside the system (the trusted manifest's
    choice, e.g. a toolchain in /usr/local's neighbour): the file alone, read-only."""
    program = Path(argv[0]) if argv else None
    if program is None or not program.is_absolute() or not program.is_file():
        return ()
    if any(program.is_relative_to(top) for top in SYSTEM_PATHS):
        return ()  # already shown
    return (program,)


def for_checks(sandbox: Sandbox, readable: Sequence[Path], env_dir: Path | None, env: Mapping[str, str],
               stage_root: Path, hidden: Sequence[Path]) -> CheckSandbox:
    """The sandbox a task's checks get: `sandbox`'s mechanism, `readable` (the harness, agent CLIs,
    `--sandbox-readable`), the check environment and the programs on the checks' PATH read-only;
    never a directory holding `hidden` (the checkout, the suite) or anything of the stage."""
    env_paths = sandbox_paths.check_env_paths(env_dir)
    on_path = sandbox_paths.search_paths(env.get("PATH", ""), (*hidden, stage_root))
    # A PATH entry inside the checkout (a manifest's check_path) would show part of it: left out.
    outside = [p for p in on_path if not any(p.is_relative_to(h.resolve()) for h in (*hidden, stage_root))]
    shown = (*readable, *env_paths, *outside)
    return CheckSandbox(sandbox, tuple(shown), env_paths, stage_root)


def add_arguments(parser) -> None:
    """The flags of commands that run checks without agents (validate-tasks)."""
    parser.add_argument("--unisolated", action="store_true",
                        help="run checks without a sandbox (only where bubblewrap cannot be had)")
    parser.add_argument("--sandbox-readable", action="append", default=[], type=Path, metavar="PATH",
                        help="a file or directory every check may read, e.g. a toolchain outside the system "
                             "directories (repeatable); never the suite or the checkout")
