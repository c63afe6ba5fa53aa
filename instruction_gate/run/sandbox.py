"""The agent sandbox: what an adapter, and everything it starts, can see, reach and outlive.

The mechanism is bubblewrap, as in Claude Code's own Linux sandbox: a new mount namespace
whose root is an empty tmpfs holding only the system directories (read-only), the harness's
interpreter and package (read-only), the run's workspace and a private home (read-write) and
a private /tmp; new PID, IPC and UTS namespaces (a user namespace too when not root); every
capability dropped. The adapter is the first process of its PID namespace's init, so when it
exits the kernel kills whatever it left behind, however it detached (setsid, double fork,
nohup). `Confinement.finish` waits until that has happened, killing the namespace's init on
the way when the runner had to stop the adapter, so nothing of a run is alive once it returns.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

from instruction_gate import proc
from instruction_gate.errors import ConfigError
from instruction_gate.run import hostile_tree

#: Host directories the agent sees read-only (when present): the system, never /home, /root,
#: /run (sockets such as the container runtime's), /srv, /mnt, /media or /tmp.
SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")
#: Seconds to wait for a sandbox's processes to be gone after its first process exited.
TEARDOWN_SECONDS = 10.0
#: none: loopback only; provider: loopback and the runner's relay to the provider (run/egress.py); host: shared.
NETWORK_MODES = ("none", "provider", "host")
#: Parts of /proc that change the host's kernel when written; bound read-only over the sandbox's own.
KERNEL_TUNABLES = ("/proc/sys", "/proc/sysrq-trigger")


@dataclass(frozen=True)
class View:
    """One run's filesystem view: `writable` read-write, `readable` read-only, at their own paths.
    `protected` are read-only whatever else is bound: mounted last, so a writable directory
    around one (a shared cache holding the check environment) or inside one cannot open it to
    writes. The check environment's interpreter is one: the checks run it after the agent."""

    writable: tuple[Path, ...]
    readable: tuple[Path, ...] = ()
    cwd: Path | None = None
    protected: tuple[Path, ...] = ()


@dataclass(frozen=True)
class Sandbox:
    """How agent runs are confined. `mechanism` is "bwrap", or "unisolated" (explicit opt-out)."""

    mechanism: str
    network: str = "host"  #: "none": loopback only (a private network namespace); "provider": that and the
    #: relay to the provider; "host": shared, unrestricted
    binary: str | None = None
    shared: tuple[Path, ...] = ()  #: directories the user chose to share read-write (--sandbox-writable)
    egress: Path | None = None  #: the provider relay's socket (network "provider"), while the relay runs

    @property
    def isolated(self) -> bool:
        return self.mechanism != "unisolated"

    @property
    def label(self) -> str:
        """What records and summaries say about the runs' isolation."""
        return f"bwrap (network: {self.network})" if self.isolated else "unisolated"

    def confine(self, argv: Sequence[str], view: View) -> "Confinement":
        return Confinement(self, list(argv), view)


@dataclass
class Confinement:
    """One confined process: `argv` to start (with `pass_fds`), then `finish()` once it exited."""

    sandbox: Sandbox
    inner: list[str]
    view: View
    argv: list[str] = field(default_factory=list)
    pass_fds: tuple[int, ...] = ()
    _info: tuple[int, int] | None = None

    def __post_init__(self) -> None:
        if not self.sandbox.isolated:
            self.argv = self.inner
            return
        self._info = os.pipe()
        self.pass_fds = (self._info[1],)
        view = View((*self.view.writable, *self.sandbox.shared), self.view.readable, self.view.cwd, self.view.protected)
        self.argv = [str(self.sandbox.binary), *bwrap_args(view, self.sandbox.network, self.sandbox.egress),
                     "--info-fd", str(self._info[1]), "--", *self.inner]

    def start_error(self, exit_code: int | None, stderr: str, events: int) -> str | None:
        """bubblewrap's own failure to start the command (exec or setup), as `proc` words one.

        Only when the command printed no event: a run that got going never becomes "could not start".
        """
        first = stderr.lstrip().split("\n", 1)[0]
        if not self.sandbox.isolated or exit_code != 1 or events or not first.startswith("bwrap: "):
            return None
        match = re.fullmatch(r"bwrap: execvp (.+): (.+)", first)
        return f"{match[2]}: {match[1]!r}" if match else f"sandbox: {first}"

    def finish(self) -> None:
        """Make sure no process of the sandbox is alive (kill its init if it still is)."""
        if self._info is None:
            return
        read_end, write_end = self._info
        self._info = None
        os.close(write_end)
        with os.fdopen(read_end, "rb") as stream:
            raw = stream.read()
        try:
            init_pid = int(json.loads(raw)["child-pid"])
        except (ValueError, KeyError, TypeError):
            return  # bwrap never got as far as starting anything
        started = _start_time(init_pid)
        deadline = time.monotonic() + TEARDOWN_SECONDS
        while _alive(init_pid, started):
            # The init's death kills every process of its PID namespace and waits for them.
            try:
                os.kill(init_pid, signal.SIGKILL)
            except ProcessLookupError:
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"sandbox init {init_pid} survived SIGKILL for {TEARDOWN_SECONDS}s")
            time.sleep(0.01)


def bwrap_args(view: View, network: str, egress: Path | None = None) -> list[str]:
    args = ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try", "--hostname", "sandbox",
            "--die-with-parent", "--new-session", "--cap-drop", "ALL",
            "--tmpfs", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", "/var/tmp"]
    # A fresh /proc leaves the kernel's tunables writable to a root sandbox (kernel.core_pattern
    # runs a program on the host): they are read-only in every sandbox.
    for tunable in KERNEL_TUNABLES:
        if os.path.exists(tunable):
            args += ["--ro-bind", tunable, tunable]
    if network in ("none", "provider"):
        args.append("--unshare-net")
    if network == "provider" and egress is not None:
        # The relay's socket (in a directory of its own) is the only way out of this network namespace.
        args += ["--ro-bind", str(egress.parent), str(egress.parent)]
    for top in SYSTEM_PATHS:
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    for path in _resolver_paths() if network == "host" else ():
        args += ["--ro-bind", path, path]
    for path in _outermost(view.readable):
        args += ["--ro-bind", str(path), str(path)]
    for path in view.writable:
        args += ["--bind", str(path), str(path)]
    for path in _outermost(view.protected):
        args += ["--ro-bind", str(path), str(path)]
    if view.cwd is not None:
        args += ["--chdir", str(view.cwd)]
    return args


def detect(unisolated: bool, network: str, shared: Sequence[Path] = ()) -> Sandbox:
    """The sandbox runs will use; ConfigError when none can be had and no opt-out was given."""
    if network not in NETWORK_MODES:
        raise ConfigError(f"--sandbox-network: expected one of {list(NETWORK_MODES)}, got {network!r}")
    if unisolated:
        return Sandbox("unisolated", "host")
    binary = shutil.which("bwrap", path=os.pathsep.join([os.environ.get("PATH", ""), "/usr/bin", "/bin"]))
    hint = ("install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; on Ubuntu 24.04 also allow it user "
            "namespaces, see README 'Security'), or pass --unisolated to run agents without a sandbox")
    if binary is None:
        raise ConfigError(f"no agent sandbox: bwrap is not on PATH; {hint}")
    missing = [str(p) for p in shared if not Path(p).is_dir()]
    if missing:
        raise ConfigError(f"--sandbox-writable: not a directory: {', '.join(missing)}")
    sandbox = Sandbox("bwrap", network, binary, tuple(Path(p).resolve() for p in shared))
    probe = [binary, *bwrap_args(View((), (Path(sys.base_prefix), Path(sys.prefix))), network), "--", sys.executable, "-c", ""]
    result = proc.run(probe, Path.cwd(), timeout=30)
    if not result.ok:
        raise ConfigError(f"no agent sandbox: bwrap cannot start ({(result.stderr or result.start_error or '').strip()}); "
                          f"{hint}")
    return sandbox


def _resolver_paths() -> list[str]:
    """/etc/resolv.conf often links into /run, which is otherwise hidden."""
    target = os.path.realpath("/etc/resolv.conf")
    return [os.path.dirname(target)] if not target.startswith("/etc/") and os.path.exists(target) else []


def _outermost(paths: Iterable[Path]) -> list[Path]:
    """Paths with those inside another one dropped (a nested bind would be redundant)."""
    ordered = sorted(set(paths), key=lambda p: len(p.parts))
    kept: list[Path] = []
    for path in ordered:
        if not any(path.is_relative_to(k) for k in kept):
            kept.append(path)
    return kept


def _start_time(pid: int) -> str | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def _alive(pid: int, started: str | None) -> bool:
    """True while `pid` is the same process and not yet a zombie (its namespace is gone by then)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[0] != "Z" and fields[19] == started and started is not None


#: Runs with no sandbox (the explicit opt-out); every record says "unisolated".
UNISOLATED = Sandbox("unisolated")


def fresh_dir(path: Path) -> Path:
    """`path` as a new empty directory (whatever the last run left there is removed, even a
    directory it made unreadable, a link or a FIFO in its place, without following a link: an
    agent must not be able to stop the next run from starting, nor aim the removal elsewhere)."""
    hostile_tree.remove(path)
    path.mkdir(parents=True)
    return path


def add_arguments(parser) -> None:
    parser.add_argument("--unisolated", action="store_true",
                        help="run agents without a sandbox (only where bubblewrap cannot be had); every run "
                             "record and the summary then say 'unisolated'")
    parser.add_argument("--sandbox-network", choices=("auto", *NETWORK_MODES), default="auto",
                        help="agent network inside the sandbox: none (loopback only); provider (loopback, and "
                             "the provider of adapters/broker through a relay: nothing else is reachable); host "
                             "(the runner's network, unrestricted: records and the summary say so); auto: none "
                             "for the offline reference adapter, provider for adapters/broker, host otherwise")
    parser.add_argument("--sandbox-readable", action="append", default=[], type=Path, metavar="PATH",
                        help="a file or directory every agent run may read, e.g. an agent CLI's installation "
                             "outside PATH (repeatable); never the suite or the checkout")
    parser.add_argument("--sandbox-writable", action="append", default=[], type=Path, metavar="DIR",
                        help="a directory every agent run may read and write, e.g. a package cache (repeatable); "
                             "it is shared by all runs, so never the suite, the checkout or anything secret")


def from_args(args, offline: bool, broker: bool = False) -> Sandbox:
    """The sandbox the flags ask for; under `auto`, `offline` adapters get no network, the
    broker (`broker`: the only adapter whose provider the runner knows) the provider's only."""
    network = args.sandbox_network
    if network == "auto":
        network = "none" if offline else "provider" if broker else "host"
    elif network == "provider" and not broker and not args.unisolated:
        raise ConfigError("--sandbox-network provider: the adapter is not adapters/broker, so the runner does not "
                          "know its provider; run the agent through the broker or choose none or host")
    return detect(args.unisolated, network, args.sandbox_writable)
