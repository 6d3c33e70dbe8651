"""Gateway: retries honour Retry-After, faults are classified, usage and waiting time are accounted per role."""

from __future__ import annotations

import pytest
from pydantic_ai.exceptions import ModelHTTPError, ModelRateLimitError, UnexpectedModelBehavior
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models.function import AgentInfo, FunctionModel

from sim.core import Event
from sim.llm.errors import ContextLengthExceeded, ProviderError, StepLimitReached, classify
from sim.llm.gateway import EpisodeLLM, Gateway
from sim.llm.retry_policy import RetryPolicy
from sim.llm.transports.base import TransportError
from sim.llm.transports.pydantic_ai import PydanticAITransport
from tests.support.gateway_parts import (
    Account,
    FakeSleep,
    Scripted,
    ask,
    complete,
    gateway_with,
    rate_limited,
    server_error,
)


async def test_retry_after_is_honoured_and_counted_as_waiting() -> None:
    sleep = FakeSleep()
    transport = Scripted([rate_limited(2.0), rate_limited(3.5)])
    gw = gateway_with(transport, sleep=sleep)
    account = Account()
    assert await complete(gw, account) == "ok"
    assert transport.attempts == 3
    assert sleep.calls == [2.0, 3.5]
    [usage] = account.charged  # one value per request
    assert (usage.requests, usage.retries, usage.input_tokens, usage.output_tokens) == (1, 2, 10, 2)
    assert usage.waiting_s >= 5.5
    assert account.retries == ["provider:rate_limited", "provider:rate_limited"]


async def test_long_retry_after_is_honoured_in_full_and_backoff_used_without_it() -> None:
    sleep = FakeSleep()
    gw = gateway_with(
        Scripted([rate_limited(60.0), server_error()]), sleep=sleep, retry=RetryPolicy(max_delay_s=10, base_delay_s=1.0)
    )
    assert await complete(gw) == "ok"
    assert sleep.calls[0] == 60.0  # retrying earlier than the provider allows would only earn another 429
    assert 0.5 <= sleep.calls[1] < 1.5  # first transient fault: base delay, jitter x[0.5, 1.5)


async def test_rate_limits_give_up_past_their_time_budget_or_an_absurd_ask() -> None:
    sleep = FakeSleep()
    transport = Scripted([rate_limited(100.0) for _ in range(10)])
    with pytest.raises(ProviderError, match="Rate limit reached"):
        await complete(gateway_with(transport, sleep=sleep, retry=RetryPolicy(rate_limit_budget_s=250)))
    assert sleep.calls == [100.0, 100.0] and transport.attempts == 3
    transport = Scripted([rate_limited(3600.0)])
    with pytest.raises(ProviderError):
        await complete(gateway_with(transport, sleep=FakeSleep(), retry=RetryPolicy(max_retry_after_s=300)))
    assert transport.attempts == 1


async def test_a_transient_errors_retry_after_is_capped_like_a_rate_limits() -> None:
    sleep = FakeSleep()
    slow_down = TransportError("transient", "provider:http_503", "busy", retry_after_s=10_000)
    gw = gateway_with(Scripted([slow_down]), sleep=sleep, retry=RetryPolicy(max_retry_after_s=60))
    assert await complete(gw) == "ok"
    assert sleep.calls == [60]


async def test_fatal_error_is_not_retried() -> None:
    sleep = FakeSleep()
    transport = Scripted([TransportError("fatal", "provider:http_401", "bad key")])
    with pytest.raises(ProviderError) as info:
        await complete(gateway_with(transport, sleep=sleep))
    assert transport.attempts == 1 and sleep.calls == []
    assert info.value.code.startswith("provider:")


async def test_retries_exhausted_raise_provider_error() -> None:
    transport = Scripted([server_error() for _ in range(10)])
    with pytest.raises(ProviderError, match="after 3 failed attempt"):
        await complete(gateway_with(transport, sleep=FakeSleep(), retry=RetryPolicy(max_attempts=3)))
    assert transport.attempts == 3


async def test_malformed_bodies_get_fewer_attempts() -> None:
    transport = Scripted([TransportError("malformed", "provider:malformed_response", "bad") for _ in range(10)])
    with pytest.raises(ProviderError) as info:
        await complete(gateway_with(transport, sleep=FakeSleep(), retry=RetryPolicy(max_malformed=2)))
    assert info.value.code == "provider:malformed_response"
    assert transport.attempts == 2


async def test_a_context_length_rejection_is_the_agents_not_a_provider_failure() -> None:
    transport = Scripted([TransportError("context_length", "agent:context_length", "too long")])
    with pytest.raises(ContextLengthExceeded):
        await complete(gateway_with(transport, sleep=FakeSleep()))
    assert transport.attempts == 1


def function_model(error: BaseException) -> FunctionModel:
    def answer(messages: list[ModelMessage], info: AgentInfo) -> object:
        raise error

    return FunctionModel(answer)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("error", "kind", "code"),
    [
        (ModelRateLimitError("m", "slow down", retry_after=2.0), "rate_limit", "provider:rate_limited"),
        (ModelHTTPError(503, "m", "overloaded"), "transient", "provider:http_503"),
        (ModelHTTPError(401, "m", "bad key"), "fatal", "provider:http_401"),
        (
            ModelHTTPError(400, "m", {"error": {"code": "context_length_exceeded"}}),
            "context_length",
            "agent:context_length",
        ),
        (UnexpectedModelBehavior("bad body"), "malformed", "provider:malformed_response"),
    ],
)
async def test_pydantic_ai_errors_are_classified(error: BaseException, kind: str, code: str) -> None:
    with pytest.raises(TransportError) as info:
        await PydanticAITransport(function_model(error)).send(ask())
    assert (info.value.kind, info.value.code) == (kind, code)


async def test_bugs_are_not_disguised_as_provider_faults() -> None:
    gw = Gateway(sleep=FakeSleep())
    gw.register("scripted", PydanticAITransport(function_model(KeyError("oops"))))
    with pytest.raises(KeyError):
        await complete(gw)


def test_classify() -> None:
    assert classify(ModelRateLimitError("m", "slow", retry_after=1.0)) == ("rate_limit", "provider:rate_limited", 1.0)
    assert classify(ModelHTTPError(500, "m"))[0] == "transient"
    assert classify(ModelHTTPError(400, "m"))[0] == "fatal"
    assert classify(TimeoutError())[0] == "transient"


async def test_episode_handle_enforces_step_limit_and_records_retries() -> None:
    events: list[Event] = []
    gw = gateway_with(Scripted([rate_limited(0.1)]), sleep=FakeSleep())
    llm = EpisodeLLM(gw, max_steps=2, record=events.append, clock=lambda: 0.0)
    llm.start_turn(0)
    assert (await llm.complete(ask())).text == "ok"
    assert (await llm.complete(ask())).text == "ok"
    with pytest.raises(StepLimitReached):
        await llm.complete(ask())
    assert [(e.kind, e.fault, e.code) for e in events] == [("error", "provider", "provider:rate_limited")]
    assert llm.usage.retries == 1
    llm.start_turn(1)  # the budget is per turn
    assert (await llm.complete(ask())).text == "ok"


async def test_user_and_judge_calls_have_their_own_usage_and_never_spend_agent_steps() -> None:
    gw = gateway_with(Scripted([]), sleep=FakeSleep())
    llm = EpisodeLLM(gw, max_steps=1, record=lambda e: None, clock=lambda: 0.0)
    llm.start_turn(0)
    for _ in range(5):
        await llm.complete(ask("user"))
        await llm.complete(ask("judge"))
    assert llm.steps == 0
    await llm.complete(ask("agent"))  # the one agent step is still there
    with pytest.raises(StepLimitReached):
        await llm.complete(ask("agent"))
    by_role = llm.usage_by_role()
    assert {role: u.requests for role, u in by_role.items()} == {"agent": 1, "user": 5, "judge": 5}
    assert by_role["user"].input_tokens == 50 and llm.usage.requests == 11 and gw.totals.requests == 11
    assert llm.turn_usage.requests == 1  # the agent's own usage in this turn


def test_llama_cpp_context_overflow_is_the_agents_context_length() -> None:
    from sim.llm.transports.openai_errors import http_error

    body = (
        b'{"error": {"code": 400, "type": "exceed_context_size_error", "message": "request (4297 tokens) exceeds '
        b'the available context size (4096 tokens), try increasing it"}}'
    )
    error = http_error(400, body, {})
    assert (error.kind, error.code) == ("context_length", "agent:context_length")
