"""The provider-only network (`--sandbox-network provider`, the default for adapters/broker) and the
broker token's way into the sandbox, against a hostile agent.

The hostile agent is the broker's wrapped adapter: it runs where a real agent CLI would, reads every
process's environment, command line and inherited pipes that /proc shows, connects to another
loopback port of the host, and sends one model request through the broker's proxy.
"""

from __future__ import annotations

import json
import socket
import sys
import threading
from types import SimpleNamespace

import pytest

from instruction_gate.agents.scripted_provider import ScriptedProvider, Step
from instruction_gate.errors import ConfigError
from instruction_gate.run import egress, sandbox
from instruction_gate.run.egress import ProviderRelay, Target, provider_target
from tests.conftest import REPO_ROOT
from tests.fixtures.runner_cli import evaluate, make_adapter, record, wait_for
from tests.runner.suite import build_suite_repo, task

TOKEN = "sk-provider-network-" + "7" * 24
BROKER = f"{sys.executable} {REPO_ROOT / 'adapters' / 'broker'}"

HOSTILE = """
    import glob, socket, urllib.request
    REPORT, OTHER_PORT, PROVIDER_PORT = {report!r}, {other}, {provider}
    seen = {{"environ": {{}}, "cmdline": {{}}, "pipes": {{}}}}
    for directory in glob.glob("/proc/[0-9]*"):
        pid = directory.rsplit("/", 1)[1]
        for part in ("environ", "cmdline"):
            try:
                seen[part][pid] = open(os.path.join(directory, part), "rb").read().decode("latin-1")
            except OSError as exc:
                seen[part][pid] = type(exc).__name__
        try:
            fds = [fd for fd in os.listdir(os.path.join(directory, "fd")) if int(fd) > 2]
        except OSError as exc:
            seen["pipes"][pid] = type(exc).__name__
            continue
        for fd in fds:  # a pipe still holding the token would give it to whoever opens it
            path = os.path.join(directory, "fd", fd)
            try:
                if os.readlink(path).startswith("pipe:"):
                    handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
                    try:
                        seen["pipes"][pid + "/" + fd] = os.read(handle, 65536).decode("latin-1")
                    finally:
                        os.close(handle)
            except OSError as exc:
                seen["pipes"][pid + "/" + fd] = type(exc).__name__
    def attempt(port):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=5).close()
            return "connected"
        except OSError as exc:
            return type(exc).__name__
    seen["other_port"], seen["provider_port"] = attempt(OTHER_PORT), attempt(PROVIDER_PORT)
    env = request["agent_env"]
    body = json.dumps({{"model": "m", "input": "hi", "stream": True}}).encode()
    call = urllib.request.Request(env["OPENAI_BASE_URL"] + "/responses", data=body, headers={{
        "Content-Type": "application/json", "Authorization": "Bearer " + env["OPENAI_API_KEY"]}})
    try:
        with urllib.request.urlopen(call, timeout=60) as answer:
            seen["through_proxy"] = [answer.status, answer.read().decode(errors="replace")[:4000]]
    except Exception as exc:
        seen["through_proxy"] = repr(exc)
    with open(os.path.join(REPORT, request["variant"] + ".json"), "w") as handle:
        json.dump(seen, handle)
"""


class Listener:
    """A loopback TCP port of the host that counts the connections it gets."""

    def __init__(self):
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.received: list[bytes] = []
        self.closed = False
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while not self.closed:
            try:
                client, _ = self.sock.accept()
            except OSError:
                continue  # a connection reset before it was accepted, or the listener closed
            with client:
                client.settimeout(5)
                try:
                    data = client.recv(4096)
                    if data:
                        client.sendall(b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n")
                except OSError:
                    data = b""
                self.received.append(data)

    def close(self):
        self.closed = True
        try:
            self.sock.shutdown(socket.SHUT_RDWR)  # wakes the accepting thread
        except OSError:
            pass
        self.sock.close()


@pytest.fixture
def other_port():
    listener = Listener()
    yield listener
    listener.close()


def _evaluate_hostile(git_repo, tmp_path, other, *args):
    reports = tmp_path / "reports"
    reports.mkdir()
    base, candidate = build_suite_repo(git_repo, [task("t1")])
    with ScriptedProvider([Step("text", text="scripted answer", times=0)]) as provider:
        port = int(provider.url.rsplit(":", 1)[1])
        hostile = make_adapter(tmp_path, HOSTILE.format(report=str(reports), other=other.port, provider=port),
                               name="hostile")
        out = tmp_path / "out"
        result = evaluate(git_repo, base, candidate, out, BROKER, "--adapter-option", f"wrap={hostile}",
                          "--adapter-option", f"upstream_url={provider.url}", *args,
                          env={"INSTRUCTION_EVAL_BROKER_TOKEN": TOKEN, "IG_REPORTS": str(reports)})
        requests = provider.model_requests()
    assert result.returncode == 0, result.stderr
    seen = {variant: json.loads((reports / f"{variant}.json").read_text()) for variant in ("base", "candidate")}
    return result, out, seen, requests


def test_provider_network_shows_no_token_and_reaches_only_the_provider(git_repo, tmp_path, other_port):
    result, out, seen, requests = _evaluate_hostile(git_repo, tmp_path, other_port)

    assert "agent sandbox: bwrap (network: provider)" in result.stderr  # the broker's default
    assert record(out, "t1", 0, "candidate")["isolation"] == "bwrap (network: provider)"
    for view in seen.values():
        # Every process of the sandbox was looked at; bubblewrap's init (PID 1) is readable.
        assert "PATH=" in view["environ"]["1"] and len(view["cmdline"]) >= 3
        for part in ("environ", "cmdline", "pipes"):
            for where, text in view[part].items():
                assert TOKEN not in text, (part, where)
        assert view["other_port"] == "ConnectionRefusedError"  # the sandbox's own loopback
        assert view["provider_port"] == "ConnectionRefusedError"  # the provider only through the relay
        status, body = view["through_proxy"]
        assert status == 200 and "scripted answer" in body
    assert other_port.received == []
    # The broker got the token (through its pipe) and the provider got it from the broker.
    assert len(requests) == 2 and all(r.headers.get("Authorization") == f"Bearer {TOKEN}" for r in requests)


def test_host_network_reaches_another_loopback_port(git_repo, tmp_path, other_port):
    """The control: the same agent under the explicit `host` network connects."""
    result, out, seen, requests = _evaluate_hostile(git_repo, tmp_path, other_port, "--sandbox-network", "host")
    assert record(out, "t1", 0, "base")["isolation"] == "bwrap (network: host)"
    assert "host network: agents reach any address" in result.stderr
    assert all(view["other_port"] == "connected" for view in seen.values())
    assert wait_for(lambda: len(other_port.received) >= 2)
    assert len(requests) == 2
    for view in seen.values():
        assert all(TOKEN not in text for part in ("environ", "cmdline", "pipes") for text in view[part].values())


def test_relay_connects_only_to_its_upstream(other_port):
    """Whatever a client asks for (a CONNECT, another Host), its bytes go to the upstream alone."""
    upstream = Listener()
    try:
        with ProviderRelay(Target("127.0.0.1", upstream.port)) as relay:
            for ask in (f"CONNECT 127.0.0.1:{other_port.port} HTTP/1.1\r\nHost: 127.0.0.1:{other_port.port}\r\n\r\n",
                        f"GET http://127.0.0.1:{other_port.port}/ HTTP/1.1\r\nHost: 127.0.0.1:{other_port.port}\r\n\r\n"):
                with socket.socket(socket.AF_UNIX) as client:
                    client.settimeout(10)
                    client.connect(str(relay.socket_path))
                    client.sendall(ask.encode())
                    assert client.recv(4096).startswith(b"HTTP/1.1 204")
            assert relay.connections == 2
        assert not relay.socket_path.exists()
    finally:
        upstream.close()
    assert [r.split(b" ")[0] for r in upstream.received] == [b"CONNECT", b"GET"]
    assert other_port.received == []


def test_closing_the_relay_ends_its_connections():
    hold = socket.create_server(("127.0.0.1", 0))  # accepts and never answers
    try:
        relay = ProviderRelay(Target("127.0.0.1", hold.getsockname()[1])).__enter__()
        client = socket.socket(socket.AF_UNIX)
        client.settimeout(10)
        client.connect(str(relay.socket_path))
        client.sendall(b"x")
        relay.close()
        try:
            left = client.recv(10)
        except ConnectionResetError:
            left = b""  # closed with the byte unread: a reset is a close too
        assert left == b""  # closed by the relay, not left open
        client.close()
    finally:
        hold.close()


def test_relay_target_is_the_brokers_upstream():
    broker = [sys.executable, str(REPO_ROOT / "adapters" / "broker")]
    assert provider_target(broker, {}, {}) == Target("api.openai.com", 443)
    assert provider_target(broker, {"wrap": "claude"}, {}) == Target("api.anthropic.com", 443)
    assert provider_target(broker, {"wrap": "gemini"}, {}) == Target("generativelanguage.googleapis.com", 443)
    env = {"INSTRUCTION_EVAL_UPSTREAM_URL": "http://gateway.internal:8080/v1"}
    assert provider_target(broker, {}, env) == Target("gateway.internal", 8080)
    # The option beats the environment, the broker's own flag beats the option (as the broker merges them).
    assert provider_target(broker, {"upstream_url": "https://a.example"}, env) == Target("a.example", 443)
    flagged = [*broker, "--upstream-url", "http://b.example:81"]
    assert provider_target(flagged, {"upstream_url": "https://a.example"}, env) == Target("b.example", 81)
    assert provider_target([sys.executable, str(REPO_ROOT / "adapters" / "codex")], {}, {}) is None
    with pytest.raises(ConfigError, match="upstream_url"):
        provider_target(broker, {"upstream_url": "ftp://x"}, {})


def test_provider_network_needs_the_broker():
    args = SimpleNamespace(sandbox_network="provider", unisolated=False, sandbox_writable=[])
    with pytest.raises(ConfigError, match="not adapters/broker"):
        sandbox.from_args(args, offline=False, broker=False)
    auto = SimpleNamespace(sandbox_network="auto", unisolated=False, sandbox_writable=[])
    assert sandbox.from_args(auto, offline=False, broker=True).network == "provider"
    assert sandbox.from_args(auto, offline=False, broker=False).network == "host"
    assert sandbox.from_args(auto, offline=True, broker=False).network == "none"


def test_provider_sandbox_binds_only_the_relays_directory(tmp_path):
    socket_path = tmp_path / "relay" / "provider.sock"
    args = sandbox.bwrap_args(sandbox.View((tmp_path / "w",)), "provider", socket_path)
    assert "--unshare-net" in args
    at = args.index(str(socket_path.parent))
    assert args[at - 1] == "--ro-bind" and args[at + 1] == str(socket_path.parent)
    with egress.provider_network(sandbox.UNISOLATED, None) as unchanged:
        assert unchanged is sandbox.UNISOLATED
