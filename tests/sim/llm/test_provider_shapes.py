"""Ten providers' response shapes, written from their public API documentation (tests/data/provider_shapes: one file
per provider, naming the pages), each replayed through the lean client over real HTTP and read as expected: the text,
the calls with their ids (kept, or invented where none came), the token details, a cut reply, the error's class, code
and wait, the rate-limit headers kept for pacing. No request carries an output cap: none is configured."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sim.core import ChatMessage, ModelRequest, ModelResponse, ToolCall
from sim.llm.transports.base import TransportError
from sim.llm.transports.http1 import Http1Pool
from sim.llm.transports.openai_chat import OpenAIChatTransport, _message
from tests.support.canned_provider import Canned, CannedProvider, canned_provider

SHAPES = Path(__file__).parents[2] / "data" / "provider_shapes"
PROVIDERS = (
    "openai", "azure_openai", "gemini", "anthropic", "deepseek", "mistral", "groq", "vllm", "llama_cpp", "ollama",
)  # fmt: skip
FILES = {name: json.loads((SHAPES / f"{name}.json").read_text(encoding="utf-8")) for name in PROVIDERS}
CASES = [(name, case) for name in PROVIDERS for case in FILES[name]["cases"]]
READING = {
    "text": "",
    "tool_calls": [],
    "invalid_arguments": {},
    "finish_reason": None,
    "truncated": False,
    "input_tokens": 0,
    "output_tokens": 0,
    "cached_input_tokens": 0,
    "reasoning_tokens": 0,
    "reasoning": "",
    "model": None,
}
"""What a case's ``expect`` says of an answer; a key it leaves out is expected at this value."""


@pytest.fixture(scope="module")
def provider() -> Iterator[CannedProvider]:
    with canned_provider([]) as server:
        yield server


def conversation(earlier_calls: int) -> ModelRequest:
    """A request whose history already holds ``earlier_calls`` tool calls (an invented id is numbered after them)."""
    calls = tuple(ToolCall(id=f"prev{i}", name="list_devices", arguments={}) for i in range(earlier_calls))
    messages = [ChatMessage(role="user", content="Turn on the hallway light.")]
    if calls:
        messages.append(ChatMessage(role="assistant", tool_calls=calls))
        messages += [ChatMessage(role="tool", content="[]", tool_call_id=c.id, name=c.name) for c in calls]
        messages.append(ChatMessage(role="user", content="And the kitchen one."))
    return ModelRequest(role="agent", model="openai-chat:m@x", messages=tuple(messages), temperature=0.0, seed=1)


def reading(response: ModelResponse) -> dict[str, Any]:
    return {
        "text": response.text,
        "tool_calls": [[c.id, c.name, dict(c.arguments)] for c in response.tool_calls],
        "invalid_arguments": dict(response.invalid_arguments),
        "finish_reason": response.finish_reason,
        "truncated": response.truncated,
        "input_tokens": response.input_tokens,
        "output_tokens": response.output_tokens,
        "cached_input_tokens": response.cached_input_tokens,
        "reasoning_tokens": response.reasoning_tokens,
        "reasoning": response.reasoning,
        "model": response.model,
    }


@pytest.mark.parametrize(("name", "case"), CASES, ids=[f"{name}: {case['name']}" for name, case in CASES])
async def test_a_documented_answer_reads_as_expected(provider: CannedProvider, name: str, case: dict[str, Any]) -> None:
    provider.set_answers([Canned(case["body"], case.get("status", 200), case.get("headers", {}))])
    expect = case["expect"]
    async with Http1Pool() as session:
        transport = OpenAIChatTransport(session, provider.url, "m", 10.0)
        request = conversation(case.get("history_calls", 0))
        if "error" in expect:
            with pytest.raises(TransportError) as caught:
                await transport.send(request)
            error, wanted = caught.value, expect["error"]
            got = (error.kind, error.code, error.retry_after_s)
            assert got == (wanted["kind"], wanted["code"], wanted["retry_after_s"])
            assert wanted["message_has"] in str(error)
            kept = dict(error.headers)
        else:
            reply = await transport.send(request)
            assert reading(reply.response) == READING | {k: v for k, v in expect.items() if k in READING}
            assert reply.response.output_limit is None  # no cap was sent
            kept = dict(reply.headers)
    assert sorted(kept) == sorted(expect.get("headers", []))  # x-ratelimit-* and retry-after*, for pacing
    [sent] = provider.requests
    assert not {"max_tokens", "max_completion_tokens"} & sent.keys()  # no output cap unless one is configured
    assert sent["messages"] == [_message(m) for m in request.messages]  # the history's ids, as they were


def test_the_suite_covers_every_shape_the_issue_names() -> None:
    """Per provider: a tool call, a cut reply and an error; across them all, each shape the providers differ on."""
    for name in PROVIDERS:
        cases = [c["expect"] for c in FILES[name]["cases"]]
        assert any(e.get("tool_calls") for e in cases), name
        assert any(e.get("truncated") for e in cases), name
        assert any("error" in e for e in cases), name
        assert FILES[name]["docs"].startswith("https://"), name
    bodies = [(c["body"], c["expect"]) for _, c in CASES if "error" not in c["expect"]]
    messages = [b["choices"][0]["message"] for b, _ in bodies]
    calls = [call for m in messages for call in m.get("tool_calls") or []]
    assert any(len(m.get("tool_calls") or []) > 1 for m in messages)  # parallel calls
    assert any(call.get("id") for call in calls) and any(not call.get("id") for call in calls)  # ids given, and not
    assert any("content" not in m for m in messages) and any(m.get("content", 0) is None for m in messages)
    assert any(m.get("content") == "" for m in messages) and any(isinstance(m.get("content"), list) for m in messages)
    assert any(m.get("refusal") for m in messages)
    assert any(m.get("reasoning_content") for m in messages) and any(m.get("reasoning") for m in messages)
    assert any(e.get("cached_input_tokens") for _, e in bodies) and any(e.get("reasoning_tokens") for _, e in bodies)
    finishes = {e.get("finish_reason") for _, e in bodies}
    assert {"stop", "tool_calls", "length", "content_filter", "model_length"} <= finishes
    errors = [c for _, c in CASES if "error" in c["expect"]]
    assert any(c["expect"]["error"]["retry_after_s"] for c in errors)  # a wait the provider asked for
    assert any(isinstance(c["body"], list) for c in errors) and any("object" in c["body"] for c in errors)
    assert all(re.fullmatch(r"provider:[a-z_0-9]+|agent:context_length", c["expect"]["error"]["code"]) for c in errors)
