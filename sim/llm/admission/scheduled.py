"""squall's admission policy: the run's Scheduler paces every attempt, and retries wait as long as the provider asks.

Each attempt reserves its estimated input plus its output limit from the endpoint's token budget and takes a
connection under the adaptive limit. A 429 pauses the whole endpoint (Retry-After, reset headers or backoff): the
next admission waits the pause out, so the gateway does not sleep for it; a budget of their own bounds how long
rate limits may hold a request. Other transient faults back off (Retry-After capped, else jittered exponential)
within ``max_attempts``; malformed bodies get ``max_malformed`` attempts; fatal faults give up at once.
"""

from __future__ import annotations

import random

from sim.core import ModelRequest
from sim.llm.admission.policy import Retry, gave_up
from sim.llm.admission.scheduler import Permit, Scheduler
from sim.llm.retry_policy import RetryPolicy
from sim.llm.transports.base import Reply, TransportError


class ScheduledAdmission:
    """One per gateway. Owns its scheduler (closed with it)."""

    def __init__(self, scheduler: Scheduler, retry: RetryPolicy | None = None, seed: int = 0) -> None:
        self.scheduler = scheduler
        self.retry = retry or RetryPolicy()
        self._jitter = random.Random(seed)

    def open(self, request: ModelRequest, endpoint: str) -> ScheduledRequest:
        return ScheduledRequest(self, endpoint, self.scheduler.estimate_tokens(request), request.max_tokens)

    async def aclose(self) -> None:
        await self.scheduler.aclose()

    def backoff(self, attempt: int, retry_after_s: float | None) -> float:
        """Retry-After as asked, capped at ``max_retry_after_s``; else jittered exponential backoff."""
        policy = self.retry
        if retry_after_s is not None:
            return min(max(retry_after_s, 0.0), policy.max_retry_after_s)
        delay = policy.base_delay_s * 2 ** (attempt - 1)
        return min(delay * (0.5 + self._jitter.random()), policy.max_delay_s)


class ScheduledRequest:
    """One request's permits (one per attempt) and its retry counts."""

    __slots__ = ("_endpoint", "_failed", "_malformed", "_max_tokens", "_permit", "_policy", "_rate_limited",
                 "_rate_limited_s", "_tokens")  # fmt: skip

    def __init__(self, policy: ScheduledAdmission, endpoint: str, tokens: int, max_tokens: int | None) -> None:
        self._policy, self._endpoint, self._tokens, self._max_tokens = policy, endpoint, tokens, max_tokens
        self._failed = self._malformed = self._rate_limited = 0
        self._rate_limited_s = 0.0
        self._permit: Permit

    async def enter(self) -> float:
        # A request retried after a 429 queues at the front: it has waited longest.
        permit = self._permit = self._policy.scheduler.admit(
            self._endpoint, self._tokens, self._max_tokens, retry=self._rate_limited > 0
        )
        await permit.acquire()
        return permit.waited_s

    def succeeded(self, reply: Reply) -> None:
        response = reply.response
        self._permit.completed(response.input_tokens, response.output_tokens, reply.headers)

    def failed(self, error: TransportError) -> Retry:
        permit, policy = self._permit, self._policy.retry
        if error.kind == "rate_limit":
            pause = permit.rate_limited(error.retry_after_s, error.headers, give_up_s=policy.max_retry_after_s)
            self._rate_limited += 1
            self._rate_limited_s += pause
            if pause > policy.max_retry_after_s or self._rate_limited_s > policy.rate_limit_budget_s:
                raise gave_up(error, self._failed + self._rate_limited) from error
            return Retry(pause, sleep=not permit.paused)  # a paused endpoint's admission waits it out itself
        if error.kind == "malformed":
            permit.completed(0, 0, error.headers)  # billed, usage unknown: the reservation stands
        else:
            permit.failed()
        self._failed += 1
        self._malformed += error.kind == "malformed"
        delay = self._policy.backoff(self._failed, error.retry_after_s)
        if error.kind == "fatal" or self._failed >= policy.max_attempts or self._malformed >= policy.max_malformed:
            raise gave_up(error, self._failed + self._rate_limited) from error
        return Retry(delay, sleep=True)

    def leave(self) -> None:
        self._permit.release()  # without an outcome (cancelled, a bug, a context-length refusal) it counts as failed
