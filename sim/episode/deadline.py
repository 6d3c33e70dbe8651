"""The episode's deadline counts working time only.

An episode's budget is spent by the world answering, the user and the harness thinking — not by waiting on
the provider (``WaitClock``: a connection slot, a Retry-After, a backoff, and the request itself, which the
request timeout and the retry policy bound and whose failure is the provider's), nor by queueing on a
saturated event loop (``LoopLag``). With 10,000 episodes in flight a wall-clock deadline would fail
episodes for the harness's own congestion; counting a provider's hangs would file them as harness timeouts.

The timer is lazy: it fires when the budget would be spent if every second had been working time,
then checks how much really was and re-arms for the rest. No bookkeeping on the hot path.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from types import TracebackType


class WaitClock:
    """Seconds an episode spent waiting on the gateway, including a wait in progress."""

    def __init__(self) -> None:
        self._total = 0.0
        self._depth = 0
        self._since = 0.0

    def waiting(self) -> WaitClock:
        """A context manager: the time inside it is waiting (nested waits count once). Itself, not a
        ``@contextmanager`` generator: it is entered once per model request."""
        return self

    def __enter__(self) -> None:
        if self._depth == 0:
            self._since = time.monotonic()
        self._depth += 1

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._depth -= 1
        if self._depth == 0:
            self._total += time.monotonic() - self._since

    def total(self) -> float:
        return self._total + (time.monotonic() - self._since if self._depth else 0.0)


class LoopLag:
    """Accumulated scheduling delay of the event loop, sampled by one run-level task (a few wake-ups a second)."""

    def __init__(self, interval_s: float = 0.05) -> None:
        self.interval_s = interval_s
        self._total = 0.0

    def total(self) -> float:
        return self._total

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            before = loop.time()
            await asyncio.sleep(self.interval_s)
            self._total += max(0.0, loop.time() - before - self.interval_s)


class WorkingTimeExceeded(TimeoutError):
    """The deadline's own expiry: its working-time budget is spent. Any other TimeoutError came from inside the
    block (a world, user or agent) and goes through unchanged."""

    def __init__(self, budget_s: float) -> None:
        super().__init__(f"episode exceeded {budget_s}s of working time")


class WorkingTimeDeadline:
    """``async with`` block cancelled once its working time (wall time - waiting - loop lag) exceeds the budget; it
    then raises ``WorkingTimeExceeded``."""

    def __init__(self, budget_s: float, waiting: Callable[[], float], lag: Callable[[], float] = lambda: 0.0):
        self.budget_s = budget_s
        self._waiting = waiting
        self._lag = lag
        self._timeout = asyncio.timeout(None)
        self._handle: asyncio.TimerHandle | None = None
        self._start = self._waited0 = self._lag0 = 0.0

    def used(self) -> float:
        wall = asyncio.get_running_loop().time() - self._start
        return wall - (self._waiting() - self._waited0) - (self._lag() - self._lag0)

    def expired(self) -> bool:
        return self._timeout.expired()

    async def __aenter__(self) -> WorkingTimeDeadline:
        await self._timeout.__aenter__()
        loop = asyncio.get_running_loop()
        self._start, self._waited0, self._lag0 = loop.time(), self._waiting(), self._lag()
        self._handle = loop.call_at(self._start + self.budget_s, self._check)
        return self

    def _check(self) -> None:
        loop = asyncio.get_running_loop()
        remaining = self.budget_s - self.used()
        if remaining > 0.001:
            self._handle = loop.call_at(loop.time() + remaining, self._check)
        else:
            self._timeout.reschedule(loop.time())  # expire now, through asyncio.timeout's own cancellation

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._handle is not None:
            self._handle.cancel()
        try:
            await self._timeout.__aexit__(exc_type, exc, tb)
        except TimeoutError as expired:  # asyncio.timeout turns its cancellation into a TimeoutError
            raise WorkingTimeExceeded(self.budget_s) from expired
        if isinstance(exc, TimeoutError) and self.expired():  # the block's own TimeoutError as the budget ran out
            raise WorkingTimeExceeded(self.budget_s) from exc
