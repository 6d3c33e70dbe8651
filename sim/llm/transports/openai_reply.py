"""A Chat Completions answer read into a ``ModelResponse``, in the shapes OpenAI-compatible providers really send.

What varies between providers, and how each is read (tests/sim/llm/test_provider_shapes.py replays their documented
shapes):

- the reply's text: ``content`` a string, null, absent, or a list of parts (Mistral's reasoning models send
  ``[{"type": "thinking", ...}, {"type": "text", ...}]``); a refusal (OpenAI's ``refusal``) with no content is the
  reply's text;
- reasoning text: ``reasoning_content`` (DeepSeek, vLLM, llama.cpp) or ``reasoning`` (vLLM, Ollama, Groq), or
  Mistral's thinking parts, kept size-bounded (``sim.core.model_io.kept_reasoning``);
- tool-call ids: kept verbatim; a call sent without one gets an invented id (``sim.core.call_ids``) numbered after
  the calls already in the conversation, so it is unique in what the provider is shown;
- token details: cached input from ``prompt_tokens_details.cached_tokens`` (OpenAI, Azure, Groq, vLLM...),
  ``prompt_cache_hit_tokens`` (DeepSeek) or ``cache_read_input_tokens`` (Anthropic-compatible), each counted within
  ``prompt_tokens``; reasoning tokens from ``completion_tokens_details.reasoning_tokens``, within
  ``completion_tokens``.

The common answer (a string or null content, ids given) takes the short path: no part of it is looked at twice and
no value is validated again (``sim.core.trusted``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from sim.core import ModelRequest, ModelResponse, ToolCall
from sim.core.call_ids import invented_call_id
from sim.core.model_io import kept_reasoning
from sim.core.trusted import trusted

Price = Callable[[int, int, int], float]
"""(input tokens, output tokens, cached input tokens) -> USD."""

_decode = json.JSONDecoder().decode


def loads(raw: bytes) -> Any:
    """``json.loads(raw)``: UTF-8 (what every endpoint sends) decoded directly; anything else the way json does."""
    if raw[:1] == b"{" and raw[1:2] != b"\x00":  # json.detect_encoding's answer for such bytes: UTF-8
        return _decode(raw.decode("utf-8", "surrogatepass"))
    return json.loads(raw)


def read_reply(raw: bytes, request: ModelRequest, output_limit: int | None, price: Price) -> ModelResponse:
    """The answer's value. Raises ValueError, KeyError, IndexError, TypeError, AttributeError or OverflowError
    where validation would refuse it (the caller's malformed response)."""
    data = loads(raw)
    choice = data["choices"][0]
    message = choice["message"]
    raw_calls = message.get("tool_calls") or []
    calls, invalid = tool_calls(raw_calls, request) if raw_calls else ((), {})
    usage = data.get("usage") or {}
    input_tokens = int(usage.get("prompt_tokens") or 0)
    output_tokens = int(usage.get("completion_tokens") or 0)
    cached, reasoning_tokens = token_details(usage)
    content = message.get("content")
    text, thinking = (content, "") if type(content) is str else content_text(content)
    if not text:
        refusal = message.get("refusal")
        if isinstance(refusal, str):
            text = refusal
    reasoning = reasoning_text(message) or thinking
    finish_reason, model = choice.get("finish_reason"), data.get("model")
    # What ModelResponse's validation would refuse, refused here: the value is then built unvalidated, every field
    # already of its type.
    if not _optional_str(finish_reason) or not _optional_str(model):
        raise TypeError("finish_reason and model must be strings")
    if input_tokens < 0 or output_tokens < 0 or cached < 0 or reasoning_tokens < 0:
        raise ValueError("negative token counts")
    cost = price(input_tokens, output_tokens, cached)
    if not cost >= 0:
        raise ValueError("negative cost")
    return trusted(
        ModelResponse,
        {"text": text, "tool_calls": calls, "finish_reason": finish_reason, "input_tokens": input_tokens,
         "output_tokens": output_tokens, "cost": float(cost), "model": model, "cached": False,
         "invalid_arguments": invalid, "cached_input_tokens": cached, "reasoning_tokens": reasoning_tokens,
         "reasoning": kept_reasoning(reasoning) if reasoning else "", "output_limit": output_limit},
        RESPONSE_SET,
    )  # fmt: skip


def content_text(content: object) -> tuple[str, str]:
    """(text, reasoning) of a ``content`` that is not a string: null or absent is no text; a list of parts is its
    text parts joined, and its thinking parts (Mistral) the reasoning. Any other value with content is refused."""
    if isinstance(content, list):
        texts: list[str] = []
        thoughts: list[str] = []
        for part in content:
            kind = part["type"]  # a part that is not an object: refused
            if kind == "text":
                texts.append(_string(part.get("text")))
            elif kind == "thinking":
                thinking = part.get("thinking")
                chunks = thinking if isinstance(thinking, list) else [{"text": thinking}]
                thoughts += (_string(c.get("text")) for c in chunks if isinstance(c, dict))
        return "".join(texts), "".join(thoughts)
    if content:
        raise TypeError("content must be a string, null or a list of parts")
    return "", ""


def reasoning_text(message: dict[str, Any]) -> str:
    """The message's reasoning text (``reasoning_content`` or ``reasoning``); a value that is not text is ignored:
    reasoning never makes an answer unusable."""
    value = message.get("reasoning_content") or message.get("reasoning")
    return value if isinstance(value, str) else ""


def token_details(usage: dict[str, Any]) -> tuple[int, int]:
    """(cached input tokens, reasoning tokens) of a usage object, under each provider's name for them; 0 if none."""
    prompt = usage.get("prompt_tokens_details")
    cached = prompt.get("cached_tokens") if isinstance(prompt, dict) else None
    if cached is None:
        cached = usage.get("prompt_cache_hit_tokens")  # DeepSeek
    if cached is None:
        cached = usage.get("cache_read_input_tokens")  # Anthropic-compatible
    completion = usage.get("completion_tokens_details")
    reasoning = completion.get("reasoning_tokens") if isinstance(completion, dict) else None
    return int(cached or 0), int(reasoning or 0)


def tool_calls(raw_calls: list[dict[str, Any]], request: ModelRequest) -> tuple[tuple[ToolCall, ...], dict[str, str]]:
    """The calls, each with the provider's id verbatim (one it left out invented), and the raw text of those whose
    arguments are not a JSON object, by id."""
    calls: list[ToolCall] = []
    invalid: dict[str, str] = {}
    earlier: int | None = None  # calls already in the conversation: counted only when an id must be invented
    for index, raw in enumerate(raw_calls):
        function = raw["function"]
        given = raw.get("id")
        if given:
            call_id = given if type(given) is str else str(given)
        else:
            if earlier is None:
                earlier = sum(len(m.tool_calls) for m in request.messages)
            call_id = invented_call_id(earlier + index)
        text = function.get("arguments")
        try:
            arguments = json.loads(text) if isinstance(text, str) else text if text is not None else {}
        except ValueError:
            arguments = None
        if not isinstance(arguments, dict):
            invalid[call_id] = text if isinstance(text, str) else json.dumps(text)
            arguments = {}
        name = str(function.get("name") or "")
        calls.append(trusted(ToolCall, {"id": call_id, "name": name, "arguments": arguments}))  # typed above
    return tuple(calls), invalid


def _string(value: object) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    raise TypeError("a text part must be a string")


def _optional_str(value: object) -> bool:
    return value is None or isinstance(value, str)


RESPONSE_SET = (
    "text", "tool_calls", "invalid_arguments", "finish_reason", "input_tokens", "output_tokens", "cost", "model",
    "cached_input_tokens", "reasoning_tokens", "reasoning", "output_limit",
)  # fmt: skip
"""The fields the response is built with (``model_fields_set``), as when it was validated from them."""
