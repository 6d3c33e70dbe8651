"""What one server saw, served as JSON on GET /v1/stats (and /stats) for harnesses to read."""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel, Field

K = TypeVar("K")


def bump(counter: dict[K, int], key: K) -> None:
    """Add one to a by-key counter."""
    counter[key] = counter.get(key, 0) + 1


class ServerStats(BaseModel):
    """Counters of one server's life."""

    requests: int = Field(default=0, description="HTTP requests of any kind.")
    completions: int = Field(default=0, description="POSTs to chat/completions (the fault ordinal).")
    served: int = Field(default=0, description="Completions answered with a well-formed 200 body.")
    by_status: dict[int, int] = Field(default_factory=dict, description="Answered requests per HTTP status.")
    rate_limited: int = Field(default=0, description="429 answers, from faults and the limiter.")
    rate_limited_by: dict[str, int] = Field(
        default_factory=dict,
        description="429s by reason: 'fault' (a rate_limit fault rule), 'requests' (rpm), 'tokens' (tpm), "
        "'too_large' (a request costing more than tpm).",
    )
    faults: dict[str, int] = Field(default_factory=dict, description="Injected faults per kind, counted when applied.")
    cancelled: int = Field(default=0, description="Requests whose client went away before the answer.")
    in_flight: int = Field(default=0, description="Completions being handled now.")
    max_in_flight: int = Field(default=0, description="Most completions handled at once.")
    admitted: int = Field(default=0, description="Completions admitted by the rate limiter (all, when none is set).")
    tokens_charged: int = Field(
        default=0, description="Tokens of admitted completions (what tpm charges), hung or malformed ones included."
    )
    prompt_tokens: int = Field(default=0, description="Sum of reported prompt tokens.")
    completion_tokens: int = Field(default=0, description="Sum of reported completion tokens.")
    tool_calls: int = Field(default=0, description="Tool calls answered.")
    uptime_s: float = Field(default=0.0, description="Seconds since the server started.")
    cpu_s: float = Field(default=0.0, description="CPU seconds the server's process has used (user + system).")
