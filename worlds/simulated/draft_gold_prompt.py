"""The prompt that asks a model for a task's gold calls, and the strict reading of its answer.

The prompt holds the request and the APIs its gold names, each as ``draft_prompt.operation_text`` shows an operation
(name, method, path, documentation, arguments sketched with ``*`` on the required ones), no known responses: the
arguments come from the request, not from another call's example. Over the token bound the APIs are shown by their
signatures; still over it, the task is not drafted (``PromptTooLong``): a bound is a promise about every request.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from sim.core import ChatMessage, GoldCall
from worlds.simulated.draft_prompt import CountTokens, operation_text, prompt_tokens
from worlds.simulated.operations import ApiOperation

SYSTEM = """\
You fill in the API calls that answer a user's request. You are given the request and the APIs it needs.
Answer with a JSON list of the calls, in the order they should be made, and nothing else:
[{"name": "<API>", "arguments": {...}}, ...]
- Call every listed API at least once, and no other.
- Give each required argument (* marks one) the value the request states or clearly implies, in the type its \
schema says; leave out optional arguments the request does not need.
- A value only an earlier call's result can give (an id): your best guess of it, in the type asked."""
REQUEST = "Request: {request}"
"""The user message's first line (a mock endpoint's script recognises a drafting request by it)."""


class PromptTooLong(ValueError):
    """Even the APIs' signatures do not fit the token bound beside the request."""


def gold_prompt(
    request: str, operations: Sequence[ApiOperation], count: CountTokens, max_tokens: int
) -> list[ChatMessage]:
    """The messages asking for ``request``'s calls of ``operations``, at most ``max_tokens`` (as ``count`` counts)."""
    for detail in (1, 0):
        blocks = [operation_text(operation, (), detail) for operation in operations]
        text = "\n".join([REQUEST.format(request=request), "", "APIs:", *blocks, "", "Write the calls."])
        messages = [ChatMessage(role="system", content=SYSTEM), ChatMessage(role="user", content=text)]
        tokens = prompt_tokens(messages, count)
        if tokens <= max_tokens:
            return messages
    raise PromptTooLong(f"{tokens} tokens with the APIs' signatures only, over --max-prompt-tokens {max_tokens}")


def parse_calls(text: str) -> list[GoldCall]:
    """The calls of an answer: a JSON list of ``{"name", "arguments"}`` (an object holding one under ``calls`` is read
    too; text around it, such as a code fence, is ignored). Raises ValueError saying what is wrong."""
    start, end = text.find("["), text.rfind("]")
    if start < 0 or end < start:
        raise ValueError("no JSON list in the answer")
    try:
        raw: Any = json.loads(text[start : end + 1])
    except json.JSONDecodeError as error:
        try:  # {"calls": [...]}: the list's brackets found inside the object
            raw = json.loads(text[text.find("{") : text.rfind("}") + 1])["calls"]
        except (json.JSONDecodeError, KeyError, TypeError):
            raise ValueError(f"not valid JSON: {error.msg}") from error
    if not isinstance(raw, list) or not raw:
        raise ValueError("not a non-empty list of calls")
    calls = []
    for c, item in enumerate(raw):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise ValueError(f"call {c}: needs a 'name' string and an 'arguments' object")
        arguments = item.get("arguments", {})
        if isinstance(arguments, str):  # the OpenAI wire form: arguments as a JSON string
            try:
                arguments = json.loads(arguments)
            except json.JSONDecodeError:
                raise ValueError(f"call {c} ({item['name']}): 'arguments' is a string that is not JSON") from None
        try:
            calls.append(GoldCall(name=item["name"], arguments=arguments))
        except ValidationError as error:
            first = error.errors(include_url=False)[0]
            raise ValueError(f"call {c} ({item['name']}): {'.'.join(map(str, first['loc']))}: {first['msg']}") from None
    return calls
