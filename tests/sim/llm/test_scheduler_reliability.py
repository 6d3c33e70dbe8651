"""Issue 25, items 3 and 12: the scheduler cannot be frozen or starved. On virtual time (no real sleeps).

3. One 429 with ``Retry-After: 100000``: the request gives up (over ``max_retry_after_s``, 300 s) and the endpoint
   is not paused for it: every other request goes at once.
12. A fault mix's 5% of 429s (Retry-After 1 s) at 50 requests in flight: the adaptive limit fell from 50 to 4-9;
   a trickle of 429s that also comes at levels that succeed is not overload, so it stays near 50.
"""

from __future__ import annotations

import asyncio
import random

import pytest

from sim.core import ChatMessage, ModelRequest, ModelResponse
from sim.llm.admission.scheduled import ScheduledAdmission
from sim.llm.admission.scheduler import EndpointLimits, Scheduler
from sim.llm.completer import Route, Untracked
from sim.llm.errors import ProviderError
from sim.llm.retrying import RetryingCompleter
from sim.llm.transports.base import Reply, TransportError
from tests.support.virtual_time import EP, FakeEndpoint, VirtualTime, gather

pytestmark = pytest.mark.reliability

REQUEST = ModelRequest(role="agent", model="m", messages=(ChatMessage(role="user", content="hi"),), max_tokens=10)


class Provider:
    """Answers after ``latency_s`` of virtual time; the first ``rejects`` requests get a 429 for ``retry_after_s``."""

    def __init__(self, vt: VirtualTime, rejects: int, retry_after_s: float, latency_s: float = 0.5) -> None:
        self.vt, self.rejects, self.retry_after_s, self.latency_s = vt, rejects, retry_after_s, latency_s

    async def send(self, request: ModelRequest) -> Reply:
        if self.rejects > 0:
            self.rejects -= 1
            raise TransportError("rate_limit", "provider:rate_limited", "slow down", retry_after_s=self.retry_after_s)
        await self.vt.sleep(self.latency_s)
        return Reply(ModelResponse(text="ok"))

    async def aclose(self) -> None:
        return None


async def test_a_retry_after_of_100000_s_fails_its_request_and_pauses_no_other() -> None:
    vt = VirtualTime()
    scheduler = Scheduler(clock=vt.clock, sleep=vt.sleep)
    completer = RetryingCompleter(ScheduledAdmission(scheduler), sleep=vt.sleep)  # max_retry_after_s: 300 s
    route = Route(Provider(vt, rejects=1, retry_after_s=100_000.0), EP)

    async def run() -> list[str | BaseException]:
        first = await asyncio.gather(completer.complete(REQUEST, route, Untracked()), return_exceptions=True)
        assert scheduler.state(EP)["paused_s"] == 0.0  # the give-up left the endpoint open
        others = [completer.complete(REQUEST, route, Untracked()) for _ in range(10)]
        return [*first, *(r.text for r in await gather(*others))]

    outcomes = await vt.run(run())
    assert isinstance(outcomes[0], ProviderError) and outcomes[0].code == "provider:rate_limited"
    assert outcomes[1:] == ["ok"] * 10
    assert vt.now == pytest.approx(0.5)  # one latency: nobody waited out the 100,000 s


async def test_a_retry_after_within_the_cap_still_pauses_the_endpoint() -> None:
    vt = VirtualTime()
    scheduler = Scheduler(clock=vt.clock, sleep=vt.sleep)
    completer = RetryingCompleter(ScheduledAdmission(scheduler), sleep=vt.sleep)
    route = Route(Provider(vt, rejects=1, retry_after_s=200.0), EP)

    async def run() -> list[str]:
        return [r.text for r in await gather(*(completer.complete(REQUEST, route, Untracked()) for _ in range(3)))]

    assert await vt.run(run()) == ["ok"] * 3
    assert vt.now >= 200.0  # the provider's ask, honoured: the pause is capped, not dropped


class RandomRejects(FakeEndpoint):
    """A provider that answers 429 at once to ``share`` of requests whatever the load (a fault mix), seeded."""

    def __init__(self, vt: VirtualTime, share: float, seed: int) -> None:
        super().__init__(vt, latency_s=0.5, retry_after_s=1.0)
        self.share, self.rng = share, random.Random(seed)

    async def call(self, input_tokens: int, output_tokens: int) -> tuple[bool, dict[str, str]]:
        if self.rng.random() < self.share:
            self.rejected += 1
            return False, {}
        return await super().call(input_tokens, output_tokens)


async def test_a_fault_mix_of_429s_does_not_starve_the_adaptive_limit() -> None:
    vt = VirtualTime()
    endpoint = RandomRejects(vt, share=0.05, seed=25)
    scheduler = Scheduler(EndpointLimits(initial=50), max_concurrency=50, clock=vt.clock, sleep=vt.sleep)
    limits: list[int] = []

    async def episode() -> None:  # 40 requests one after another, as an episode's steps are
        for _ in range(40):
            retry = False
            while True:
                wait = 0.0
                async with scheduler.admit(EP, 100, 10, retry=retry) as permit:
                    ok, headers = await endpoint.call(100, 10)
                    if ok:
                        permit.completed(100, 10, headers)
                    else:
                        wait = permit.rate_limited(endpoint.retry_after_s, headers)
                        wait = 0.0 if permit.paused else wait  # a paused endpoint's admission waits it out
                limits.append(int(scheduler.state(EP)["limit"]))
                if ok:
                    break
                await vt.sleep(wait)  # as the gateway does: a 429 that paused nothing waits alone
                retry = True

    await vt.run(gather(*(episode() for _ in range(50))))
    assert endpoint.ok == 2000 and endpoint.rejected >= 80  # the mix fired: about 5% of attempts
    assert min(limits) >= 40, min(limits)  # before: it fell to 4-9 and stayed there
    assert limits[-1] >= 45
