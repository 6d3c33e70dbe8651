"""Agent under test with native tool calling: our own loop over ModelRequests, any provider.

The loop is the whole of what an agent framework would do for one turn — ask the model, run the tool
calls it makes (concurrently, as parallel tool calls mean), feed the results back, until it answers in
text — without a framework's per-step cost: the toolset is encoded once per episode, not per step,
and every request is a value the gateway can pace, cache and account for.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from sim.agents.history import MessageMemo, to_chat_messages, tool_content
from sim.core import AgentRuntime, ChatMessage, Event, ModelRequest, ModelResponse, ToolCall, ToolResult


class NativeToolAgent:
    """One user turn: request, run the calls, repeat until the model replies with text (or the step budget ends)."""

    def __init__(self, name: str, model: str, max_tokens: int | None = None, temperature: float | None = None) -> None:
        self.name = name
        self.model = model
        self._max_tokens = max_tokens
        self._temperature = temperature
        self._memo = MessageMemo()

    async def respond(self, history: Sequence[Event], runtime: AgentRuntime) -> str:
        messages = to_chat_messages(history, runtime.instructions, self._memo)
        while True:  # the episode's step budget (enforced by runtime.llm) ends a runaway loop
            toolset = runtime.current_tools()
            request = ModelRequest(
                role="agent",
                model=self.model,
                messages=tuple(messages),
                tools=toolset,
                max_tokens=self._max_tokens,
                temperature=self._temperature,
                seed=runtime.seed,
            )
            response = await runtime.llm.complete(request)
            if not response.tool_calls:
                return response.text
            step = runtime.llm.steps
            if len(response.tool_calls) == 1:
                outcomes = [await _run(response.tool_calls[0], response, runtime, step)]
            else:
                outcomes = list(await asyncio.gather(*(_run(c, response, runtime, step) for c in response.tool_calls)))
            messages.append(
                ChatMessage(role="assistant", content=response.text, tool_calls=tuple(c for c, _, _ in outcomes))
            )
            for call, text, result in outcomes:
                message = ChatMessage(role="tool", content=text, tool_call_id=call.id, name=call.name)
                messages.append(message)
                if result is not None:
                    self._memo.put_result(result, message)


async def _run(
    call: ToolCall, response: ModelResponse, runtime: AgentRuntime, step: int
) -> tuple[ToolCall, str, ToolResult | None]:
    """Run one call through the runtime; returns the call as recorded (its id), what the model reads back and the
    runtime's result (None for rejected arguments).

    Arguments that are not a JSON object are the agent's fault: recorded, answered with an error the model can
    act on, never executed. Arguments a reply cut at the output limit left unfinished are that cut's doing (the
    gateway records it, ``agent:output_truncated``), not a malformed call: answered, never executed, not charged as
    one. Either way the call keeps the provider's id, as sent back to it. A function not in the toolkit goes to the
    runtime, which refuses it the same way unless a stressor takes the name (an endpoint renamed in a newer API
    version than the docs).
    """
    if call.id in response.invalid_arguments:
        raw = response.invalid_arguments[call.id]
        if response.truncated:
            error = (
                f"Your reply was cut at the output limit before the arguments of {call.name} were complete: "
                "nothing was called."
            )
        else:
            runtime.fault("agent", "agent:invalid_arguments", f"{call.name}: {raw[:300]}", step=step)
            error = f"Arguments for {call.name} must be a JSON object; got: {raw[:200]}"
        return call, tool_content({"error": error}), None
    result = await runtime.call(call, step=step)
    kept = call if result.call_id == call.id else call.model_copy(update={"id": result.call_id})
    return kept, tool_content(result.content), result
