"""Rebuild a pydantic-ai message history from squall events.

The events are the single source of truth: rebuilding each turn lets the same adapter serve
cumulative runs (the real history) and teacher-forced ones (a gold history) alike.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelRequestPart,
    ModelResponse,
    ModelResponsePart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from sim.core import Event


def to_model_messages(events: Sequence[Event]) -> list[ModelMessage]:
    """user/agent messages and tool calls/results, in order; error events are not shown to the model.

    All calls of one model step (same turn and step) go in one response, even when their results were
    recorded in between (tools of one step may run concurrently).
    """
    messages: list[ModelMessage] = []
    request: list[ModelRequestPart] = []
    emitted: set[tuple[int, int]] = set()

    def flush_request() -> None:
        nonlocal request
        if request:
            messages.append(ModelRequest(parts=request))
            request = []

    for i, ev in enumerate(events):
        if ev.kind == "user_message":
            request.append(UserPromptPart(ev.content or ""))
        elif ev.kind == "tool_call" and ev.call is not None:
            key = (ev.turn, ev.step)
            if key in emitted:
                continue
            emitted.add(key)
            flush_request()
            parts: list[ModelResponsePart] = [
                ToolCallPart(e.call.name, dict(e.call.arguments), tool_call_id=e.call.id)
                for e in events[i:]
                if e.kind == "tool_call" and e.call is not None and (e.turn, e.step) == key
            ]
            messages.append(ModelResponse(parts=parts))
        elif ev.kind == "tool_result" and ev.call is not None and ev.result is not None:
            request.append(ToolReturnPart(ev.call.name, ev.result.content, tool_call_id=ev.call.id))
        elif ev.kind == "agent_message":
            flush_request()
            # Some servers reject assistant messages with empty content (llama.cpp); keep a placeholder.
            messages.append(ModelResponse(parts=[TextPart(ev.content or "(no reply)")]))
    flush_request()
    return messages
