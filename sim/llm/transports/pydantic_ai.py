"""Every provider that is not OpenAI-compatible, through pydantic-ai's model layer (not its agent graph).

pydantic-ai is how squall reaches Anthropic, Gemini, Bedrock, Groq... and its FunctionModel/TestModel
script models in tests. A ModelRequest is translated to its messages and tool definitions, one
``Model.request`` is made (vendor SDK retries off), and the answer is translated back.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from sim.core import ChatMessage, ModelRequest, ModelResponse, ToolCall
from sim.core.call_ids import invented_call_id
from sim.core.frozen import thaw  # pydantic-ai's schema transformers deep-copy, then edit, the schema
from sim.core.model_io import kept_reasoning
from sim.llm.errors import classify
from sim.llm.transports.base import Reply, TransportError

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage
    from pydantic_ai.models import Model

_CONTEXT_MARKERS = (
    "context_length_exceeded",
    "maximum context length",
    "context length",
    "prompt is too long",
    "context size",
)


class PydanticAITransport:
    def __init__(self, model: Model) -> None:
        self._model = model

    async def send(self, request: ModelRequest) -> Reply:
        from pydantic_ai.models import ModelRequestParameters
        from pydantic_ai.tools import ToolDefinition

        params = ModelRequestParameters(
            function_tools=[
                ToolDefinition(name=t.name, description=t.description, parameters_json_schema=thaw(t.parameters))
                for t in request.tools
            ],
            allow_text_output=True,
        )
        try:
            answer = await self._model.request(_messages(request.messages), _settings(request), params)
        except Exception as exc:
            error = _classified(exc)
            if error is None:
                raise  # not a provider fault (e.g. a content filter, a bug): the caller sees it as it is
            try:
                raise error from exc
            finally:
                del error  # kept in this frame, which its traceback holds, it would tie the episode into a cycle
        return Reply(_response(answer, request))

    async def aclose(self) -> None:
        return None


def _settings(request: ModelRequest) -> Any:
    settings: dict[str, Any] = {"max_retries": 0}  # vendor SDK retries off: the gateway retries
    if request.max_tokens is not None:
        settings["max_tokens"] = request.max_tokens
    if request.temperature is not None:
        settings["temperature"] = request.temperature
    if request.seed is not None:
        settings["seed"] = request.seed
    if request.stop:
        settings["stop_sequences"] = list(request.stop)
    return settings


def _messages(messages: tuple[ChatMessage, ...]) -> list[ModelMessage]:
    from pydantic_ai import messages as pm

    out: list[ModelMessage] = []
    pending: list[pm.ModelRequestPart] = []

    def flush() -> None:
        if pending:
            out.append(pm.ModelRequest(parts=list(pending)))
            pending.clear()

    for m in messages:
        if m.role == "system":
            pending.append(pm.SystemPromptPart(m.content))
        elif m.role == "user":
            pending.append(pm.UserPromptPart(m.content))
        elif m.role == "tool":
            pending.append(pm.ToolReturnPart(m.name or "", _content(m.content), tool_call_id=m.tool_call_id or ""))
        else:
            flush()
            parts: list[pm.ModelResponsePart] = [pm.TextPart(m.content)] if m.content or not m.tool_calls else []
            parts += [pm.ToolCallPart(c.name, dict(c.arguments), tool_call_id=c.id) for c in m.tool_calls]
            out.append(pm.ModelResponse(parts=parts))
    flush()
    return out


def _content(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def _response(answer: Any, request: ModelRequest) -> ModelResponse:
    """The answer as squall reads it: pydantic-ai's finish reason ('length' for a reply cut at the output limit),
    its thinking parts as the reasoning text, its usage details (cache reads, reasoning tokens) where reported."""
    from pydantic_ai import messages as pm

    texts: list[str] = []
    thoughts: list[str] = []
    calls: list[ToolCall] = []
    invalid: dict[str, str] = {}
    earlier = sum(len(m.tool_calls) for m in request.messages)
    for index, part in enumerate(answer.parts):
        if isinstance(part, pm.TextPart):
            texts.append(part.content)
        elif isinstance(part, pm.ThinkingPart):
            thoughts.append(part.content)
        elif isinstance(part, pm.ToolCallPart):
            call_id = part.tool_call_id or invented_call_id(earlier + index)
            try:
                arguments = part.args_as_dict()
            except ValueError:
                arguments = None
            if not isinstance(arguments, dict):
                invalid[call_id] = part.args if isinstance(part.args, str) else json.dumps(part.args)
                arguments = {}
            calls.append(ToolCall(id=call_id, name=part.tool_name, arguments=arguments))
    try:
        cost = float(answer.cost().total_price)
    except Exception:  # unpriced models have no price
        cost = 0.0
    usage = answer.usage
    reasoning_tokens = usage.output_reasoning_tokens or int((usage.details or {}).get("reasoning_tokens", 0) or 0)
    return ModelResponse(
        text="".join(texts),
        tool_calls=tuple(calls),
        invalid_arguments=invalid,
        finish_reason=answer.finish_reason,
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cost=cost,
        model=answer.model_name,
        cached_input_tokens=usage.cache_read_tokens,
        reasoning_tokens=reasoning_tokens,
        reasoning=kept_reasoning("".join(thoughts)),
        output_limit=request.max_tokens,
    )


def _classified(exc: Exception) -> TransportError | None:
    kind, code, retry_after = classify(exc)
    if kind == "passthrough":
        return None
    headers = {k.lower(): v for k, v in (getattr(exc, "headers", None) or {}).items()}
    status = getattr(exc, "status_code", None)
    body = str(getattr(exc, "body", "") or exc).lower()
    if status == 400 and any(marker in body for marker in _CONTEXT_MARKERS):
        return TransportError("context_length", "agent:context_length", str(exc)[:500], None, headers)
    if code == "provider:malformed_response":
        return TransportError("malformed", code, f"{type(exc).__name__}: {exc}"[:500], None, headers)
    return TransportError(kind, code, f"{type(exc).__name__}: {exc}"[:500], retry_after, headers)
