"""The bytes the server answers: completion bodies, OpenAI error objects, malformed bodies, the token estimate."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from sim.mockllm.config import MalformedVariant
from sim.mockllm.policies import Reply

_SERVER_ERRORS = {
    500: ("The server had an error while processing your request.", "internal_error"),
    502: ("Bad gateway.", "bad_gateway"),
    503: ("The engine is currently overloaded, please try again later.", "service_unavailable"),
}


@dataclass(frozen=True)
class RawReply:
    """A complete HTTP answer: status, body bytes, content type (with its charset parameter, if any) and extra
    headers."""

    status: int
    body: bytes
    content_type: str = "application/json"
    charset: str | None = None
    headers: dict[str, str] = field(default_factory=dict)


def count_tokens(text: str) -> int:
    """The mock's deterministic token estimate: four characters a token."""
    return len(text) // 4


def prompt_tokens(body: bytes) -> int:
    """Prompt estimate: the request body as sent (messages and tool definitions, as a provider counts them), four
    bytes a token. Free to compute, unlike re-serialising or walking a long conversation on every request."""
    return len(body) // 4


def completion_tokens(reply: Reply) -> int:
    """Completion estimate: the text plus each call's name and arguments, four characters a token, plus one."""
    return count_tokens((reply.text or "") + "".join(c.name + c.arguments for c in reply.tool_calls)) + 1


def completion_body(
    completion_id: str, model: str, created: int, reply: Reply, prompt: int, completion: int
) -> dict[str, Any]:
    """A chat.completion object as the OpenAI API returns it; `prompt`/`completion` are the usage token counts."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.text, "refusal": None}
    if reply.tool_calls:
        message["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in reply.tool_calls
        ]
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": created,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": "tool_calls" if reply.tool_calls else "stop",
            }
        ],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
    }


def error_body(message: str, type_: str, code: str | None) -> dict[str, Any]:
    """An OpenAI-style error object, as the openai SDK parses it."""
    return {"error": {"message": message, "type": type_, "param": None, "code": code}}


def error_reply(
    status: int, message: str, type_: str, code: str | None, headers: dict[str, str] | None = None
) -> RawReply:
    return RawReply(status, json.dumps(error_body(message, type_, code)).encode(), headers=headers or {})


def retry_after_headers(seconds: float, with_ms: bool) -> dict[str, str]:
    # Both round up, so a client that waits exactly as told finds the capacity there. Retry-After must be whole
    # seconds (pydantic-ai parses it with int()); retry-after-ms keeps the precision.
    headers = {"Retry-After": str(max(0, math.ceil(seconds)))}
    if with_ms:
        headers["retry-after-ms"] = str(max(0, math.ceil(seconds * 1000)))
    return headers


def rate_limit_reply(
    message: str, type_: str = "requests", retry_after_s: float | None = None, with_ms: bool = True
) -> RawReply:
    """A 429; without retry_after_s (a request too large to ever fit) no Retry-After is sent."""
    headers = retry_after_headers(retry_after_s, with_ms) if retry_after_s is not None else {}
    return error_reply(429, message, type_, "rate_limit_exceeded", headers)


def server_error_reply(status: int) -> RawReply:
    message, code = _SERVER_ERRORS.get(status, ("Server error.", "server_error"))
    return error_reply(status, message, "server_error", code)


def malformed_reply(variant: MalformedVariant, completion_id: str, model: str, created: int) -> RawReply:
    """A 200 whose body the client cannot use."""
    if variant == "missing_choices":
        body = {"id": completion_id, "object": "chat.completion", "created": created, "model": model}
        return RawReply(200, json.dumps(body).encode())
    if variant == "not_json":
        return RawReply(200, b"<html><body>502 upstream hiccup</body></html>", content_type="text/plain")
    # A body cut off mid-stream, as a dropped proxy connection leaves it.
    return RawReply(200, f'{{"id": "{completion_id}", "object": "chat.completion", "choices": [{{"index'.encode())
