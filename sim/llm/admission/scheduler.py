"""Admission of every model request of a run, per endpoint: a connection limit, RPM and TPM budgets, pauses.

A request enters ``async with scheduler.admit(endpoint, input_tokens, max_output_tokens) as permit`` and waits, in
FIFO order, for the end of any rate-limit pause, a connection slot under the adaptive limit, one request from the
RPM budget and input + output tokens from the TPM budget; then reports how it went (``completed``, ``rate_limited``
or ``failed``). Waiters never poll: a release wakes the queue, and one timer per endpoint wakes it when the head's
budget will have refilled.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from types import MappingProxyType, TracebackType

from pydantic import BaseModel, ConfigDict, Field, model_validator

from sim.core import ModelRequest
from sim.llm.admission.adaptive_limit import AdaptiveLimit, Budgets, Mark
from sim.llm.admission.decision_log import DecisionLog, PacingStats
from sim.llm.admission.token_bucket import TokenEstimator

NO_HEADERS: Mapping[str, str] = MappingProxyType({})
_MIN_TIMER_S = 1e-3  # a timer never sleeps less: rounding must not turn it into a busy loop
_BACKOFF_S = (1.0, 30.0)  # a 429 that says nothing about when to retry: first and longest pause
_SUMMARY_EVERY_S = 10.0


class EndpointLimits(BaseModel):
    """How much one endpoint may be asked at once and per minute."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    concurrency: int | None = Field(default=None, ge=1, description="Pinned connection limit; None: adaptive.")
    initial: int = Field(default=20, ge=1, description="Adaptive: connections allowed at the start.")
    floor: int = Field(default=1, ge=1, description="Adaptive: never fewer connections than this.")
    ceiling: int | None = Field(
        default=None, ge=1, description="Adaptive: never more connections; None: the run's episode concurrency."
    )
    tpm: int | None = Field(
        default=None, ge=1, description="Tokens per minute; None: learned from x-ratelimit-limit-tokens if sent."
    )
    rpm: int | None = Field(
        default=None, ge=1, description="Requests per minute; None: learned from x-ratelimit-limit-requests if sent."
    )
    utilization: float = Field(
        default=0.98, gt=0, le=1, description="Fraction of tpm/rpm to pace to: the margin keeps a steady run 429-free."
    )
    output_reserve: int = Field(
        default=1024, ge=0, description="Output tokens reserved for a request that sets no max_tokens."
    )

    @model_validator(mode="after")
    def _bounds(self) -> EndpointLimits:
        if self.ceiling is not None and self.floor > self.ceiling:
            raise ValueError(f"floor {self.floor} is above ceiling {self.ceiling}")
        return self


class Scheduler:
    """One per run. Endpoints are keys such as ``ModelSpec.endpoint`` (a base URL or a provider name), limited by
    ``per_endpoint[key]`` or else ``default``. ``max_concurrency`` (the run's episode concurrency) is the adaptive
    ceiling where a limit sets none. ``clock`` and ``sleep`` are injectable for tests (virtual time)."""

    def __init__(
        self,
        default: EndpointLimits | None = None,
        per_endpoint: Mapping[str, EndpointLimits] | None = None,
        *,
        max_concurrency: int = 100,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        log: DecisionLog | None = None,
    ) -> None:
        self.default = default or EndpointLimits()
        self.per_endpoint = dict(per_endpoint or {})
        self.max_concurrency = max_concurrency
        self.clock, self.sleep = clock, sleep
        self.log = log or DecisionLog()
        self._endpoints: dict[str, _Endpoint] = {}
        self._estimator = TokenEstimator()

    def estimate_tokens(self, request: ModelRequest) -> int:
        """Input tokens of ``request`` as the model's tokenizer counts them (cached per message and tool list)."""
        return self._estimator.estimate(request)

    def admit(self, endpoint: str, input_tokens: int, max_output_tokens: int | None, *, retry: bool = False) -> Permit:
        """An async context manager: waits for admission on entry, frees the connection slot on exit.
        ``retry``: a request retried after a 429 queues at the front (it has waited longest)."""
        ep = self._endpoints.get(endpoint) or self._endpoint(endpoint)
        output = ep.limits.output_reserve if max_output_tokens is None else max_output_tokens
        return Permit(ep, input_tokens, input_tokens + output, retry)

    def state(self, endpoint: str) -> dict[str, float]:
        """A snapshot for tests, benches and progress displays."""
        ep = self._endpoints.get(endpoint) or self._endpoint(endpoint)
        now, tpm, rpm = self.clock(), ep.budgets.tpm, ep.budgets.rpm
        return {
            "limit": ep.limit.value,
            "in_flight": ep.in_flight,
            "queued": sum(not p.fut.done() for p in ep.waiters),
            "paused_s": max(0.0, ep.paused_until - now),
            "tpm": tpm.per_minute if tpm else 0.0,
            "tpm_level": ep.budgets.level("tokens", now),
            "rpm": rpm.per_minute if rpm else 0.0,
            "rpm_level": ep.budgets.level("requests", now),
            "rate_limit_episodes": ep.limit.epoch,
        }

    async def aclose(self) -> None:
        """Stop the wake-up timers (a run that ends with requests still queued)."""
        for ep in self._endpoints.values():
            if ep.timer is not None:
                ep.timer.cancel()
                ep.timer = None

    def _endpoint(self, name: str) -> _Endpoint:
        limits = self.per_endpoint.get(name, self.default)
        ep = self._endpoints[name] = _Endpoint(self, name, limits)
        return ep


class _Endpoint:
    """The FIFO queue, connection limit, budgets and pause of one endpoint."""

    def __init__(self, scheduler: Scheduler, name: str, limits: EndpointLimits) -> None:
        self.clock, self.sleep, self.log = scheduler.clock, scheduler.sleep, scheduler.log
        self.name, self.limits = name, limits
        ceiling = limits.ceiling or max(scheduler.max_concurrency, limits.floor)
        self.limit = AdaptiveLimit(limits.initial, limits.floor, ceiling, pinned=limits.concurrency)
        now = self.clock()
        self.budgets = Budgets(name, limits.tpm, limits.rpm, limits.utilization, now, self.log)
        self.in_flight = 0
        self.waiters: deque[Permit] = deque()
        self.paused_until = 0.0
        self.backoff_s = 0.0
        self.timer: asyncio.TimerHandle | asyncio.Task[None] | None = None
        self.timer_at = 0.0
        # With the real clock a loop timer is the cheapest wake-up; an injected sleep (a test's fake time) needs a task.
        self.loop_timer = scheduler.sleep is asyncio.sleep and scheduler.clock is time.monotonic
        self.stats = PacingStats(now)

    def ready_at(self, permit: Permit, now: float) -> float:
        """When the pause and the budgets let ``permit`` go (``<= now``: it may go). Notes what holds it."""
        wait, permit.blocked_by = self.budgets.wait(permit.cost, now)
        if self.paused_until > now + wait:
            permit.blocked_by = "pause"
            return self.paused_until
        return now + wait

    def grant(self, permit: Permit, now: float) -> None:
        self.in_flight += 1
        self.limit.in_use(self.in_flight)
        permit.epoch, permit.level = self.limit.epoch, self.in_flight
        permit.mark = self.budgets.take(permit.cost, now)

    def dispatch(self, now: float) -> None:
        """Admit waiters from the head while they can go; else arm the timer for when the head can."""
        waiters = self.waiters
        while waiters:
            permit = waiters[0]
            if permit.fut.done():  # cancelled while queued: dropped here, lazily, so a cancel costs O(1)
                waiters.popleft()
                continue
            if self.in_flight >= self.limit.value:
                permit.blocked_by = "connections"
                return  # the next release dispatches again
            at = self.ready_at(permit, now)
            if at > now:
                self._wake_at(at, now)
                return
            waiters.popleft()
            self.grant(permit, now)
            permit.fut.set_result(None)

    def _wake_at(self, at: float, now: float) -> None:
        if self.timer is not None:
            if self.timer_at <= at + _MIN_TIMER_S:
                return  # it fires in time; dispatch re-arms it if the head still cannot go
            self.timer.cancel()
        self.timer_at, delay, loop = at, max(at - now, _MIN_TIMER_S), asyncio.get_running_loop()
        self.timer = loop.call_later(delay, self._fire) if self.loop_timer else loop.create_task(self._wake(delay))

    async def _wake(self, delay: float) -> None:
        await self.sleep(delay)
        self._fire()  # not reached when cancelled: the replacing timer is already in place

    def _fire(self) -> None:
        self.timer = None
        self.dispatch(self.clock())

    def release(self, now: float) -> None:
        self.in_flight -= 1
        if self.waiters:
            self.dispatch(now)
        if now - self.stats.since >= _SUMMARY_EVERY_S and self.log.enabled:
            tpm = self.budgets.tpm
            self.stats.report(self.log, self.name, now, limit=self.limit.value, in_flight=self.in_flight,
                              queued=len(self.waiters), tpm_level=round(tpm.refill(now)) if tpm else None)  # fmt: skip
            self.stats = PacingStats(now)


_QUEUED, _HELD, _SETTLED, _DONE = range(4)


class Permit:
    """One admission. Use as ``async with``; inside, report the outcome once: completed, rate_limited or failed."""

    __slots__ = ("_ep", "_retry", "_state", "blocked_by", "cost", "epoch", "fut", "input_tokens", "level", "mark",
                 "paused", "waited_s")  # fmt: skip

    def __init__(self, ep: _Endpoint, input_tokens: int, cost: int, retry: bool) -> None:
        self._ep, self._retry, self._state = ep, retry, _QUEUED
        self.input_tokens, self.cost = input_tokens, cost
        self.epoch = self.level = 0
        """The limit's rate-limit episode, and the requests in flight (this one included), when admitted."""
        self.waited_s = 0.0
        """Seconds spent waiting for admission (the gateway charges it as waiting time)."""
        self.blocked_by = "queue"
        self.paused = False
        """After a 429: whether it paused the whole endpoint (else the request waits alone)."""
        self.fut: asyncio.Future[None]
        self.mark: Mark

    async def __aenter__(self) -> Permit:
        return await self.acquire()

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()

    async def acquire(self) -> Permit:
        """Wait for admission (what ``async with`` does on entry; for callers that time the wait apart)."""
        ep = self._ep
        now = ep.clock()
        if not ep.waiters and ep.in_flight < ep.limit.value and ep.ready_at(self, now) <= now:
            ep.grant(self, now)  # the fast path: no future, no task switch
        else:
            await self._wait(ep, now)
        self._state = _HELD
        ep.stats.admit(self.waited_s)
        return self

    async def _wait(self, ep: _Endpoint, queued: float) -> None:
        self.fut = fut = asyncio.get_running_loop().create_future()
        if self._retry:
            ep.waiters.appendleft(self)
        else:
            ep.waiters.append(self)
        ep.dispatch(queued)
        try:
            await fut
        except asyncio.CancelledError:
            now = ep.clock()
            if fut.done() and not fut.cancelled():  # admitted just as it was cancelled: give it all back
                ep.in_flight -= 1
                ep.budgets.give(self.cost, 1, self.mark, now)
            else:
                fut.cancel()
            ep.dispatch(now)
            raise
        self.waited_s = ep.clock() - queued
        if self.waited_s >= 60.0:
            ep.log.event("long_wait", endpoint=ep.name, waited_s=round(self.waited_s, 3), blocked_by=self.blocked_by)

    def release(self) -> None:
        """Free the connection slot (what ``async with`` does on exit). No outcome reported (an exception, a
        cancellation) counts as ``failed``."""
        if self._state == _HELD:
            self.failed()
        if self._state == _SETTLED:
            self._state = _DONE
            self._ep.release(self._ep.clock())

    def _settle(self) -> float:
        if self._state != _HELD:
            raise RuntimeError("report a permit's outcome once, inside its async with")
        self._state = _SETTLED
        return self._ep.clock()

    def completed(self, input_tokens: int, output_tokens: int, headers: Mapping[str, str] = NO_HEADERS) -> None:
        """The request succeeded: charge what it used instead of what was reserved, read the provider's
        ``x-ratelimit-*`` headers (lower-case keys) and count it towards growing the limit. Usage 0/0 means the
        provider reported none: the reservation stands."""
        now, ep = self._settle(), self._ep
        used = input_tokens + output_tokens
        if used:
            ep.budgets.give(self.cost - used, 0, self.mark, now)
        ep.budgets.observe(headers, self.mark, now)
        ep.backoff_s = 0.0
        ep.stats.tokens += used or self.cost
        ep.limit.succeeded(self.level)
        if ep.limit.finished(ep.budgets.paced):
            ep.log.event("limit_grow", endpoint=ep.name, limit=ep.limit.value, in_flight=ep.in_flight)

    def failed(self) -> None:
        """A failure other than a 429: the reservation goes back (the provider did not bill it)."""
        now, ep = self._settle(), self._ep
        ep.budgets.give(self.cost, 0, self.mark, now)
        ep.limit.finished(ep.budgets.paced)

    def rate_limited(
        self, retry_after_s: float | None, headers: Mapping[str, str] = NO_HEADERS, *, give_up_s: float = math.inf
    ) -> float:
        """A 429. Cuts the limit if this opens a rate-limit episode, pauses the whole endpoint until the provider
        says to retry, and returns the seconds until then (re-enter ``admit(..., retry=True)``; it waits out the
        pause itself, so sleeping first is optional). ``give_up_s``: the longest wait the caller accepts; a longer
        ask returns its length and pauses nothing, since the request gives up on it (one ``Retry-After: 100000``
        must not freeze every other request of the endpoint)."""
        now, ep = self._settle(), self._ep
        ep.budgets.give(self.cost, 0, self.mark, now)  # rejected, not billed
        ep.budgets.refused(self.mark)
        ep.budgets.observe(headers, self.mark, now)
        if retry_after_s is not None:
            wait = max(0.0, retry_after_s)
        elif (wait := ep.budgets.retry_wait(self.cost, headers, now)) <= 0:
            ep.backoff_s = min(ep.backoff_s * 2, _BACKOFF_S[1]) if ep.backoff_s else _BACKOFF_S[0]
            wait = ep.backoff_s
        before, echo = ep.limit.value, self.epoch != ep.limit.epoch
        new_episode = ep.limit.rate_limited(self.epoch, self.level)
        scattered = (
            not new_episode and ep.limit.scattered(self.level, echo) and not ep.budgets.spent(self.cost, headers)
        )
        gives_up = wait > give_up_s
        # A 429 that is not overload (see AdaptiveLimit.scattered), with budget left, is the provider's hiccup (or
        # another user's of a shared key): it waits alone. Pausing every request for it cost a 5% fault mix 1.45x its
        # wall time; pausing for one above the levels that succeeded (the top level, with the queue full) 1.2x.
        self.paused = not gives_up and not scattered
        if self.paused:
            ep.paused_until = max(ep.paused_until, now + wait)
        ep.stats.rate_limited += 1
        pause_s = round(max(0.0, ep.paused_until - now), 3)
        ep.log.event(
            "rate_limited", endpoint=ep.name, retry_after_s=retry_after_s, pause_s=pause_s, new_episode=new_episode,
            in_flight=ep.in_flight, gives_up=gives_up,
        )  # fmt: skip
        if ep.limit.value != before:
            ep.log.event("limit_cut", endpoint=ep.name, limit=ep.limit.value, limit_before=before)
        return ep.paused_until - now if self.paused else wait
