"""A response body parses (unvalidated, ``sim.core.trusted``) into the very value validation gives, and every body
validation refuses is a malformed response."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from sim.core import ChatMessage, ModelRequest, ModelResponse, ToolCall
from sim.core.model_io import kept_reasoning
from sim.llm.transports.base import TransportError
from sim.llm.transports.http1 import Http1Pool
from sim.llm.transports.openai_chat import OpenAIChatTransport
from sim.llm.transports.openai_errors import INTERRUPTED_FINISH
from sim.llm.transports.openai_reply import content_text, reasoning_text, token_details, tool_calls

REQUEST = ModelRequest(role="agent", model="mock-model", messages=(ChatMessage(role="user", content="hi"),))


def validated(raw: bytes) -> ModelResponse | None:
    """The body as validation reads it (None: refused), the way the parser read it before it built values itself:
    every value through its model's ``__init__``."""
    try:
        data = json.loads(raw)
        message = data["choices"][0]["message"]
        decoded, invalid = tool_calls(message.get("tool_calls") or [], REQUEST)  # the arguments' decoding, unchanged
        calls = [ToolCall(id=c.id, name=c.name, arguments=c.arguments) for c in decoded]
        usage = data.get("usage") or {}
        input_tokens, output_tokens = int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)
        cached, reasoning_tokens = token_details(usage)
        content = message.get("content")
        text, thinking = (content, "") if isinstance(content, str) else content_text(content)
        refusal = message.get("refusal")
        return ModelResponse(
            text=text or (refusal if isinstance(refusal, str) else ""),
            tool_calls=tuple(calls),
            invalid_arguments=invalid,
            finish_reason=data["choices"][0].get("finish_reason"),
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            cost=0.0,
            model=data.get("model"),
            cached_input_tokens=cached,
            reasoning_tokens=reasoning_tokens,
            reasoning=kept_reasoning(reasoning_text(message) or thinking),
            output_limit=None,
        )
    except (ValueError, KeyError, IndexError, TypeError, AttributeError, OverflowError, ValidationError):
        return None


def body(**changes: Any) -> dict[str, Any]:
    message: dict[str, Any] = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "set_light", "arguments": '{"on": true}'}},
            {"id": "call_2", "type": "function", "function": {"name": "list_rooms", "arguments": "{not json"}},
        ],
    }
    data: dict[str, Any] = {
        "id": "x",
        "model": "mock-model",
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
        "usage": {"prompt_tokens": 46, "completion_tokens": 4},
    }
    for path, value in changes.items():
        *parents, last = path.split("__")
        node: Any = data
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value
    return data


ODD_VALUES = [None, "", "text", 0, -1, 3, 2.5, float("inf"), True, [], {}, ["a"], {"a": 1}]
FIELDS = [
    "model",
    "choices__0__finish_reason",
    "choices__0__message__content",
    "choices__0__message__tool_calls",
    "choices__0__message__tool_calls__0__id",
    "choices__0__message__tool_calls__0__function__name",
    "choices__0__message__tool_calls__0__function__arguments",
    "usage__prompt_tokens",
    "usage__completion_tokens",
    "usage",
    "choices__0__message__refusal",
    "choices__0__message__reasoning_content",
    "choices__0__message__reasoning",
    "usage__prompt_tokens_details",
    "usage__completion_tokens_details",
    "usage__prompt_cache_hit_tokens",
    "usage__cache_read_input_tokens",
]


async def parsed(raw: bytes, cost: float | None = None) -> ModelResponse | None:
    async with Http1Pool() as session:
        transport = OpenAIChatTransport(session, "http://127.0.0.1:1/v1", "mock-model", 5.0)
        if cost is not None:  # what a priced endpoint's settings would answer
            transport._cost = lambda input_tokens, output_tokens, cached=0: cost  # type: ignore[method-assign]
        try:
            return transport._parse(raw, REQUEST)
        except TransportError as error:
            if error.code == "provider:interrupted":  # a well-formed answer the provider says it broke off
                want = validated(raw)
                assert want is not None and want.finish_reason in INTERRUPTED_FINISH
                return want
            assert error.code == "provider:malformed_response"
            return None


def same(got: ModelResponse | None, want: ModelResponse | None) -> None:
    if want is None:
        assert got is None
        return
    assert got is not None
    assert got == want
    assert got.model_fields_set == want.model_fields_set
    assert got.model_dump_json() == want.model_dump_json() and repr(got) == repr(want)
    for a, b in zip(got.tool_calls, want.tool_calls, strict=True):
        assert a.model_fields_set == b.model_fields_set and a.model_dump_json() == b.model_dump_json()


@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize("value", ODD_VALUES, ids=repr)
async def test_every_odd_field_parses_as_validation_reads_it(field: str, value: Any) -> None:
    raw = json.dumps(body(**{field: value})).encode()
    same(await parsed(raw), validated(raw))


async def test_a_plain_answer_and_a_refused_one() -> None:
    good = json.dumps(body(choices__0__message__content="done", choices__0__message__tool_calls=None)).encode()
    assert (
        (await parsed(good))
        == validated(good)
        == ModelResponse(text="done", finish_reason="tool_calls", input_tokens=46, output_tokens=4, model="mock-model")
    )
    negative = json.dumps(body(usage__prompt_tokens=-5)).encode()
    assert await parsed(negative) is None and validated(negative) is None


async def test_a_count_too_large_for_an_int_is_a_malformed_response() -> None:
    raw = json.dumps(body()).replace('"prompt_tokens": 46', '"prompt_tokens": 1e400').encode()
    assert b"1e400" in raw and await parsed(raw) is None and validated(raw) is None


@pytest.mark.parametrize("cost", [0.0, 2.5, float("inf"), -1.0, float("nan")], ids=repr)
async def test_a_priced_answer_is_refused_where_validation_refuses_its_cost(cost: float) -> None:
    raw = json.dumps(body()).encode()
    want = validated(raw)
    assert want is not None
    try:
        want = want.model_validate({**want.model_dump(exclude_unset=True), "cost": cost})
    except ValidationError:
        want = None
    got = await parsed(raw, cost)
    if want is None:
        assert got is None
    else:
        assert got is not None and got.model_dump_json() == want.model_dump_json() and got.cost == want.cost


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(FIELDS),
    st.recursive(
        st.none() | st.booleans() | st.integers(-3, 10**6) | st.floats(allow_nan=False) | st.text(max_size=5),
        lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=3), inner, max_size=2),
        max_leaves=4,
    ),
)
async def test_any_value_anywhere_parses_as_validation_reads_it(field: str, value: Any) -> None:
    raw = json.dumps(body(**{field: value})).encode()
    same(await parsed(raw), validated(raw))
