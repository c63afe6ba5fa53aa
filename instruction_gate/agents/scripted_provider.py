"""A scripted model provider on loopback: what the agent CLIs talk to when no model may be used.

`ScriptedProvider` serves the wire formats the shipped adapters need — the OpenAI Responses
API (`POST …/responses`, Codex as a `model_providers` entry), the Anthropic Messages API
(`POST …/v1/messages`, Claude Code behind `ANTHROPIC_BASE_URL`), the Gemini API
(`sse_gemini.py`) and OpenAI Chat Completions (`POST …/chat/completions`, OpenCode's custom
provider; `sse_chat.py`) — as server-sent events. Each
model request takes the next `Step` of the script; every request is logged with its decoded
body, so a test (or `instruction-gate doctor`) can compare what the adapter says reached the
model with what actually did. Auxiliary calls (Claude Code's title and quota probes, token
counting, model lists) answer from `aux` steps and never consume the script.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

from instruction_gate.agents import sse_chat, sse_formats, sse_gemini


@dataclass(frozen=True)
class Step:
    """One scripted answer to one model request.

    kind: `text` (an answer), `tool` (a call of tool `name` with `args`), `status` (HTTP
    `status` with a JSON error body), `garbage` (200 with a body that is not SSE), `truncate`
    (the stream stops mid-answer and the connection closes), `hang_headers` (never answers),
    `hang_body` (headers and first event, then nothing). `times` repeats the step (0: for ever).
    """

    kind: str
    text: str = ""
    name: str = ""
    args: dict[str, Any] = field(default_factory=dict)
    status: int = 200
    message: str = ""
    input_tokens: int = 100
    cached_tokens: int = 0
    output_tokens: int = 10
    times: int = 1
    retry_after_ms: int | None = None  #: a `status` answer's `retry-after-ms` header


@dataclass
class LoggedRequest:
    """One request as the provider received it."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any  #: decoded JSON, or the raw text when not JSON
    model_call: bool  #: consumed a script step
    step: Step | None = None


def is_model_call(path: str, body: Any) -> bool:
    """A request the agent needs an answer from (not an auxiliary probe)."""
    if path.rstrip("/").endswith("/responses"):
        return True
    if sse_chat.is_chat(path):
        return sse_chat.is_model_call(path, body)
    if not path.split("?")[0].rstrip("/").endswith("/v1/messages") or not isinstance(body, dict):
        return False
    # Claude Code's side calls (titles, quota checks) carry no tools; the agent loop always does.
    return bool(body.get("tools"))


class ScriptedProvider:
    """Loopback HTTP server answering model requests from a script, logging every request."""

    def __init__(self, script: list[Step] | None = None, aux_text: str = "ok", hang_seconds: float = 120.0,
                 responder: Callable[[Any], Step] | None = None):
        self.script: list[Step] = list(script or [])
        #: When given, answers every model request from its body instead of the script (for
        #: many concurrent conversations, e.g. a whole gate run).
        self.responder = responder
        self.aux_text = aux_text
        self.hang_seconds = hang_seconds
        self.requests: list[LoggedRequest] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._used: dict[int, int] = {}
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> "ScriptedProvider":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._server.shutdown()
        self._server.server_close()

    def answered_requests(self) -> list[LoggedRequest]:
        """Every request answered with a message (model calls and side calls): what usage covers."""
        with self._lock:
            return [r for r in self.requests if r.step is not None]

    def model_requests(self) -> list[LoggedRequest]:
        with self._lock:
            return [r for r in self.requests if r.model_call]

    def next_step(self) -> Step:
        """The script's next step; past its end the agent is told it is done."""
        with self._lock:
            for index, step in enumerate(self.script):
                used = self._used.get(index, 0)
                if step.times == 0 or used < step.times:
                    self._used[index] = used + 1
                    return step
        return Step("text", text="Done.")

    def _log(self, request: LoggedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        provider = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:  # quiet: the log is `requests`
                pass

            def do_GET(self) -> None:
                provider._log(LoggedRequest("GET", self.path, dict(self.headers), None, False))
                self._json(200, {"object": "list", "data": [], "models": []})

            def do_HEAD(self) -> None:
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length).decode("utf-8", errors="replace")
                try:
                    body: Any = json.loads(raw)
                except json.JSONDecodeError:
                    body = raw
                if sse_gemini.method(self.path):  # Gemini API: its own module answers
                    return sse_gemini.answer(self, provider, body, LoggedRequest, Step("text", text=provider.aux_text))
                model_call = is_model_call(self.path, body)
                anthropic = "/messages" in self.path
                path = self.path.split("?")[0]
                if model_call:
                    step: Step | None = provider.responder(body) if provider.responder else provider.next_step()
                elif (anthropic and not path.endswith("count_tokens")) or sse_chat.is_chat(path):
                    step = Step("text", text=provider.aux_text)  # a side call: answered, not scripted
                else:
                    step = None
                provider._log(LoggedRequest("POST", self.path, dict(self.headers), body, model_call, step))
                if step is not None:
                    self._answer(step, body, anthropic)
                elif path.endswith("count_tokens"):
                    self._json(200, {"input_tokens": 100})
                else:
                    self._json(200, {})

            def _json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _answer(self, step: Step, body: Any, anthropic: bool) -> None:
                if step.kind == "hang_headers":
                    provider._stop.wait(provider.hang_seconds)
                    self.close_connection = True
                    return
                if step.kind == "status":
                    # OpenCode waits as long as `retry-after-ms` says (else 2 s, doubling, 5 retries).
                    retry = {"retry-after-ms": str(step.retry_after_ms)} if step.retry_after_ms is not None else None
                    self._json(step.status, sse_formats.error_body(anthropic, step.status, step.message), retry)
                    return
                # Claude Code falls back to a non-streamed request when a stream fails: the
                # scripted fault applies to both.
                stream = not isinstance(body, dict) or body.get("stream", True)
                chat = sse_chat.is_chat(self.path)
                if chat and not stream:
                    self._json(200, sse_chat.completion(step, body))
                    return
                if stream:
                    build = (sse_formats.anthropic_events if anthropic else
                             sse_chat.events if chat else sse_formats.openai_events)
                    chunks = build(step, body)
                    content_type = "text/event-stream"
                else:
                    whole = json.dumps(sse_formats.anthropic_message(step, body)).encode()
                    chunks = [whole[: len(whole) // 2], whole[len(whole) // 2:]]
                    content_type = "application/json"
                self.send_response(200)
                self.send_header("Content-Type", content_type)
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True
                try:
                    if step.kind == "garbage":
                        self.wfile.write(b"<html>upstream exploded</html>\n\n")
                        return
                    for index, chunk in enumerate(chunks):
                        if step.kind == "truncate" and index == len(chunks) // 2:
                            return
                        if step.kind == "hang_body" and index == 1:
                            self.wfile.flush()
                            provider._stop.wait(provider.hang_seconds)
                            return
                        self.wfile.write(chunk)
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass

        return Handler

