"""Pacing from the provider's x-ratelimit-remaining reports: the burst of a bucket that starts full is spent, a
refilling bucket raises the level, a sliding window never gets more than it has left, and a margin is kept.

Over real HTTP against the mock server, whose limiter runs on a clock the test steps (minutes cross at once), so the
scheduler and the provider agree on time without any test waiting it out. Then end to end on virtual time against
simulated endpoints.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from sim.core import ChatMessage, ModelRequest
from sim.llm.admission.scheduler import Scheduler
from sim.llm.transports.base import TransportError
from sim.llm.transports.http1 import Http1Pool
from sim.llm.transports.openai_chat import OpenAIChatTransport
from sim.mockllm import EchoPolicy, MockConfig, RateLimit
from sim.mockllm.server import start_mock_server
from tests.support.virtual_time import EP, FakeEndpoint, VirtualTime, gather, request

TPM = 60_000
MARGIN = 0.02 * TPM  # the default utilization, 0.98


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Provider:
    clock: Clock
    scheduler: Scheduler
    transport: OpenAIChatTransport
    ok: int = 0
    refused: int = 0

    async def send(self, text: str = "x" * 400) -> bool:
        """One request through a permit, if the scheduler lets it go now; True when it went."""
        permit = self.scheduler.admit(EP, 200, 20)
        ep = permit._ep
        if ep.in_flight >= ep.limit.value or ep.ready_at(permit, self.clock.now) > self.clock.now:
            return False
        async with permit:
            request = ModelRequest(
                model="m", role="agent", messages=(ChatMessage(role="user", content=text),), max_tokens=20
            )
            try:
                reply = await self.transport.send(request)
            except TransportError as error:
                assert error.kind == "rate_limit", error
                self.refused += 1
                permit.rate_limited(error.retry_after_s, error.headers)
                return True
            self.ok += 1
            permit.completed(reply.response.input_tokens, reply.response.output_tokens, reply.headers)
        return True

    async def burst(self) -> int:
        """Send until the scheduler holds the next one back; how many went."""
        sent = 0
        while await self.send():
            sent += 1
        return sent

    def level(self) -> float:
        return self.scheduler.state(EP)["tpm_level"]


@pytest.fixture(params=["token_bucket", "sliding_window"])
async def provider(request: pytest.FixtureRequest) -> AsyncIterator[Provider]:
    clock = Clock()
    config = MockConfig(policy=EchoPolicy(), rate_limit=RateLimit(tpm=TPM, algorithm=request.param))
    async with (
        await start_mock_server(config, clock=clock) as server,
        Http1Pool() as session,
    ):
        scheduler = Scheduler(clock=clock, max_concurrency=10_000)  # nothing configured: learned from headers
        yield Provider(clock, scheduler, OpenAIChatTransport(session, server.url, "mock-model", 30.0))


async def test_the_reported_level_is_spent_at_once_with_a_margin(provider: Provider) -> None:
    # A learned limit starts from what the provider reports left (a full bucket or an empty window): the whole
    # minute's budget goes at once, less the margin, and without a 429.
    sent = await provider.burst()
    tokens = provider.scheduler.state(EP)
    assert tokens["tpm"] == TPM and provider.refused == 0
    spent = TPM - provider.level() - MARGIN  # what the reports say we used
    assert spent >= TPM - MARGIN - 2 * 300  # within a request or two of the reported level, less the margin
    assert sent >= 0.9 * TPM / 300  # each costs about 300 tokens: ~190 went at once (an empty bucket: ~4)
    assert provider.level() < 300  # what is left is less than one more request: the margin stays unspent


async def test_a_refilling_bucket_raises_the_level_a_window_does_not(provider: Provider) -> None:
    await provider.burst()
    provider.clock.now += 20.0  # a bucket refills a third of a minute's budget; a window frees nothing yet
    sent = await provider.burst()
    if provider.scheduler._endpoints[EP].budgets.reported_tokens.frees == "bucket":  # type: ignore[union-attr]
        assert sent >= 0.3 * TPM / 300  # paced up from its reports: ~20k tokens, ~66 requests
    else:
        assert sent == 0  # the sliding window frees nothing for a minute after the burst: nothing may go
    assert provider.refused == 0
    provider.clock.now += 45.0  # past a minute after the burst: the window frees all of it
    assert await provider.burst() >= 0.3 * TPM / 300
    assert provider.refused == 0


async def test_a_window_whose_reports_lag_is_not_overrun(provider: Provider) -> None:
    # Bursts every 10 s for three minutes: whatever the limiter, reports keep the scheduler inside it.
    for _ in range(18):
        await provider.burst()
        provider.clock.now += 10.0
    assert provider.refused == 0
    assert provider.ok >= 2.5 * TPM / 300  # about three minutes' worth (the window's first minute is 1x, not 2x)


# ---- end to end on virtual time: a run spends the burst, and never 429s


def paced(window: bool, honest_reset: bool = True) -> tuple[VirtualTime, FakeEndpoint, Scheduler]:
    vt = VirtualTime()
    endpoint = FakeEndpoint(vt, tpm=TPM, window=window, headers=True, latency_s=1.0, honest_reset=honest_reset)
    return vt, endpoint, Scheduler(clock=vt.clock, sleep=vt.sleep, max_concurrency=60)


async def test_a_run_spends_the_burst_of_a_bucket_that_starts_full() -> None:
    vt, endpoint, sched = paced(window=False)
    n = 480  # 480 x 500 = 240k tokens: with the burst 60k + 180 s of refill, about 3 minutes; steadily 4
    await vt.run(gather(*(request(sched, endpoint, 400, 100, 100) for _ in range(n))))
    assert endpoint.rejected == 0 and endpoint.ok == n
    steady_s = n * 500 / (TPM / 60)
    assert vt.now < 0.85 * steady_s  # the burst was spent: faster than the steady rate allows


@pytest.mark.parametrize("honest_reset", [True, False], ids=["window-reset", "bucket-like-reset"])
async def test_a_run_stays_inside_a_sliding_window(honest_reset: bool) -> None:
    vt, endpoint, sched = paced(window=True, honest_reset=honest_reset)
    n = 480
    await vt.run(gather(*(request(sched, endpoint, 400, 100, 100) for _ in range(n))))
    assert endpoint.ok == n
    # Its reset times give a window away at once; one that reports them as a bucket would is found out by its
    # first 429, which the scheduler then reads as a window's
    assert endpoint.rejected <= (0 if honest_reset else 0.01 * n)
    assert endpoint.tokens / vt.now * 60 >= 0.85 * TPM  # and still close to its limit
