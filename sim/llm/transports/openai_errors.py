"""A Chat Completions endpoint's failure classified for the gateway, from its status, headers and error body.

Error bodies differ between providers: OpenAI's ``{"error": {"message", "type", "code"}}`` (Azure, Groq, DeepSeek,
llama.cpp, Ollama, newer vLLM), a top-level ``{"object": "error", "message": ...}`` (Mistral, older vLLM), a list
holding one such object (Gemini), Anthropic's ``{"type": "error", "error": {"type", "message"}}``. Each is read for
its message and code; the wait a 429 asks for comes from ``retry-after-ms`` / ``retry-after``, else from Gemini's
``RetryInfo.retryDelay`` in the body. A 429 for want of credit (OpenAI's ``insufficient_quota``) is not waited out.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from sim.llm.transports.base import TransportError, retry_after_from

CONTEXT_MARKERS = (
    "context_length_exceeded",
    "maximum context length",
    "context length",
    "too many tokens",
    "context size",  # llama.cpp: "request (4297 tokens) exceeds the available context size"
    "prompt is too long",  # Anthropic: "prompt is too long: 208000 tokens > 200000 maximum"
)
INTERRUPTED_FINISH = frozenset({"insufficient_system_resource", "error"})
"""Finish reasons that say the provider broke the generation off (DeepSeek's ``insufficient_system_resource``,
Mistral's ``error``): a provider fault, retried like a server error, not a reply the agent made."""
_LIMIT_PREFIXES = ("x-ratelimit", "retry-after")


def limit_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """Only what pacing and retries read: x-ratelimit-* and retry-after(-ms), lower-cased."""
    out = {}
    for name, value in headers.items():
        lower = name.lower()
        if lower.startswith(_LIMIT_PREFIXES):
            out[lower] = value
    return out


def http_error(status: int, raw: bytes, headers: dict[str, str]) -> TransportError:
    error = _error_object(raw)
    message, code = error_fields(error, raw)
    detail = f"HTTP {status}: {message}"[:500]
    retry_after = retry_after_from(headers)
    if status == 429 and "insufficient_quota" in code:  # OpenAI: out of credit, not a pace to wait out
        return TransportError("fatal", "provider:insufficient_quota", detail, None, headers)
    if status == 429:
        if retry_after is None:
            retry_after = _retry_delay(error)
        return TransportError("rate_limit", "provider:rate_limited", detail, retry_after, headers)
    if status == 400 and any(marker in f"{code} {message}".lower() for marker in CONTEXT_MARKERS):
        return TransportError("context_length", "agent:context_length", detail, None, headers)
    if status >= 500 or status in (408, 409):
        return TransportError("transient", f"provider:http_{status}", detail, retry_after, headers)
    return TransportError("fatal", f"provider:http_{status}", detail, None, headers)


def _error_object(raw: bytes) -> dict[str, Any] | None:
    """The object that describes the error: ``error`` of the body (or of its first element), else the body when it
    carries a message itself; None when the body is not JSON or says nothing."""
    try:
        body = json.loads(raw)
    except ValueError:
        return None
    if isinstance(body, list) and body:
        body = body[0]
    if not isinstance(body, dict):
        return None
    error = body.get("error")
    if isinstance(error, dict):
        return error
    if error is not None:
        return {"message": error}
    return body if "message" in body or "detail" in body else None


def error_fields(error: dict[str, Any] | None, raw: bytes) -> tuple[str, str]:
    """(message, code) of an error object; the start of the raw body when there is none."""
    if error is None:
        return raw[:200].decode("utf-8", "replace"), ""
    message = error.get("message", error.get("detail"))
    if not isinstance(message, str):
        message = json.dumps(message, ensure_ascii=False, default=str)[:300]
    code = " ".join(str(error[key]) for key in ("code", "type", "status") if error.get(key))
    return message, code


def _retry_delay(error: dict[str, Any] | None) -> float | None:
    """Gemini's wait: ``details[].retryDelay`` of a ``google.rpc.RetryInfo``, e.g. ``"43s"`` or ``"1.5s"``."""
    details = error.get("details") if error is not None else None
    for item in details if isinstance(details, list) else ():
        delay = item.get("retryDelay") if isinstance(item, dict) else None
        if isinstance(delay, str) and delay.endswith("s"):
            try:
                return max(0.0, float(delay[:-1]))
            except ValueError:
                return None
    return None
