"""The Chat Completions body spliced from cached message JSON is byte for byte what encoding it whole gives, and the
cache holds no message that is gone."""

from __future__ import annotations

import gc
import json
from typing import Any

import pytest

from sim.core import ChatMessage, ModelRequest, ToolCall
from sim.llm.transports.http1 import Http1Pool
from sim.llm.transports.openai_chat import OpenAIChatTransport, _message, _message_bytes
from sim.llm.transports.openai_reply import loads

HISTORY = (
    ChatMessage(role="system", content="Be brief. é"),
    ChatMessage(role="user", content='turn the "lamp"\non'),
    ChatMessage(role="assistant", tool_calls=(ToolCall(id="c1", name="set_power", arguments={"id": "ü", "on": True}),)),
    ChatMessage(role="tool", content='{"ok": true}', tool_call_id="c1", name="set_power"),
)


def whole(model: str, request: ModelRequest) -> bytes:
    payload: dict[str, Any] = {"model": model, "messages": [_message(m) for m in request.messages]}
    for name in ("max_tokens", "temperature", "seed"):
        if getattr(request, name) is not None:
            payload[name] = getattr(request, name)
    if request.stop:
        payload["stop"] = list(request.stop)
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()


@pytest.mark.parametrize(
    "extra", [{}, {"max_tokens": 64}, {"max_tokens": 8, "temperature": 0.2, "seed": 7, "stop": ("x",)}]
)
async def test_the_body_is_what_encoding_it_whole_gives(extra: dict[str, Any]) -> None:
    async with Http1Pool() as session:
        transport = OpenAIChatTransport(session, "http://127.0.0.1:1/v1", 'mo"del', 5.0)
        for end in range(1, len(HISTORY) + 1):  # a history growing step by step, as an agent's does
            request = ModelRequest(role="agent", model="m", messages=HISTORY[:end], **extra)
            assert transport._body(request) == whole('mo"del', request)


async def test_the_cache_lets_go_of_messages_that_are_gone() -> None:
    async with Http1Pool() as session:
        transport = OpenAIChatTransport(session, "http://127.0.0.1:1/v1", "m", 5.0)
        messages = tuple(ChatMessage(role="user", content=f"hello {i}") for i in range(50))
        transport._body(ModelRequest(role="agent", model="m", messages=messages))
        assert len(transport._messages_json) == 50
        del messages
        gc.collect()
        assert transport._messages_json == {}


TRICKY = (
    ChatMessage(role="user", content='\x00\x1f "q" \\ / \t\n\u2028 caf\u00e9 \U0001f600'),
    ChatMessage(role="assistant", content="thinking \u00e9", tool_calls=()),
    ChatMessage(
        role="assistant",
        tool_calls=(
            ToolCall(id='c"1', name="f\u00fc", arguments={"x": 1.5, "y": [None, True, 1e21], "z": {"\u00e9": "\n"}}),
            ToolCall(id="c2", name="g", arguments={}),
        ),
    ),
    ChatMessage(role="tool", content="", tool_call_id=None, name=None),
    ChatMessage(role="tool", content='{"ok": true}', tool_call_id="c2", name=""),
    ChatMessage(role="user", content="", name="ignored for users"),
)


@pytest.mark.parametrize("message", HISTORY + TRICKY)
def test_a_message_written_directly_is_what_json_dumps_gives(message: ChatMessage) -> None:
    expected = json.dumps(_message(message), ensure_ascii=False, separators=(",", ":")).encode()
    assert _message_bytes(message) == expected


async def test_sampling_fields_equal_in_python_but_not_in_json_never_share_a_body() -> None:
    async with Http1Pool() as session:
        transport = OpenAIChatTransport(session, "http://127.0.0.1:1/v1", "m", 5.0)
        variants: list[dict[str, Any]] = [
            {"temperature": 0.0},
            {"temperature": -0.0},
            {"temperature": 0.0, "seed": 1},
            {"temperature": 0.0, "seed": 1, "max_tokens": 1},
            {"stop": ("a", "b")},
            {"stop": ("a",)},
            {},
        ]
        for extra in variants * 2:  # the second time from the cache
            request = ModelRequest(role="agent", model="m", messages=HISTORY, **extra)
            assert transport._body(request) == whole("m", request)


@pytest.mark.parametrize(
    "raw",
    [b'{"a": "\xc3\xa9"}', b'\xef\xbb\xbf{"a": 1}', '{"a": 1}'.encode("utf-16"), '{"a": 2}'.encode("utf-16-le"), b"{}"],
)
def test_answers_decode_as_json_loads_decodes_them(raw: bytes) -> None:
    assert loads(raw) == json.loads(raw)
