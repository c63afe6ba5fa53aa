"""The Gemini API (`generativelanguage` v1beta) side of `scripted_provider`.

Gemini CLI with an API key talks to `POST <base>/v1beta/models/<model>:streamGenerateContent?alt=sse`
for the agent loop (a request carrying `tools`), and to `:generateContent` (not streamed),
`:countTokens` and model lists for side calls (routing, summaries, token counts). Each SSE
event is `data: <GenerateContentResponse>`: `candidates[0].content.parts` hold `text` or a
`functionCall` (`name`, `args`), the last event carries `finishReason` and `usageMetadata`
(`promptTokenCount` — cached tokens included —, `cachedContentTokenCount`,
`candidatesTokenCount`, `totalTokenCount`). Errors are `{"error": {"code", "message", "status"}}`.

A `Step` of kind `tool` names a Gemini CLI tool by its own name (`run_shell_command`,
`replace`, `write_file`, `read_file`, …) with that tool's arguments.
"""

from __future__ import annotations

import json
import re
import uuid
from typing import Any, Callable

#: `/v1beta/models/<model>:<method>` (any prefix: the broker puts a secret path in front).
_PATH = re.compile(r"/v1(?:beta|alpha)?/models/([^/:?]+):(streamGenerateContent|generateContent|countTokens)\b")
_STATUS_NAMES = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
                 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED"}


def method(path: str) -> str | None:
    """`streamGenerateContent`, `generateContent` or `countTokens` for a Gemini API path, else None."""
    match = _PATH.search(path.split("?")[0])
    return match.group(2) if match else None


def is_model_call(path: str, body: Any) -> bool:
    """The agent loop's requests: streamed, with tools. Routing, summaries and checks have none."""
    return method(path) == "streamGenerateContent" and isinstance(body, dict) and bool(body.get("tools"))


def error_body(status: int, message: str) -> dict[str, Any]:
    return {"error": {"code": status, "message": message or f"scripted status {status}",
                      "status": _STATUS_NAMES.get(status, "UNKNOWN")}}


def _usage(step: Any) -> dict[str, Any]:
    usage = {"promptTokenCount": step.input_tokens, "candidatesTokenCount": step.output_tokens,
             "totalTokenCount": step.input_tokens + step.output_tokens}
    if step.cached_tokens:
        usage["cachedContentTokenCount"] = step.cached_tokens
    return usage


def _parts(step: Any) -> list[dict[str, Any]]:
    if step.kind == "tool":
        return [{"functionCall": {"id": f"call_{uuid.uuid4().hex[:12]}", "name": step.name, "args": step.args}}]
    text = step.text or "Done."
    # Two parts, so a truncated stream stops in the middle of the answer.
    return [{"text": text[: len(text) // 2]}, {"text": text[len(text) // 2:]}]


def response(step: Any, model: str) -> dict[str, Any]:
    """A whole (non-streamed) GenerateContentResponse."""
    return {"candidates": [{"content": {"role": "model", "parts": _parts(step)}, "finishReason": "STOP",
                            "index": 0}],
            "usageMetadata": _usage(step), "modelVersion": model, "responseId": uuid.uuid4().hex[:16]}


def events(step: Any, model: str) -> list[bytes]:
    """The SSE events of one streamed answer: one per part, usage and finish reason last."""
    whole = response(step, model)
    out = []
    for part in whole["candidates"][0]["content"]["parts"]:
        chunk = {"candidates": [{"content": {"role": "model", "parts": [part]}, "index": 0}],
                 "modelVersion": model, "responseId": whole["responseId"]}
        out.append(chunk)
    out.append({"candidates": [{"content": {"role": "model", "parts": [{"text": ""}]}, "finishReason": "STOP",
                                "index": 0}],
                "usageMetadata": whole["usageMetadata"], "modelVersion": model, "responseId": whole["responseId"]})
    return [f"data: {json.dumps(chunk)}\r\n\r\n".encode() for chunk in out]


def model_name(path: str) -> str:
    match = _PATH.search(path.split("?")[0])
    return match.group(1) if match else "scripted"


def answer(handler: Any, provider: Any, body: Any, record: Callable[..., Any], aux_step: Any) -> None:
    """Serve one Gemini API POST on the scripted provider's `handler`: log it (as a `record`,
    the provider's LoggedRequest), then answer it.

    Agent-loop calls take the script's next step (or the responder's); other generate calls
    (routing, summaries) get `aux_step` and are logged as answered; `countTokens` gets a
    count. Faults (`status`, `garbage`, `truncate`, `hang_*`) apply to agent-loop calls.
    """
    path = handler.path
    kind = method(path)
    model_call = is_model_call(path, body)
    if model_call:
        step = provider.responder(body) if provider.responder else provider.next_step()
    else:
        step = aux_step if kind in ("generateContent", "streamGenerateContent") else None
    provider._log(record("POST", path, dict(handler.headers), body, model_call, step))
    if step is None:
        handler._json(200, {"totalTokens": 100} if kind == "countTokens" else {})
    elif step.kind == "hang_headers":
        provider._stop.wait(provider.hang_seconds)
        handler.close_connection = True
    elif step.kind == "status":
        handler._json(step.status, error_body(step.status, step.message))
    elif kind == "generateContent":
        handler._json(200, response(step, model_name(path)))
    else:
        _stream(handler, provider, step, events(step, model_name(path)))


def _stream(handler: Any, provider: Any, step: Any, chunks: list[bytes]) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream")
    handler.send_header("Connection", "close")
    handler.end_headers()
    handler.close_connection = True
    if step.kind == "garbage":
        chunks = [b"<html>upstream exploded</html>\r\n\r\n"]
    elif step.kind == "truncate":
        chunks = chunks[: len(chunks) // 2]
    try:
        for index, chunk in enumerate(chunks):
            if step.kind == "hang_body" and index == 1:
                provider._stop.wait(provider.hang_seconds)
                return
            handler.wfile.write(chunk)
            handler.wfile.flush()
    except (BrokenPipeError, ConnectionResetError):
        pass
