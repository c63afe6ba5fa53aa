"""The two streamed wire formats of `scripted_provider`: OpenAI Responses and Anthropic Messages.

A `Step` of kind `tool` names a logical tool: `shell` (args `command`: one shell command
line) or `apply_patch` (args `patch`: a Codex patch) for Codex, or a Claude Code tool by its
own name (`Bash`, `Edit`, `Write`, …) with that tool's input. The OpenAI side maps `shell`
onto whichever shell tool the request offered (`exec_command`, `shell_command`, `shell`).
"""

from __future__ import annotations

import json
import uuid
from typing import Any


def _sse(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def error_body(anthropic: bool, status: int, message: str) -> dict[str, Any]:
    text = message or f"scripted status {status}"
    if anthropic:
        kinds = {401: "authentication_error", 429: "rate_limit_error", 529: "overloaded_error",
                 400: "invalid_request_error", 413: "request_too_large"}
        return {"type": "error", "error": {"type": kinds.get(status, "api_error"), "message": text}}
    return {"error": {"message": text, "type": "invalid_request_error" if status < 500 else "server_error",
                      "code": "context_length_exceeded" if "context" in text else None}}


def _tool_names(body: Any) -> list[str]:
    names = []
    for tool in body.get("tools") or [] if isinstance(body, dict) else []:
        if isinstance(tool, dict):
            names.append(str(tool.get("name") or (tool.get("function") or {}).get("name") or ""))
    return names


def _openai_call(step: Any, body: Any) -> dict[str, Any]:
    offered = _tool_names(body)
    call_id = f"call_{uuid.uuid4().hex[:12]}"
    if step.name == "apply_patch":
        patch = step.args["patch"]
        if "apply_patch" in offered and any(isinstance(t, dict) and t.get("type") == "custom"
                                            and t.get("name") == "apply_patch" for t in body.get("tools") or []):
            return {"type": "custom_tool_call", "call_id": call_id, "name": "apply_patch", "input": patch,
                    "status": "completed"}
        if "apply_patch" in offered:
            return {"type": "function_call", "call_id": call_id, "name": "apply_patch",
                    "arguments": json.dumps({"input": patch})}
        command = f"apply_patch <<'EOF'\n{patch}\nEOF"
    else:
        command = step.args.get("command", "")
    if "exec_command" in offered:
        name, args = "exec_command", {"cmd": command}
    elif "shell_command" in offered:
        name, args = "shell_command", {"command": command}
    else:
        name, args = "shell", {"command": ["bash", "-lc", command]}
    return {"type": "function_call", "call_id": call_id, "name": name, "arguments": json.dumps(args)}


def openai_events(step: Any, body: Any) -> list[bytes]:
    """`response.created` … `response.completed` for one scripted step."""
    response_id = f"resp_{uuid.uuid4().hex[:12]}"
    if step.kind == "tool":
        item = _openai_call(step, body)
    else:
        item = {"type": "message", "role": "assistant", "id": f"msg_{uuid.uuid4().hex[:8]}",
                "content": [{"type": "output_text", "text": step.text or "Done."}]}
    usage = {"input_tokens": step.input_tokens, "input_tokens_details": {"cached_tokens": step.cached_tokens},
             "output_tokens": step.output_tokens, "output_tokens_details": {"reasoning_tokens": 0},
             "total_tokens": step.input_tokens + step.output_tokens}
    return [
        _sse("response.created", {"type": "response.created", "response": {"id": response_id}}),
        _sse("response.output_item.done", {"type": "response.output_item.done", "item": item}),
        _sse("response.completed", {"type": "response.completed",
                                    "response": {"id": response_id, "usage": usage}}),
    ]


def _anthropic_blocks(step: Any) -> list[dict[str, Any]]:
    if step.kind == "tool":
        return [{"type": "tool_use", "id": f"toolu_{uuid.uuid4().hex[:16]}", "name": step.name,
                 "input": step.args}]
    return [{"type": "text", "text": step.text or "Done."}]


def anthropic_message(step: Any, body: Any) -> dict[str, Any]:
    """A non-streamed Messages API answer."""
    return {"id": f"msg_{uuid.uuid4().hex[:16]}", "type": "message", "role": "assistant",
            "model": (body or {}).get("model", "scripted") if isinstance(body, dict) else "scripted",
            "content": _anthropic_blocks(step), "stop_reason": "tool_use" if step.kind == "tool" else "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": step.input_tokens, "cache_read_input_tokens": step.cached_tokens,
                      "cache_creation_input_tokens": 0, "output_tokens": step.output_tokens}}


def anthropic_events(step: Any, body: Any) -> list[bytes]:
    """`message_start` … `message_stop`; output tokens arrive in `message_delta` as the API does."""
    message = anthropic_message(step, body)
    start = {**message, "content": [], "stop_reason": None,
             "usage": {**message["usage"], "output_tokens": 1}}
    events = [_sse("message_start", {"type": "message_start", "message": start})]
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            events.append(_sse("content_block_start", {"type": "content_block_start", "index": index,
                                                       "content_block": {"type": "text", "text": ""}}))
            events.append(_sse("content_block_delta", {"type": "content_block_delta", "index": index,
                                                       "delta": {"type": "text_delta", "text": block["text"]}}))
        else:
            events.append(_sse("content_block_start", {"type": "content_block_start", "index": index,
                                                       "content_block": {**block, "input": {}}}))
            events.append(_sse("content_block_delta", {"type": "content_block_delta", "index": index,
                                                       "delta": {"type": "input_json_delta",
                                                                 "partial_json": json.dumps(block["input"])}}))
        events.append(_sse("content_block_stop", {"type": "content_block_stop", "index": index}))
    events.append(_sse("message_delta", {"type": "message_delta",
                                         "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                                         "usage": {"output_tokens": step.output_tokens}}))
    events.append(_sse("message_stop", {"type": "message_stop"}))
    return events
