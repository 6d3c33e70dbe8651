"""Fault injection and rate limiting: which request goes wrong, and the exact bytes it gets back."""

from __future__ import annotations

import json
import math
import random
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sim.mockllm.config import FaultRule, MalformedVariant, RateLimit

_SERVER_ERRORS = {
    500: ("The server had an error while processing your request.", "internal_error"),
    502: ("Bad gateway.", "bad_gateway"),
    503: ("The engine is currently overloaded, please try again later.", "service_unavailable"),
}


@dataclass(frozen=True)
class RawReply:
    """A complete HTTP answer: status, body bytes, content type and extra headers."""

    status: int
    body: bytes
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)


def error_body(message: str, type_: str, code: str | None) -> dict[str, Any]:
    """An OpenAI-style error object, as the openai SDK parses it."""
    return {"error": {"message": message, "type": type_, "param": None, "code": code}}


def error_reply(
    status: int, message: str, type_: str, code: str | None, headers: dict[str, str] | None = None
) -> RawReply:
    return RawReply(status, json.dumps(error_body(message, type_, code)).encode(), headers=headers or {})


def retry_after_headers(seconds: float, with_ms: bool) -> dict[str, str]:
    # Retry-After must be whole seconds (pydantic-ai parses it with int()), so round up; retry-after-ms keeps precision.
    headers = {"Retry-After": str(max(0, math.ceil(seconds)))}
    if with_ms:
        headers["retry-after-ms"] = str(max(0, round(seconds * 1000)))
    return headers


def rate_limit_reply(seconds: float, with_ms: bool, message: str) -> RawReply:
    return error_reply(429, message, "requests", "rate_limit_exceeded", retry_after_headers(seconds, with_ms))


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


class FaultInjector:
    """Picks the fault rule (first match in order) for a 1-based global request ordinal."""

    def __init__(self, rules: list[FaultRule], seed: int) -> None:
        self._rules = rules
        self._rng = random.Random(seed)

    def match(self, ordinal: int) -> FaultRule | None:
        # Draw for every probability rule on every request, so the RNG sequence depends only on the ordinal,
        # not on which earlier rule happened to match.
        draws = [self._rng.random() if r.probability is not None else 1.0 for r in self._rules]
        for rule, draw in zip(self._rules, draws, strict=True):
            if ordinal in rule.at:
                return rule
            if rule.every is not None and ordinal % rule.every == 0:
                return rule
            if rule.probability is not None and draw < rule.probability:
                return rule
        return None


class RateLimiter:
    """Sliding-window limiter: at most `rpm` accepted requests in any `window_s` span."""

    def __init__(self, config: RateLimit, clock: Callable[[], float] = time.monotonic) -> None:
        self.config = config
        self._clock = clock
        self._accepted: deque[float] = deque()

    def acquire(self) -> float | None:
        """Record a request; None when accepted, else the seconds until a slot frees up (rejections not counted)."""
        now = self._clock()
        window = self.config.window_s
        while self._accepted and self._accepted[0] <= now - window:
            self._accepted.popleft()
        if len(self._accepted) < self.config.rpm:
            self._accepted.append(now)
            return None
        return max(0.001, self._accepted[0] + window - now)
