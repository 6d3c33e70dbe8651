"""TokenEstimator's caches (tool lists, tool calls, messages by identity) give the numbers a fresh count gives."""

from __future__ import annotations

import gc

from sim.core import ChatMessage, ModelRequest, ToolCall, ToolSpec
from sim.llm.admission.token_bucket import TokenEstimator

MODELS = ("openai:gpt-4o", "openai-chat:llama-3@http://h/v1")  # tiktoken, and ~4 characters a token


def _tools(n: int) -> tuple[ToolSpec, ...]:
    return tuple(
        ToolSpec(name=f"tool_{i}", description=f"Tool number {i}.", parameters={"type": "object", "properties": {}})
        for i in range(n)
    )


def _rebuilt(calls: list[ToolCall], turn: int) -> tuple[ChatMessage, ...]:
    """A history as an agent rebuilds it from its events each turn: new messages, the same ToolCall objects."""
    messages = [ChatMessage(role="system", content="You are a helpful assistant.")]
    for call in calls[:turn]:
        messages.append(ChatMessage(role="user", content=f"please run {call.name}"))
        messages.append(ChatMessage(role="assistant", tool_calls=(call,)))
        messages.append(ChatMessage(role="tool", content='{"ok": true}', tool_call_id=call.id, name=call.name))
    return tuple(messages)


def test_cached_estimates_equal_fresh_counts_across_rebuilt_histories_and_models() -> None:
    tools = {model: _tools(5) for model in MODELS}  # tools sent to two models keep the first one's count (documented)
    calls = [ToolCall(id=f"c{i}", name=f"tool_{i}", arguments={"n": i, "s": "x" * i}) for i in range(6)]
    cached = TokenEstimator()
    for turn in range(6):
        for model in MODELS:  # the same ToolCall objects in new messages for another model: counted for that one
            request = ModelRequest(role="agent", model=model, messages=_rebuilt(calls, turn), tools=tools[model])
            assert cached.estimate(request) == TokenEstimator().estimate(request)
            assert cached.estimate(request) == TokenEstimator().estimate(request)  # all hits now


def test_a_tool_list_is_recounted_once_its_tools_died() -> None:
    gc.freeze()  # what the suite had made before is left out of the collections below: they cost seconds on its heap
    try:
        estimator = TokenEstimator()
        messages = (ChatMessage(role="user", content="hi"),)
        for n in (3, 4, 3, 5):  # new ToolSpec objects each time: their ids may be the dead ones'
            tools = _tools(n)
            request = ModelRequest(role="agent", model=MODELS[0], messages=messages, tools=tools)
            assert estimator.estimate(request) == TokenEstimator().estimate(request)
            del tools, request
            gc.collect()
        assert not estimator._tool_sets  # cleared as the tools died: no set names a reused id
    finally:
        gc.unfreeze()
