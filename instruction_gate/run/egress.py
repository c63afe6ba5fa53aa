"""The one way out of a provider-only sandbox (`--sandbox-network provider`): a relay to the provider.

The sandbox has a network namespace of its own (loopback only). Outside it, the runner listens
on a Unix socket in a directory of its own, which the sandbox binds read-only; every connection
accepted there is relayed byte for byte to the provider upstream's host and port, the address
the broker adapter itself would use (`broker.upstream_url`, from the same adapter command line
and options). The client names no address, so the relay cannot be asked for another one. TLS
stays end to end between the broker's proxy in the sandbox and the provider. Open connections
and their idle time are bounded, and closing the relay (when the evaluation ends) ends them all.
"""

from __future__ import annotations

import dataclasses
import selectors
import shutil
import socket
import tempfile
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Mapping

from instruction_gate.agents import broker
from instruction_gate.agents.broker_proxy import parse_upstream
from instruction_gate.agents.options import Options
from instruction_gate.errors import ConfigError
from instruction_gate.run.sandbox import Sandbox
from instruction_gate.suite.adapter_discovery import broker_options

SOCKET_NAME = "provider.sock"
#: Connections open at once; more are closed at once (an agent cannot exhaust the runner's threads).
MAX_CONNECTIONS = 64
CONNECT_SECONDS = 30.0
#: A connection with no byte either way for this long is closed (the proxy's own upstream timeout is 600 s).
IDLE_SECONDS = 900.0
#: A Unix socket's path must fit in sockaddr_un (108 bytes with its NUL).
_MAX_SOCKET_PATH = 100


@dataclass(frozen=True)
class Target:
    """The provider upstream's address: the only one the relay connects to."""

    host: str
    port: int

    def __str__(self) -> str:
        return f"{self.host}:{self.port}"


def provider_target(adapter_argv: list[str], options: Mapping[str, str], env: Mapping[str, str]) -> Target | None:
    """Where the broker in `adapter_argv` sends its requests; None when the command is not the broker.

    ConfigError when its upstream is no http(s) URL or its provider unknown (it would refuse to run).
    """
    chosen = broker_options(adapter_argv, dict(options))
    if chosen is None:
        return None
    try:
        upstream = parse_upstream(broker.upstream_url(Options(chosen), env))
    except ValueError as exc:
        raise ConfigError(f"adapters/broker upstream_url: {exc}") from None
    return Target(upstream.host, upstream.port)


def network_note(sandbox: Sandbox, target: Target | None) -> str:
    """What the runner's "agent sandbox:" line adds about the agent's reach."""
    if not sandbox.isolated:
        return " (--unisolated: agents can read and change anything this user can, and outlive their runs)"
    if sandbox.network == "provider":
        return f" (the only address reachable: {target}, through the runner's relay)"
    if sandbox.network == "host":
        return (" (host network: agents reach any address the runner reaches; records and the summary say so"
                + ("; --sandbox-network provider would allow the provider only)" if target else ")"))
    return ""


@contextmanager
def provider_network(sandbox: Sandbox, target: Target | None, temp_dir: Path | None = None) -> Iterator[Sandbox]:
    """`sandbox` with its relay running, for the block (the evaluation); unchanged unless its
    network is `provider`."""
    if not sandbox.isolated or sandbox.network != "provider":
        yield sandbox
        return
    if target is None:
        raise ConfigError("--sandbox-network provider: no provider upstream is known for this adapter")
    with ProviderRelay(target, temp_dir) as relay:
        yield dataclasses.replace(sandbox, egress=relay.socket_path)


class ProviderRelay:
    """Listens on `socket_path`; relays each connection to `target` and nowhere else."""

    def __init__(self, target: Target, temp_dir: Path | None = None):
        self.target = target
        self.directory = Path(tempfile.mkdtemp(prefix="instruction-gate-egress-", dir=_socket_parent(temp_dir)))
        self.socket_path = self.directory / SOCKET_NAME
        self.connections = 0  #: accepted and relayed so far
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._listener.bind(str(self.socket_path))
        self._listener.listen(MAX_CONNECTIONS)
        self._open: set[socket.socket] = set()  #: both ends of every live connection
        self._clients = 0
        self._lock = threading.Lock()
        self._closed = False
        self._accepting = threading.Thread(target=self._accept_loop, name="provider-relay", daemon=True)

    def __enter__(self) -> "ProviderRelay":
        self._accepting.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            live = list(self._open)
        for sock in [self._listener, *live]:
            _shut(sock)  # wakes the accept loop and every pump
        if self._accepting.is_alive():
            self._accepting.join(timeout=5)
        shutil.rmtree(self.directory, ignore_errors=True)

    def _accept_loop(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return  # closed
            with self._lock:
                refused = self._closed or self._clients >= MAX_CONNECTIONS
                if not refused:
                    self._open.add(client)
                    self._clients += 1
                    self.connections += 1
            if refused:
                _shut(client)
                continue
            threading.Thread(target=self._serve, args=(client,), name="provider-relay-pump", daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        upstream = None
        try:
            upstream = socket.create_connection((self.target.host, self.target.port), timeout=CONNECT_SECONDS)
            with self._lock:
                if self._closed:
                    return
                self._open.add(upstream)
            _pump(client, upstream)
        except OSError:
            pass  # the proxy inside sees the connection close and reports the upstream unreachable
        finally:
            with self._lock:
                self._clients -= 1
            for sock in (client, upstream):
                if sock is not None:
                    with self._lock:
                        self._open.discard(sock)
                    _shut(sock)


def _pump(a: socket.socket, b: socket.socket) -> None:
    """Bytes both ways until both sides are done, one side fails, or nothing moves for IDLE_SECONDS."""
    peer = {a: b, b: a}
    for sock in peer:
        sock.settimeout(IDLE_SECONDS)
    with selectors.DefaultSelector() as selector:
        for sock in peer:
            selector.register(sock, selectors.EVENT_READ)
        reading = 2
        while reading:
            ready = selector.select(IDLE_SECONDS)
            if not ready:
                return
            for key, _ in ready:
                source: socket.socket = key.fileobj  # type: ignore[assignment]
                data = source.recv(65536)
                if data:
                    peer[source].sendall(data)
                    continue
                selector.unregister(source)  # end of one direction: pass it on, keep the other
                reading -= 1
                try:
                    peer[source].shutdown(socket.SHUT_WR)
                except OSError:
                    return


def _socket_parent(temp_dir: Path | None) -> str | None:
    """Where the socket's directory goes: `--temp-dir`, else the system's, when short enough."""
    for parent in (str(temp_dir) if temp_dir else None, tempfile.gettempdir(), "/tmp"):
        if parent and len(parent) < _MAX_SOCKET_PATH - 40:
            return parent
    return None


def _shut(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    sock.close()
