"""The OpenAI Chat Completions side of `scripted_provider` (`POST …/chat/completions`).

OpenCode talks to an OpenAI-compatible provider this way. A streamed answer is a series of
`data: <chat.completion.chunk>` events: `choices[0].delta` carries `content` text or
`tool_calls` (`index`, `id`, `function` `name` and `arguments` as a JSON string), the chunk
with `finish_reason` (`stop`, `tool_calls`) closes the choice, a last chunk with no choices
carries `usage` (`prompt_tokens` with cached ones included, `prompt_tokens_details.cached_tokens`,
`completion_tokens`), then `data: [DONE]`. Errors are `{"error": {"message", "type", "code"}}`.

A `Step` of kind `tool` names an OpenCode tool by its own name (`bash`, `edit`, `write`,
`read`, …) with that tool's arguments.
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any


def is_chat(path: str) -> bool:
    return path.split("?")[0].rstrip("/").endswith("/chat/completions")


def is_model_call(path: str, body: Any) -> bool:
    """The agent loop's requests carry tools; titles and summaries carry none."""
    return is_chat(path) and isinstance(body, dict) and bool(body.get("tools"))


def _chunk(base: dict[str, Any], delta: dict[str, Any] | None, finish: str | None = None,
           usage: dict[str, Any] | None = None) -> bytes:
    choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
    chunk = {**base, "choices": choices, **({"usage": usage} if usage else {})}
    return f"data: {json.dumps(chunk)}\n\n".encode()


def events(step: Any, body: Any) -> list[bytes]:
    """The SSE events of one streamed answer, `[DONE]` last."""
    model = body.get("model", "scripted") if isinstance(body, dict) else "scripted"
    base = {"id": f"chatcmpl-{uuid.uuid4().hex[:12]}", "object": "chat.completion.chunk",
            "created": int(time.time()), "model": model}
    out = [_chunk(base, {"role": "assistant", "content": ""})]
    if step.kind == "tool":
        call = {"index": 0, "id": f"call_{uuid.uuid4().hex[:12]}", "type": "function",
                "function": {"name": step.name, "arguments": json.dumps(step.args)}}
        out.append(_chunk(base, {"tool_calls": [call]}))
        finish = "tool_calls"
    else:
        text = step.text or "Done."
        # Two pieces, so a truncated stream stops in the middle of the answer.
        out += [_chunk(base, {"content": text[: len(text) // 2]}), _chunk(base, {"content": text[len(text) // 2:]})]
        finish = "stop"
    out.append(_chunk(base, {}, finish))
    usage = {"prompt_tokens": step.input_tokens, "completion_tokens": step.output_tokens,
             "total_tokens": step.input_tokens + step.output_tokens,
             "prompt_tokens_details": {"cached_tokens": step.cached_tokens}}
    out.append(_chunk(base, None, usage=usage))
    out.append(b"data: [DONE]\n\n")
    return out


def completion(step: Any, body: Any) -> dict[str, Any]:
    """A whole (non-streamed) chat completion, for side calls that ask for one."""
    text = step.text or "Done."
    return {"id": f"chatcmpl-{uuid.uuid4().hex[:12]}", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model", "scripted") if isinstance(body, dict) else "scripted",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": step.input_tokens, "completion_tokens": step.output_tokens,
                      "total_tokens": step.input_tokens + step.output_tokens}}
