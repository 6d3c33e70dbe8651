"""A conversation rebuilt at every turn gives back the same message objects for the events it already showed (so
their encoded JSON is reused), and exactly the messages it gives without a memo."""

from __future__ import annotations

import gc

from sim.agents.history import MessageMemo, to_chat_messages, tool_content
from sim.core import ChatMessage, Event, ToolCall, ToolResult


def turn(n: int) -> list[Event]:
    calls = [ToolCall(id=f"c{n}{i}", name="set_power", arguments={"id": f"lamp{i}", "on": True}) for i in range(2)]
    return [
        Event(kind="user_message", turn=n, content=f"turn {n}: lamps on"),
        *(Event(kind="tool_call", turn=n, step=0, call=c) for c in calls),
        *(
            Event(
                kind="tool_result",
                turn=n,
                step=0,
                call=c,
                result=ToolResult(call_id=c.id, status="success", content={"ok": i}),
            )
            for i, c in enumerate(calls)
        ),
        Event(kind="error", turn=n, content="not shown", code="provider:x", fault="provider"),
        Event(kind="agent_message", turn=n, content="" if n else "done"),
    ]


def test_each_turn_reuses_the_messages_of_the_turns_before_and_matches_no_memo() -> None:
    memo, history = MessageMemo(), []
    earlier: list[ChatMessage] = []
    for n in range(3):
        history += turn(n)
        with_memo = to_chat_messages(history, "Be brief.", memo)
        assert with_memo == to_chat_messages(history, "Be brief.")
        assert all(a is b for a, b in zip(earlier, with_memo, strict=False))  # the same objects, not equal copies
        earlier = with_memo
    assert [m.role for m in earlier[:6]] == ["system", "user", "assistant", "tool", "tool", "assistant"]
    assert len(earlier[2].tool_calls) == 2  # one step's calls in one assistant message


def test_the_memo_lets_go_of_events_that_are_gone() -> None:
    memo = MessageMemo()
    history = turn(0)
    to_chat_messages(history, "", memo)
    assert memo._by_event
    del history
    gc.collect()
    assert memo._by_event == {}


def test_tool_messages_an_agent_made_in_its_turn_serve_again_when_they_show_the_same_result() -> None:
    memo, history = MessageMemo(), turn(0)
    results = [ev for ev in history if ev.kind == "tool_result"]
    made = []
    for ev in results:  # as NativeToolAgent makes them within the turn, from the result the runtime gave back
        assert ev.call is not None and ev.result is not None
        message = ChatMessage(role="tool", content=tool_content(ev.result.content), tool_call_id=ev.call.id, name="x")
        made.append(message)
        memo.put_result(ev.result, message)
    memo.put_result(results[0].result, made[0].model_copy(update={"name": "set_power"}))  # type: ignore[arg-type]
    rebuilt = to_chat_messages(history, "", memo)
    assert rebuilt == to_chat_messages(history, "")
    tools = [m for m in rebuilt if m.role == "tool"]
    assert tools[0] is memo.result_message(results[0])  # the same object: its JSON is encoded once
    assert tools[1] is not made[1]  # a message that does not show the event (another name) is not taken
