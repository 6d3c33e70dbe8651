"""The prompt tokens a toolkit costs an agent on every request, and the warning when that passes a model's context.

Counted with the o200k tokenizer on each tool's OpenAI function entry (as ``sim.bench.tool_tokens`` counts a whole
request's ``tools``), summed over tools: a provider's own count differs by a few tokens of framing per tool. A
shared schema (the same object under several tools' ``$defs``: ``worlds.simulated.shared_schemas``) is counted once
and added to each tool that carries it, so a world of hundreds of operations is estimated in a fraction of a second.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sim.core import ToolSpec
from sim.llm.tokens import count_tokens

CONTEXT_TOKENS = 128_000
"""The context of many current models (and more than some accept): a toolkit past it fails every request."""


def _text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def toolkit_tokens(tools: Sequence[ToolSpec]) -> int:
    """Estimated prompt tokens of offering every one of ``tools`` in one request."""
    return _total(tools, count_tokens)


def toolkit_bytes(tools: Sequence[ToolSpec]) -> int:
    """The same request's tools in UTF-8 bytes: never fewer than its tokens (a token is at least one byte), and
    counted without loading the tokenizer (seconds, the first time in a process)."""
    return _total(tools, lambda text: len(text.encode("utf-8")))


def _total(tools: Sequence[ToolSpec], measure: Callable[[str], int]) -> int:
    shared: dict[int, int] = {}
    total = 0
    for tool in tools:
        entry = tool.to_openai()
        parameters = entry["function"]["parameters"]
        defs = parameters.get("$defs") if isinstance(parameters, Mapping) else None
        if isinstance(defs, Mapping):
            entry["function"]["parameters"] = {key: value for key, value in parameters.items() if key != "$defs"}
            for name, schema in defs.items():
                if id(schema) not in shared:
                    shared[id(schema)] = measure(_text(schema))
                total += shared[id(schema)] + measure(_text(name))
        total += measure(_text(entry))
    return total


def toolkit_warning(world: str, tools: Sequence[ToolSpec], limit: int | None = None) -> str | None:
    """A line saying the toolkit passes ``limit`` tokens (``CONTEXT_TOKENS`` by default) and what to do, or None
    when it fits."""
    limit = CONTEXT_TOKENS if limit is None else limit
    if toolkit_bytes(tools) <= limit:
        return None  # fits for certain: most worlds never load the tokenizer for this
    tokens = toolkit_tokens(tools)
    if tokens <= limit:
        return None
    count = f"{len(tools)} tool{'' if len(tools) == 1 else 's'}"
    return (
        f"world {world}: its {count} cost about {tokens:,} prompt tokens per agent request, over the "
        f"{limit:,} of many models' context; offer fewer (squall import openapi --include/--exclude TAG, /PATH "
        "glob or OPERATION_ID) or let the agent find them by search (--stressors search)"
    )
