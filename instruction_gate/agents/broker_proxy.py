"""A loopback HTTP proxy that adds the provider credential to the agent's requests.

The agent is given the proxy's URL (with an unguessable path prefix) and a placeholder key;
the proxy swaps the placeholder for the real credential on the way out and removes the
credential from everything on the way back, including streamed (SSE) bodies.

Under the runner's `provider` network the sandbox has no route out: the proxy then reaches the
upstream through the runner's relay, a Unix socket bound into the sandbox (named by
`RELAY_SOCKET_VAR`) that leads to the upstream's host and port only. TLS is still the proxy's,
end to end with the upstream (the relay only moves bytes).
"""

from __future__ import annotations

import http.client
import secrets
import socket
import ssl
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

#: Headers that describe one connection, not the message; never forwarded.
HOP_BY_HOP = {"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te",
              "trailer", "transfer-encoding", "upgrade", "host", "content-length"}
#: Credential headers the agent might send (with the placeholder); always replaced.
AUTH_HEADERS = {"authorization", "x-api-key", "api-key", "x-goog-api-key"}
REDACTED = b"[REDACTED]"
UPSTREAM_TIMEOUT_SECONDS = 600.0
#: The runner sets it in the adapter's environment under `--sandbox-network provider`.
RELAY_SOCKET_VAR = "INSTRUCTION_EVAL_PROVIDER_RELAY"


@dataclass(frozen=True)
class Upstream:
    """Where the provider is: the runner's relay and the proxy must agree on host and port."""

    scheme: str
    host: str
    port: int
    path: str  #: kept as a prefix of every forwarded path (no trailing slash)


def parse_upstream(url: str) -> Upstream:
    """`http(s)://host[:port][/path]`; ValueError for anything else."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        parts, port = None, None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"upstream URL must be http(s)://host[:port][/path], got {url!r}")
    return Upstream(parts.scheme, parts.hostname, port or (443 if parts.scheme == "https" else 80),
                    parts.path.rstrip("/"))


class RelayedConnection(http.client.HTTPConnection):
    """An HTTP(S) connection to `host:port` made through the relay's Unix socket: the Host header
    and the TLS server name are the upstream's, only the transport differs."""

    def __init__(self, upstream: Upstream, socket_path: str, timeout: float, context: ssl.SSLContext | None = None):
        self.default_port = 443 if upstream.scheme == "https" else 80  # before __init__: the Host header uses it
        super().__init__(upstream.host, upstream.port, timeout=timeout)
        self.socket_path = socket_path
        self.tls = (context or ssl.create_default_context()) if upstream.scheme == "https" else None

    def connect(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.settimeout(self.timeout)
            sock.connect(self.socket_path)
            self.sock = self.tls.wrap_socket(sock, server_hostname=self.host) if self.tls else sock
        except BaseException:
            sock.close()
            raise


class StreamScrubber:
    """Replaces a secret in a byte stream, even when it is split across chunks."""

    def __init__(self, secret: bytes):
        self.secret = secret
        self.pending = b""

    def feed(self, data: bytes) -> bytes:
        self.pending = (self.pending + data).replace(self.secret, REDACTED)
        keep = len(self.secret) - 1  # a secret may begin in the last bytes
        if keep <= 0 or len(self.pending) <= keep:
            out, self.pending = (self.pending, b"") if keep <= 0 else (b"", self.pending)
            return out
        out, self.pending = self.pending[:-keep], self.pending[-keep:]
        return out

    def finish(self) -> bytes:
        out, self.pending = self.pending.replace(self.secret, REDACTED), b""
        return out


def _without_key_param(path: str) -> str:
    """The path without a `key=` query parameter (the Gemini API's other way to pass a key)."""
    base, sep, query = path.partition("?")
    if not sep:
        return path
    kept = [part for part in query.split("&") if part.split("=", 1)[0] != "key"]
    return base + ("?" + "&".join(kept) if kept else "")


class CredentialProxy:
    """Forwards http://127.0.0.1:PORT/<prefix>/<path> to <upstream>/<path> with the credential."""

    def __init__(self, upstream_url: str, header_name: str, header_value: str, secret: str,
                 relay_socket: str | None = None):
        self.upstream = parse_upstream(upstream_url)
        self.scheme, self.host, self.port = self.upstream.scheme, self.upstream.host, self.upstream.port
        self.upstream_path = self.upstream.path
        #: The runner's relay (provider-only network); None: connect directly.
        self.relay_socket = relay_socket
        self.header = (header_name, header_value)
        self.secret = secret.encode()
        self.prefix = "/" + secrets.token_urlsafe(18)
        self.statuses: list[int] = []  #: upstream status of every forwarded request, in order
        self._server: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        assert self._server is not None, "proxy not started"
        return f"http://127.0.0.1:{self._server.server_address[1]}{self.prefix}"

    def start(self) -> str:
        proxy = self

        class Handler(_ForwardingHandler):
            owner = proxy

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self.base_url

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def connect(self) -> http.client.HTTPConnection:
        if self.relay_socket:
            return RelayedConnection(self.upstream, self.relay_socket, UPSTREAM_TIMEOUT_SECONDS)
        cls = http.client.HTTPSConnection if self.scheme == "https" else http.client.HTTPConnection
        return cls(self.host, self.port, timeout=UPSTREAM_TIMEOUT_SECONDS)


class _ForwardingHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # chunked responses, so streams are relayed as they come
    owner: CredentialProxy

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass  # request lines would only add noise to the adapter's stderr

    def _body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            chunks = []
            while (size := int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)) > 0:
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                pass  # trailers
            return b"".join(chunks)
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _forward(self) -> None:
        proxy = self.owner
        if not (self.path == proxy.prefix or self.path.startswith(proxy.prefix + "/")):
            self._reply_plain(403, b"unknown path\n")
            return
        body = self._body()
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP | AUTH_HEADERS}
        headers["Accept-Encoding"] = "identity"  # compressed bodies could not be scrubbed
        headers[proxy.header[0]] = proxy.header[1]
        target = proxy.upstream_path + _without_key_param(self.path[len(proxy.prefix):] or "/")
        connection = proxy.connect()
        try:
            connection.request(self.command, target, body=body if body or self.command != "GET" else None,
                               headers=headers)
            response = connection.getresponse()
        except OSError as exc:
            proxy.statuses.append(502)
            self._reply_plain(502, f"broker: upstream unreachable ({type(exc).__name__})\n".encode())
            connection.close()
            return
        proxy.statuses.append(response.status)
        try:
            self._relay(response)
        finally:
            connection.close()

    def _relay(self, response: http.client.HTTPResponse) -> None:
        scrub = StreamScrubber(self.owner.secret)
        self.send_response(response.status, response.reason)
        secret = self.owner.secret.decode()
        for name, value in response.getheaders():
            if name.lower() not in HOP_BY_HOP:
                self.send_header(name, value.replace(secret, REDACTED.decode()))
        has_body = self.command != "HEAD" and response.status not in (204, 304)
        self.send_header(*(("Transfer-Encoding", "chunked") if has_body else ("Content-Length", "0")))
        self.end_headers()
        if not has_body:
            return
        while chunk := response.read1(65536):
            self._chunk(scrub.feed(chunk))
        self._chunk(scrub.finish())
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _chunk(self, data: bytes) -> None:
        if data:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()

    def _reply_plain(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _forward
