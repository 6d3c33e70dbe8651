"""The gateway's parts chosen once: usage as values, the static baseline's admission, the cache in front of both."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from sim.core import ModelResponse, Usage
from sim.llm.admission.scheduled import ScheduledAdmission
from sim.llm.admission.scheduler import EndpointLimits, Scheduler
from sim.llm.admission.static import StaticAdmission
from sim.llm.cache import ResponseCache
from sim.llm.errors import ContextLengthExceeded, ProviderError
from sim.llm.gateway import EpisodeLLM, Gateway
from sim.llm.retry_policy import RetryPolicy
from sim.llm.transports.base import Reply, TransportError
from tests.support.gateway_parts import Account, FakeSleep, Scripted, ask, complete, rate_limited, server_error


def test_usage_adds_as_a_value_field_by_field() -> None:
    fields = list(Usage.model_fields)
    one = Usage(**{name: i + 1 for i, name in enumerate(fields)})
    two = Usage(**{name: 10 * (i + 1) for i, name in enumerate(fields)})
    total = one + two
    assert total.model_dump() == {name: 11 * (i + 1) for i, name in enumerate(fields)}  # no field left out
    assert one.model_dump() == {name: i + 1 for i, name in enumerate(fields)}  # the operands are untouched
    with pytest.raises(ValueError, match="frozen"):
        one.requests = 5


def test_usage_still_loads_stored_runs_with_keys_it_no_longer_has() -> None:
    assert Usage.model_validate({"requests": 2, "tool_calls": 3}).requests == 2


def scheduled(sleep: FakeSleep, transport: object, retry: RetryPolicy | None = None) -> tuple[Gateway, Scheduler]:
    scheduler = Scheduler(EndpointLimits(concurrency=4), clock=sleep.clock, sleep=sleep)
    gateway = Gateway(ScheduledAdmission(scheduler, retry), sleep=sleep)
    gateway.register("scripted", transport)  # type: ignore[arg-type]
    return gateway, scheduler


async def test_a_request_that_gives_up_still_charges_its_retries_and_time_once() -> None:
    sleep = FakeSleep()
    gateway, scheduler = scheduled(sleep, Scripted([server_error() for _ in range(5)]), RetryPolicy(max_attempts=3))
    account = Account()
    with pytest.raises(ProviderError):
        await complete(gateway, account)
    [usage] = account.charged
    assert (usage.requests, usage.retries, usage.input_tokens) == (0, 2, 0)
    assert usage.waiting_s == pytest.approx(sum(sleep.calls)) and len(sleep.calls) == 2
    assert scheduler.state("scripted")["in_flight"] == 0  # every permit went back


async def test_a_context_length_refusal_charges_once_and_frees_its_connection() -> None:
    sleep = FakeSleep()
    refusal = TransportError("context_length", "agent:context_length", "too long")
    gateway, scheduler = scheduled(sleep, Scripted([refusal]))
    account = Account()
    with pytest.raises(ContextLengthExceeded):
        await complete(gateway, account)
    assert [u.requests for u in account.charged] == [0] and scheduler.state("scripted")["in_flight"] == 0


class Hangs:
    """A transport whose requests never answer (until cancelled)."""

    def __init__(self) -> None:
        self.sent = asyncio.Event()

    async def send(self, request: object) -> Reply:
        self.sent.set()
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    async def aclose(self) -> None:
        return None


async def test_a_cancelled_request_charges_the_time_it_spent_working() -> None:
    transport = Hangs()
    gateway = Gateway()
    gateway.register("scripted", transport)  # type: ignore[arg-type]
    llm = EpisodeLLM(gateway, max_steps=3, record=lambda e: None, clock=lambda: 0.0)
    task = asyncio.create_task(llm.complete(ask("user")))
    await transport.sent.wait()
    await asyncio.sleep(0.02)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert llm.by_role["user"].working_s >= 0.02 and llm.usage.requests == 0
    assert gateway.totals == llm.usage  # the run's totals add the same values


def static(sleep: FakeSleep, transport: object, concurrency: int = 16, max_attempts: int = 6) -> Gateway:
    gateway = Gateway(StaticAdmission(concurrency, RetryPolicy(max_attempts=max_attempts)), sleep=sleep)
    gateway.register("scripted", transport)  # type: ignore[arg-type]
    return gateway


async def test_the_static_baseline_backs_off_blindly_whatever_the_provider_asks() -> None:
    sleep = FakeSleep()
    account = Account()
    assert await complete(static(sleep, Scripted([rate_limited(60.0), rate_limited(60.0)])), account) == "ok"
    assert 0.5 <= sleep.calls[0] < 1.5 and 1.0 <= sleep.calls[1] < 3.0  # 1 s, then 2 s, jittered: not 60 s
    [usage] = account.charged
    assert usage.retries == 2 and usage.requests == 1 and usage.waiting_s >= sum(sleep.calls)


async def test_the_static_baseline_gives_up_after_max_attempts_of_any_kind() -> None:
    malformed = [TransportError("malformed", "provider:malformed_response", "bad") for _ in range(9)]
    transport = Scripted(malformed)
    with pytest.raises(ProviderError, match="after 4 failed attempt"):
        await complete(static(FakeSleep(), transport, max_attempts=4))
    assert transport.attempts == 4  # no separate, smaller budget for malformed bodies
    fatal = Scripted([TransportError("fatal", "provider:http_401", "bad key")])
    with pytest.raises(ProviderError):
        await complete(static(FakeSleep(), fatal))
    assert fatal.attempts == 1


class Counting:
    """Answers after a short real wait, counting how many requests are in flight at once."""

    def __init__(self) -> None:
        self.in_flight = self.most = 0

    async def send(self, request: object) -> Reply:
        self.in_flight += 1
        self.most = max(self.most, self.in_flight)
        await asyncio.sleep(0.01)
        self.in_flight -= 1
        return Reply(ModelResponse(text="ok"))

    async def aclose(self) -> None:
        return None


async def test_the_static_baseline_holds_a_fixed_number_of_connections() -> None:
    transport = Counting()
    gateway = static(FakeSleep(), transport, concurrency=3)
    await asyncio.gather(*(complete(gateway) for _ in range(10)))
    assert transport.most == 3


async def test_a_cache_hit_is_counted_as_cached_and_never_reaches_admission(tmp_path: Path) -> None:
    sleep = FakeSleep()
    scheduler = Scheduler(EndpointLimits(concurrency=1, tpm=1000), clock=sleep.clock, sleep=sleep)
    transport = Scripted([])
    gateway = Gateway(ScheduledAdmission(scheduler), cache=ResponseCache(tmp_path), sleep=sleep)
    gateway.register("scripted", transport)
    first, again = Account(), Account()
    assert await complete(gateway, first) == "ok"
    level = scheduler.state("scripted")["tpm_level"]
    assert await complete(gateway, again) == "ok"
    assert transport.attempts == 1
    assert [(u.requests, u.cached, u.input_tokens) for u in first.charged + again.charged] == [(1, 0, 10), (0, 1, 0)]
    assert scheduler.state("scripted")["tpm_level"] == level  # the hit spent nothing from the token budget
    await gateway.aclose()
