"""The one door every LLM call goes through: per-endpoint concurrency, retries, accounting.

A run owns exactly one Gateway; each episode talks to it through an EpisodeLLM handle, which counts
agent steps and attributes usage and waiting time to the episode. The token-budgeted scheduler will
grow inside Gateway.run without changing its callers.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager, nullcontext
from typing import TypeVar

from sim.core import Event, FaultKind, Usage
from sim.llm.errors import ProviderError, StepLimitReached, classify
from sim.llm.retry_policy import RetryPolicy

T = TypeVar("T")


class Gateway:
    """Run-level owner of LLM access. Holds no per-episode state."""

    def __init__(
        self,
        concurrency_per_endpoint: int = 16,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        seed: int = 0,
    ) -> None:
        self.concurrency_per_endpoint = concurrency_per_endpoint
        self.retry = retry or RetryPolicy()
        self._sleep = sleep
        self._slots: dict[str, asyncio.Semaphore] = {}
        self._jitter = random.Random(seed)
        self.totals = Usage()

    def _slot(self, endpoint: str) -> asyncio.Semaphore:
        if endpoint not in self._slots:
            self._slots[endpoint] = asyncio.Semaphore(self.concurrency_per_endpoint)
        return self._slots[endpoint]

    async def run(
        self,
        endpoint: str,
        request: Callable[[], Awaitable[T]],
        usage: Usage,
        on_retry: Callable[[str, str], None] | None = None,
        waiting: Callable[[], AbstractContextManager[None]] = nullcontext,
    ) -> T:
        """Run ``request`` with a slot on ``endpoint``, retrying rate limits and transient faults.

        Rate limits wait as long as the provider asks (Retry-After), within a time budget of their own;
        other transient faults back off within ``max_attempts``. Time spent waiting for a slot or before
        a retry is charged to ``usage.waiting_s`` and runs inside ``waiting()`` (the episode pauses its
        deadline there: a slow provider is not the agent's timeout); time inside requests goes to
        ``usage.working_s``. Raises ProviderError when it gives up.
        """
        policy = self.retry
        attempts = malformed = limited = 0
        rate_limited_s = 0.0
        while True:
            queued = time.monotonic()
            with waiting():
                await self._slot(endpoint).acquire()
            try:
                started = time.monotonic()
                usage.waiting_s += started - queued
                try:
                    result = await request()
                except (asyncio.CancelledError, StepLimitReached):
                    raise
                except Exception as exc:
                    usage.working_s += time.monotonic() - started
                    cls, code, retry_after = classify(exc)
                    if cls == "passthrough":
                        raise
                    error, detail = exc, f"{type(exc).__name__}: {exc}"[:500]
                else:
                    usage.working_s += time.monotonic() - started
                    return result
            finally:
                # Released before sleeping: a request waiting to retry must not hold a slot others could use.
                self._slot(endpoint).release()
            if cls == "rate_limit":
                limited += 1
                delay = self._delay(limited, retry_after)
                rate_limited_s += delay
                give_up = delay > policy.max_retry_after_s or rate_limited_s > policy.rate_limit_budget_s
            else:
                attempts += 1
                delay = self._delay(attempts, retry_after)
                malformed += code == "provider:malformed_response"
                give_up = cls == "fatal" or attempts >= policy.max_attempts or malformed >= policy.max_malformed
            if give_up:
                raise ProviderError(code, f"{detail} (gave up after {attempts + limited} failed attempt(s))") from error
            usage.retries += 1
            if on_retry is not None:
                on_retry(code, f"{detail}; retry in {delay:.2f}s")
            with waiting():
                await self._sleep(delay)
            usage.waiting_s += delay

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        policy = self.retry
        if retry_after is not None:
            return max(retry_after, 0.0)
        backoff = policy.base_delay_s * 2 ** (attempt - 1)
        return min(backoff * (0.5 + self._jitter.random()), policy.max_delay_s)


class EpisodeLLM:
    """One episode's handle on the gateway: step budget per turn, usage and provider-fault events."""

    def __init__(
        self,
        gateway: Gateway,
        max_steps: int,
        record: Callable[[Event], None],
        clock: Callable[[], float],
    ) -> None:
        self.gateway = gateway
        self.max_steps = max_steps
        self.usage = Usage()
        self.turn_usage = Usage()
        self._record = record
        self._clock = clock
        self.turn = 0
        self.steps = 0
        self.waiting: Callable[[], AbstractContextManager[None]] = nullcontext
        """Entered while the gateway waits (slots, Retry-After); the episode pauses its deadline there."""

    def start_turn(self, turn: int) -> None:
        self.turn, self.steps, self.turn_usage = turn, 0, Usage()

    async def run(self, endpoint: str, request: Callable[[], Awaitable[T]]) -> T:
        if self.steps >= self.max_steps:
            raise StepLimitReached(f"more than {self.max_steps} model requests in turn {self.turn}")
        self.steps += 1
        before = self.turn_usage.model_copy()
        try:
            return await self.gateway.run(endpoint, request, self.turn_usage, self._on_retry, self.waiting)
        finally:
            delta = _diff(self.turn_usage, before)
            self.usage.add(delta)
            self.gateway.totals.add(delta)

    def record_usage(self, usage: Usage) -> None:
        for target in (self.turn_usage, self.usage, self.gateway.totals):
            target.requests += usage.requests
            target.input_tokens += usage.input_tokens
            target.output_tokens += usage.output_tokens
            target.cost += usage.cost

    def _on_retry(self, code: str, detail: str) -> None:
        self._record(self._fault_event("provider", code, detail))

    def _fault_event(self, fault: FaultKind, code: str, detail: str) -> Event:
        return Event(
            kind="error", turn=self.turn, step=self.steps, t=self._clock(), fault=fault, code=code, content=detail
        )


def _diff(after: Usage, before: Usage) -> Usage:
    return Usage(**{k: getattr(after, k) - getattr(before, k) for k in Usage.model_fields})
