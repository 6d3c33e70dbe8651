"""The Chat Completions body spliced from cached message JSON is byte for byte what encoding it whole gives, and the
cache holds no message that is gone."""

from __future__ import annotations

import gc
import json
from typing import Any

import pytest

from sim.core import ChatMessage, ModelRequest, ToolCall
from sim.llm.transports.http1 import Http1Pool
from sim.llm.transports.openai_chat import OpenAIChatTransport, _message

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
