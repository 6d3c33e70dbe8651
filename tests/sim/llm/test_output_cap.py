"""No output cap is sent unless one is configured: the run's --max-tokens (the request's), else the endpoint's
max_output_tokens, in the field the endpoint's sampling takes (max_completion_tokens for reasoning models). Prices per
endpoint, cached input at its own price."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sim.config.run_config import QUICKSTART, RunConfig
from sim.core import ChatMessage, ModelRequest
from sim.llm.endpoints import EndpointSettings
from sim.llm.transports.openai_chat import OpenAIChatTransport


def body(max_tokens: int | None, **endpoint: Any) -> dict[str, Any]:
    settings = EndpointSettings.model_validate({"base_url": "http://h/v1", **endpoint}) if endpoint else None
    transport = OpenAIChatTransport(None, "http://h/v1", "m", 5.0, settings=settings)  # type: ignore[arg-type]
    request = ModelRequest(
        role="agent",
        model="m",
        messages=(ChatMessage(role="user", content="hi"),),
        max_tokens=max_tokens,
        temperature=0.0,
    )
    sent: dict[str, Any] = json.loads(transport._body(request))
    assert transport.output_limit(request) == sent.get("max_tokens", sent.get("max_completion_tokens"))
    return sent


def caps(sent: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in sent.items() if k in ("max_tokens", "max_completion_tokens")}


def test_the_default_run_sends_no_cap_and_the_quickstart_keeps_its_own() -> None:
    assert RunConfig().max_tokens is None and QUICKSTART["max_tokens"] == 160
    assert caps(body(None)) == {} and caps(body(None, sampling="reasoning")) == {}


@pytest.mark.parametrize(
    ("max_tokens", "endpoint", "wanted"),
    [
        (300, {}, {"max_tokens": 300}),
        (None, {"max_output_tokens": 4096}, {"max_tokens": 4096}),
        (300, {"max_output_tokens": 4096}, {"max_tokens": 300}),  # the run's own cap is the more specific
        (None, {"max_output_tokens": 4096, "sampling": "reasoning"}, {"max_completion_tokens": 4096}),
        (300, {"sampling": "reasoning"}, {"max_completion_tokens": 300}),
        (300, {"sampling": "none"}, {}),  # an endpoint that takes no sampling parameter
        (None, {"max_output_tokens": 4096, "sampling": "none"}, {"max_tokens": 4096}),  # unless it requires a cap
    ],
)
def test_a_configured_cap_goes_in_the_field_the_endpoint_takes(
    max_tokens: int | None, endpoint: dict[str, Any], wanted: dict[str, int]
) -> None:
    assert caps(body(max_tokens, **endpoint)) == wanted


def test_cost_at_a_cached_input_price_is_exact() -> None:
    priced = EndpointSettings(base_url="http://h/v1", input_price=2.0, cached_input_price=0.5, output_price=8.0)
    # 1,000,000 in of which 800,000 cached, 500,000 out: 200,000 x 2 + 800,000 x 0.5 + 500,000 x 8, per million.
    assert priced.cost(1_000_000, 500_000, 800_000) == 4.8
    assert priced.cost(1_000_000, 500_000) == 6.0  # nothing cached: every input token at the input price
    unpriced_cache = EndpointSettings(base_url="http://h/v1", input_price=2.0, output_price=8.0)
    assert unpriced_cache.cost(1_000_000, 500_000, 800_000) == 6.0  # no cached price: cached input is input
    assert EndpointSettings(base_url="http://h/v1", cached_input_price=1.0).cost(10, 0, 10) == 1e-5
    assert EndpointSettings(base_url="http://h/v1").cost(5, 5, 5) is None
