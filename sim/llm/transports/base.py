"""How the gateway reaches a model: a transport sends one ModelRequest; it returns the reply or raises a TransportError.

Two kinds: a lean OpenAI Chat Completions client for every OpenAI-compatible endpoint (local servers,
vLLM, most providers, OpenAI itself), and pydantic-ai's model layer for every other provider. Neither
retries: the gateway owns retries, pacing and accounting.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, Protocol

from sim.core import ModelRequest, ModelResponse

ErrorClass = Literal["rate_limit", "transient", "malformed", "fatal", "context_length"]
"""rate_limit: wait (Retry-After) and retry; transient: back off and retry; malformed: a body that did not
parse, retried a little; fatal: give up now; context_length: the request was too long for the model —
the agent's history grew too long, an agent fault, not a provider failure."""


@dataclass(frozen=True)
class Reply:
    response: ModelResponse
    headers: Mapping[str, str] = field(default_factory=dict)
    """Response headers, lower-case keys (rate-limit pacing reads x-ratelimit-*)."""


class TransportError(Exception):
    """A request that failed, classified so the gateway knows whether to wait, retry or give up."""

    def __init__(
        self,
        kind: ErrorClass,
        code: str,
        message: str,
        retry_after_s: float | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.code = code
        self.retry_after_s = retry_after_s
        self.headers: Mapping[str, str] = headers or {}


class Transport(Protocol):
    async def send(self, request: ModelRequest) -> Reply:
        """One attempt, no retries. Raises TransportError."""
        ...

    async def aclose(self) -> None: ...


def retry_after_from(headers: Mapping[str, str]) -> float | None:
    """Seconds the provider asked us to wait: retry-after-ms (precise), else Retry-After (seconds)."""
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            return max(0.0, float(value) * scale)
        except ValueError:
            continue  # an HTTP date: rare from model providers; fall back to backoff
    return None
