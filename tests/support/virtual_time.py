"""A virtual clock and a fake rate-limited endpoint for scheduler tests (no real sleeps)."""

from __future__ import annotations

import asyncio
import heapq
from collections import deque
from collections.abc import Awaitable
from typing import Any, TypeVar

from sim.llm.admission.scheduler import Scheduler

T = TypeVar("T")


EP = "http://mock/v1"


class VirtualTime:
    """A fake clock and sleep. ``run`` drives a coroutine, advancing time only when every task is blocked."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps = 0
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps += 1
        fut = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (self.now + max(seconds, 0.0), self.sleeps, fut))
        await fut

    async def run(self, coro: Awaitable[T]) -> T:
        task = asyncio.ensure_future(coro)
        loop = asyncio.get_running_loop()
        while not task.done():
            await asyncio.sleep(0)
            if loop._ready or task.done():  # type: ignore[attr-defined]  # something can still run: let it
                continue
            while self._sleepers and self._sleepers[0][2].done():
                heapq.heappop(self._sleepers)  # a cancelled sleep
            if not self._sleepers:
                task.cancel()
                raise AssertionError("deadlock: every task waits and nothing sleeps")
            when, _, fut = heapq.heappop(self._sleepers)
            self.now = max(self.now, when)
            fut.set_result(None)
        return task.result()


class FakeEndpoint:
    """A rate-limited provider on virtual time. Tokens are counted at arrival (input + output), as a limiter that
    cannot see the future must; ``window``: a strict sliding 60 s window, else a token bucket (OpenAI's model)
    that starts full. Optionally caps concurrent requests, and sends OpenAI's x-ratelimit-* headers."""

    def __init__(
        self,
        vt: VirtualTime,
        tpm: int | None = None,
        *,
        window: bool = True,
        max_in_flight: int | None = None,
        latency_s: float = 2.0,
        headers: bool = False,
        retry_after_s: float | None = 1.0,
        honest_reset: bool = True,
    ) -> None:
        self.vt, self.tpm, self.window, self.max_in_flight = vt, tpm, window, max_in_flight
        self.latency_s, self.send_headers, self.retry_after_s = latency_s, headers, retry_after_s
        self.honest_reset = honest_reset
        """False: a window that reports its reset as a bucket's would be (time to refill what is used, at the rate)."""
        self.recent: deque[tuple[float, int]] = deque()
        self.used = 0  # window: tokens in the last 60 s
        self.level, self.updated = float(tpm or 0), 0.0  # bucket
        self.in_flight = self.ok = self.rejected = self.tokens = 0

    def remaining(self) -> float:
        now = self.vt.now
        assert self.tpm is not None
        if self.window:
            while self.recent and self.recent[0][0] <= now - 60.0:
                self.used -= self.recent.popleft()[1]
            return self.tpm - self.used
        self.level = min(float(self.tpm), self.level + (now - self.updated) * self.tpm / 60.0)
        self.updated = now
        return self.level

    def headers(self) -> dict[str, str]:
        if not self.send_headers or self.tpm is None:
            return {}
        left = self.remaining()
        # When it is full again: a bucket at its rate; a window when its newest charge leaves.
        reset = (self.tpm - left) / (self.tpm / 60.0)
        if self.window and self.honest_reset:
            reset = self.recent[-1][0] + 60.0 - self.vt.now if self.recent else 0.0
        return {
            "x-ratelimit-limit-tokens": str(self.tpm),
            "x-ratelimit-remaining-tokens": str(int(left)),
            "x-ratelimit-reset-tokens": f"{reset:.3f}s",
        }

    async def call(self, input_tokens: int, output_tokens: int) -> tuple[bool, dict[str, str]]:
        cost = input_tokens + output_tokens
        over_tpm = self.tpm is not None and cost > self.remaining()
        if over_tpm or (self.max_in_flight is not None and self.in_flight >= self.max_in_flight):
            self.rejected += 1
            return False, self.headers()
        if self.tpm is not None:
            if self.window:
                self.recent.append((self.vt.now, cost))
                self.used += cost
            else:
                self.level -= cost
        self.in_flight += 1
        headers = self.headers()
        try:
            await self.vt.sleep(self.latency_s)
        finally:
            self.in_flight -= 1
        self.ok += 1
        self.tokens += cost
        return True, headers


async def request(
    sched: Scheduler, endpoint: FakeEndpoint, input_tokens: int, max_output: int | None, output: int
) -> float:
    """What the gateway does: admit, send, report; on a 429 retry at the front of the queue. Returns time waited."""
    waited, retry = 0.0, False
    while True:
        async with sched.admit(EP, input_tokens, max_output, retry=retry) as permit:
            waited += permit.waited_s
            ok, headers = await endpoint.call(input_tokens, output)
            if ok:
                permit.completed(input_tokens, output, headers)
                return waited
            wait = permit.rate_limited(endpoint.retry_after_s, headers)
        if not permit.paused:  # a 429 that paused nothing waits alone; a paused endpoint's admission waits it out
            await endpoint.vt.sleep(wait)
            waited += wait
        retry = True


async def gather(*coros: Awaitable[Any]) -> list[Any]:
    return list(await asyncio.gather(*coros))
