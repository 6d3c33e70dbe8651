"""Gateway: retries honour Retry-After, faults are classified, usage and waiting time are accounted."""

from __future__ import annotations

import pytest
from pydantic_ai.exceptions import ModelHTTPError, ModelRateLimitError, UnexpectedModelBehavior

from sim.core import Event, Usage
from sim.llm.errors import ProviderError, StepLimitReached, classify
from sim.llm.gateway import EpisodeLLM, Gateway, RetryPolicy


class FakeSleep:
    def __init__(self) -> None:
        self.calls: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


def rate_limited(retry_after: float | None) -> ModelRateLimitError:
    exc = ModelRateLimitError("m", "Rate limit reached", retry_after=retry_after)
    return exc


def flaky(errors: list[BaseException], value: str = "ok"):  # type: ignore[no-untyped-def]
    attempts = {"n": 0}

    async def request() -> str:
        attempts["n"] += 1
        if errors:
            raise errors.pop(0)
        return value

    return request, attempts


async def test_retry_after_is_honoured_and_counted_as_waiting() -> None:
    sleep = FakeSleep()
    gw = Gateway(sleep=sleep)
    request, attempts = flaky([rate_limited(2.0), rate_limited(3.5)])
    usage = Usage()
    retries: list[str] = []
    assert await gw.run("ep", request, usage, lambda code, detail: retries.append(code)) == "ok"
    assert attempts["n"] == 3
    assert sleep.calls == [2.0, 3.5]
    assert usage.retries == 2
    assert usage.waiting_s >= 5.5
    assert retries == ["provider:rate_limited", "provider:rate_limited"]


async def test_long_retry_after_is_honoured_in_full_and_backoff_used_without_it() -> None:
    sleep = FakeSleep()
    gw = Gateway(sleep=sleep, retry=RetryPolicy(max_delay_s=10, base_delay_s=1.0))
    request, _ = flaky([rate_limited(60.0), ModelHTTPError(503, "m", "overloaded")])
    assert await gw.run("ep", request, Usage()) == "ok"
    assert sleep.calls[0] == 60.0  # retrying earlier than the provider allows would only earn another 429
    assert 0.5 <= sleep.calls[1] < 1.5  # first transient fault: base delay, jitter x[0.5, 1.5)


async def test_rate_limits_give_up_past_their_time_budget_or_an_absurd_ask() -> None:
    sleep = FakeSleep()
    request, attempts = flaky([rate_limited(100.0) for _ in range(10)])
    with pytest.raises(ProviderError, match="Rate limit reached"):
        await Gateway(sleep=sleep, retry=RetryPolicy(rate_limit_budget_s=250)).run("ep", request, Usage())
    assert sleep.calls == [100.0, 100.0] and attempts["n"] == 3
    request, attempts = flaky([rate_limited(3600.0)])
    with pytest.raises(ProviderError):
        await Gateway(sleep=FakeSleep(), retry=RetryPolicy(max_retry_after_s=300)).run("ep", request, Usage())
    assert attempts["n"] == 1


async def test_fatal_error_is_not_retried() -> None:
    sleep = FakeSleep()
    request, attempts = flaky([ModelHTTPError(401, "m", "bad key")])
    with pytest.raises(ProviderError) as info:
        await Gateway(sleep=sleep).run("ep", request, Usage())
    assert attempts["n"] == 1 and sleep.calls == []
    assert info.value.code.startswith("provider:")


async def test_retries_exhausted_raise_provider_error() -> None:
    request, attempts = flaky([ModelHTTPError(503, "m", "overloaded") for _ in range(10)])
    with pytest.raises(ProviderError, match="after 3 failed attempt"):
        await Gateway(sleep=FakeSleep(), retry=RetryPolicy(max_attempts=3)).run("ep", request, Usage())
    assert attempts["n"] == 3


async def test_malformed_bodies_get_fewer_attempts() -> None:
    request, attempts = flaky([UnexpectedModelBehavior("bad body") for _ in range(10)])
    with pytest.raises(ProviderError) as info:
        await Gateway(sleep=FakeSleep(), retry=RetryPolicy(max_malformed=2)).run("ep", request, Usage())
    assert info.value.code == "provider:malformed_response"
    assert attempts["n"] == 2


async def test_bugs_are_not_disguised_as_provider_faults() -> None:
    request, _ = flaky([KeyError("oops")])
    with pytest.raises(KeyError):
        await Gateway(sleep=FakeSleep()).run("ep", request, Usage())


def test_classify() -> None:
    assert classify(rate_limited(1.0)) == ("rate_limit", "provider:rate_limited", 1.0)
    assert classify(ModelHTTPError(500, "m"))[0] == "transient"
    assert classify(ModelHTTPError(400, "m"))[0] == "fatal"
    assert classify(TimeoutError())[0] == "transient"


async def test_episode_handle_enforces_step_limit_and_records_retries() -> None:
    events: list[Event] = []
    llm = EpisodeLLM(Gateway(sleep=FakeSleep()), max_steps=2, record=events.append, clock=lambda: 0.0)
    llm.start_turn(0)
    request, _ = flaky([rate_limited(0.1)])
    assert await llm.run("ep", request) == "ok"
    assert await llm.run("ep", flaky([])[0]) == "ok"
    with pytest.raises(StepLimitReached):
        await llm.run("ep", flaky([])[0])
    assert [(e.kind, e.fault, e.code) for e in events] == [("error", "provider", "provider:rate_limited")]
    assert llm.usage.retries == 1
    llm.start_turn(1)  # the budget is per turn
    assert await llm.run("ep", flaky([])[0]) == "ok"
