"""Rebuild a chat history from squall events.

The events are the single source of truth: rebuilding each turn lets the same adapter serve
cumulative runs (the real history) and teacher-forced ones (a gold history) alike.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sim.core import ChatMessage, Event, ToolCall


def tool_content(content: Any) -> str:
    """A tool result as the model reads it: JSON text."""
    return content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)


def to_chat_messages(events: Sequence[Event], instructions: str = "") -> list[ChatMessage]:
    """System instructions, then user/agent messages and tool calls/results in order; error events are not
    shown to the model.

    All calls of one model step (same turn and step) go in one assistant message, even when their results
    were recorded in between (tools of one step may run concurrently).
    """
    messages: list[ChatMessage] = [ChatMessage(role="system", content=instructions)] if instructions else []
    grouped: dict[tuple[int, int], list[ToolCall]] = {}
    for ev in events:
        if ev.kind == "tool_call" and ev.call is not None:
            grouped.setdefault((ev.turn, ev.step), []).append(ev.call)
    emitted: set[tuple[int, int]] = set()
    for ev in events:
        if ev.kind == "user_message":
            messages.append(ChatMessage(role="user", content=ev.content or ""))
        elif ev.kind == "tool_call" and ev.call is not None:
            key = (ev.turn, ev.step)
            if key not in emitted:
                emitted.add(key)
                messages.append(ChatMessage(role="assistant", tool_calls=tuple(grouped[key])))
        elif ev.kind == "tool_result" and ev.call is not None and ev.result is not None:
            messages.append(
                ChatMessage(
                    role="tool", content=tool_content(ev.result.content), tool_call_id=ev.call.id, name=ev.call.name
                )
            )
        elif ev.kind == "agent_message":
            # Some servers reject assistant messages with empty content (llama.cpp); keep a placeholder.
            messages.append(ChatMessage(role="assistant", content=ev.content or "(no reply)"))
    return messages
