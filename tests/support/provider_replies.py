"""A provider conversation as real ones answer, for a whole run against ``tests.support.canned_provider``: per agent
turn, two parallel calls (one with a long provider id, one with none) with reasoning text and token details, then a
call cut at the output limit (no id, half its arguments), then a reply."""

from __future__ import annotations

from typing import Any

from tests.support.canned_provider import Canned

LONG_ID = "function-call-2900024254458648715"
REASONING = "The user wants the light on; the first tool is the one to call."


def _message(content: Any = None, **extra: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": content, **extra}


def _body(message: dict[str, Any], finish: str, usage: dict[str, Any]) -> dict[str, Any]:
    choice = {"index": 0, "message": message, "finish_reason": finish}
    return {"id": "chatcmpl-1", "object": "chat.completion", "model": "m", "choices": [choice], "usage": usage}


def answer(request: dict[str, Any]) -> Canned:
    """The answer to the agent's request, by how many tool results its turn has so far (0, 2, then more)."""
    messages = request["messages"]
    last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
    results = sum(1 for m in messages[last_user:] if m["role"] == "tool")
    tool = request["tools"][0]["function"]["name"]
    if results == 0:
        calls = [
            {"id": LONG_ID, "type": "function", "function": {"name": tool, "arguments": "{}"}},
            {"type": "function", "function": {"name": tool, "arguments": "{}"}},
        ]
        details = {
            "prompt_tokens_details": {"cached_tokens": 64},
            "completion_tokens_details": {"reasoning_tokens": 12},
        }
        usage = {"prompt_tokens": 80, "completion_tokens": 20, "total_tokens": 100, **details}
        return Canned(_body(_message(tool_calls=calls, reasoning_content=REASONING), "tool_calls", usage))
    if results == 2:
        cut = [{"id": "", "type": "function", "function": {"name": tool, "arguments": '{"device_id": "kitch'}}]
        usage = {"prompt_tokens": 90, "completion_tokens": 7, "total_tokens": 97}
        return Canned(_body(_message(tool_calls=cut), "length", usage))
    return Canned(_body(_message("Done."), "stop", {"prompt_tokens": 100, "completion_tokens": 3, "total_tokens": 103}))
