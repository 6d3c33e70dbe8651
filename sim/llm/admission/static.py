"""The static baseline, the way peer harnesses run, kept for ``squall bench`` to compare against: a fixed number of
connections per endpoint, no token budgets, and blind exponential backoff for every failure (Retry-After ignored)."""

from __future__ import annotations

import asyncio
import random
import time

from sim.core import ModelRequest
from sim.llm.admission.policy import Retry, gave_up
from sim.llm.retry_policy import RetryPolicy
from sim.llm.transports.base import Reply, TransportError

_FIRST_BACKOFF_S, _LONGEST_BACKOFF_S = 1.0, 60.0


class StaticAdmission:
    def __init__(self, concurrency: int = 16, retry: RetryPolicy | None = None, seed: int = 0) -> None:
        self.concurrency = concurrency
        self.retry = retry or RetryPolicy()
        self._jitter = random.Random(seed)
        self._slots: dict[str, asyncio.Semaphore] = {}

    def open(self, request: ModelRequest, endpoint: str) -> StaticRequest:
        slot = self._slots.get(endpoint)
        if slot is None:
            slot = self._slots[endpoint] = asyncio.Semaphore(self.concurrency)
        return StaticRequest(self, slot)

    async def aclose(self) -> None:
        return None

    def backoff(self, attempt: int) -> float:
        """Exponential from a second with jitter, capped at a minute, whatever the provider said."""
        return min(_FIRST_BACKOFF_S * 2.0 ** (attempt - 1) * (0.5 + self._jitter.random()), _LONGEST_BACKOFF_S)


class StaticRequest:
    __slots__ = ("_failed", "_policy", "_slot")

    def __init__(self, policy: StaticAdmission, slot: asyncio.Semaphore) -> None:
        self._policy, self._slot, self._failed = policy, slot, 0

    async def enter(self) -> float:
        queued = time.monotonic()
        await self._slot.acquire()
        return time.monotonic() - queued

    def succeeded(self, reply: Reply) -> None:
        return None

    def failed(self, error: TransportError) -> Retry:
        self._failed += 1
        delay = self._policy.backoff(self._failed)
        if error.kind == "fatal" or self._failed >= self._policy.retry.max_attempts:
            raise gave_up(error, self._failed) from error
        return Retry(delay, sleep=True)

    def leave(self) -> None:
        self._slot.release()
