"""Rebuild a chat history from squall events.

The events are the single source of truth: rebuilding each turn lets the same adapter serve
cumulative runs (the real history) and teacher-forced ones (a gold history) alike.
"""

from __future__ import annotations

import functools
import json
import re
import weakref
from collections.abc import Sequence
from typing import Any

from sim.core import ChatMessage, Event, ToolCall, ToolResult

_dumps = json.JSONEncoder(ensure_ascii=False).encode
"""``json.dumps(value, ensure_ascii=False)`` without building an encoder per call."""


def tool_content(content: Any) -> str:
    """A tool result as the model reads it: JSON text."""
    return content if isinstance(content, str) else _dumps(content)


class MessageMemo:
    """Each event's chat message, made once: a conversation is rebuilt from its events at every turn, and handing
    back the same message objects lets the transport reuse their encoded JSON (it caches by identity). Entries die
    with their events (weak references); the system message is kept by its text."""

    def __init__(self) -> None:
        # The entries' weakref callbacks reach the memo through a weak reference: a callback holding the memo's own
        # dict makes the memo a cycle for as long as an entry's event lives, so an event kept past the episode (by
        # a cycle elsewhere, or a caller) would keep the memo and its messages too.
        self._this = weakref.ref(self)
        self._by_event: dict[int, tuple[weakref.ref[Event], tuple[ChatMessage, ...]]] = {}
        self._by_result: dict[int, tuple[weakref.ref[ToolResult], ChatMessage]] = {}
        self._system: dict[str, ChatMessage] = {}

    def get(self, event: Event) -> tuple[ChatMessage, ...] | None:
        """The messages made of ``event`` before (none, for an event the model is not shown)."""
        hit = self._by_event.get(id(event))
        return hit[1] if hit is not None and hit[0]() is event else None

    def put_result(self, result: ToolResult, message: ChatMessage) -> None:
        """The tool message an agent made of ``result`` within a turn: the event that records the same result object
        is shown the same way at the next turn, so that message (and its encoded JSON) serves again."""
        key, memo = id(result), self._by_result
        memo[key] = (weakref.ref(result, functools.partial(_drop, self._this, "_by_result", key)), message)

    def result_message(self, event: Event) -> ChatMessage | None:
        """The message ``put_result`` kept for the event's result, if it is the one the event shows."""
        result, call = event.result, event.call
        hit = self._by_result.get(id(result))
        if hit is None or hit[0]() is not result or call is None:
            return None
        message = hit[1]
        return message if message.tool_call_id == call.id and message.name == call.name else None

    def put(self, event: Event, *messages: ChatMessage) -> tuple[ChatMessage, ...]:
        key, memo = id(event), self._by_event
        memo[key] = (weakref.ref(event, functools.partial(_drop, self._this, "_by_event", key)), messages)
        return messages

    def system(self, instructions: str) -> ChatMessage:
        found = self._system.get(instructions)
        if found is None:
            if len(self._system) >= 64:  # a world's variants have a few instruction texts; never grow without end
                self._system.clear()
            found = self._system[instructions] = ChatMessage(role="system", content=instructions)
        return found


def _drop(memo_ref: weakref.ref[MessageMemo], table: str, key: int, _dead: object) -> None:
    memo = memo_ref()
    if memo is not None:
        getattr(memo, table).pop(key, None)  # the event (or result) died: its id may be reused


def to_chat_messages(
    events: Sequence[Event], instructions: str = "", memo: MessageMemo | None = None
) -> list[ChatMessage]:
    """System instructions, then user/agent messages and tool calls/results in order; error events are not
    shown to the model, except a call it invented (an error that keeps the call and the refusal it read): the
    model made it and read its error, so later turns show both, as BFCL's history does.

    All calls of one model step (same turn and step) go in one assistant message, in the order the model made
    them, even when their results were recorded in between (tools of one step may run concurrently). With a
    ``memo``, an event made into messages before (at an earlier turn: its step is complete) gives back those
    same message objects.
    """
    memo = memo or MessageMemo()
    messages: list[ChatMessage] = [memo.system(instructions)] if instructions else []
    grouped: dict[tuple[int, int], list[ToolCall]] = {}
    for ev in events:
        if (call := _made_call(ev)) is not None:
            grouped.setdefault((ev.turn, ev.step), []).append(call)
    for calls in grouped.values():
        if len(calls) > 1 and all(_RUNTIME_ID.fullmatch(c.id) for c in calls):
            calls.sort(key=lambda c: int(c.id.rsplit("_", 1)[1]))  # invented calls are recorded after they ran
    emitted: set[tuple[int, int]] = set()
    for ev in events:
        opens = False
        if _made_call(ev) is not None:
            key = (ev.turn, ev.step)
            opens = key not in emitted
            emitted.add(key)
            if ev.kind == "tool_call" and not opens:
                continue
        shown = memo.get(ev)
        if shown is None and ev.kind == "tool_result":
            message = memo.result_message(ev)
            if message is not None:
                shown = memo.put(ev, message)
        if shown is None:
            shown = memo.put(ev, *_messages_of(ev, grouped, opens))
        messages += shown
    return messages


_RUNTIME_ID = re.compile(r"call_\d+_\d+")
"""The ids the episode runtime gives calls (``call_<turn>_<index>``): their index is the order the model made them."""


def _made_call(ev: Event) -> ToolCall | None:
    """The call a model made, if the event records one: a tool call, or an invented call refused as an error."""
    if ev.kind == "tool_call" or (ev.kind == "error" and ev.result is not None):
        return ev.call
    return None


def _messages_of(ev: Event, grouped: dict[tuple[int, int], list[ToolCall]], opens: bool) -> tuple[ChatMessage, ...]:
    """The messages an event shows the model: a tool call its step's calls together (when it ``opens`` the step),
    an invented call that too and its refusal."""
    if ev.kind == "user_message":
        return (ChatMessage(role="user", content=ev.content or ""),)
    if ev.kind == "tool_call" and ev.call is not None:
        return (ChatMessage(role="assistant", tool_calls=tuple(grouped[(ev.turn, ev.step)])),)
    if ev.kind in ("tool_result", "error") and ev.call is not None and ev.result is not None:
        result = ChatMessage(
            role="tool", content=tool_content(ev.result.content), tool_call_id=ev.call.id, name=ev.call.name
        )
        if ev.kind == "error" and opens:  # a step whose calls were all invented has no tool_call event to open it
            return ChatMessage(role="assistant", tool_calls=tuple(grouped[(ev.turn, ev.step)])), result
        return (result,)
    if ev.kind == "agent_message":
        # Some servers reject assistant messages with empty content (llama.cpp); keep a placeholder.
        return (ChatMessage(role="assistant", content=ev.content or "(no reply)"),)
    return ()
