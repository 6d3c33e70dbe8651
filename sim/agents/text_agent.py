"""Agent under test for models without native tool calling: a ReAct-style text protocol.

One action per model step. Unparseable steps are fed back to the model (so it can recover) and
recorded as agent faults (so the judges and reports see them).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from sim.agents.text_parse import Action, FinalAnswer, parse_step
from sim.agents.text_prompt import ToolStyle, render_observation, render_parse_error, render_system_prompt
from sim.core import AgentRuntime, ChatMessage, Event, ModelRequest, ToolCall, ToolSpec

STOP = ("\nObservation:",)
"""Stop before the model invents its own observation."""


class TextProtocolAgent:
    """Thought / Action / Action Input, then Final Answer; parsed tolerantly by ``text_parse``."""

    def __init__(
        self,
        name: str,
        model: str,
        max_tokens: int | None = 256,
        temperature: float | None = 0.0,
        tool_style: ToolStyle = "schema",
    ) -> None:
        self.name = name
        self.model = model
        self._tool_style = tool_style
        self._max_tokens = max_tokens
        self._temperature = temperature

    async def respond(
        self, history: Sequence[Event], tools: Sequence[ToolSpec], instructions: str, runtime: AgentRuntime
    ) -> str:
        toolset = runtime.current_tools()
        names = [t.name for t in toolset]
        messages = transcript(history, render_system_prompt(instructions, toolset, self._tool_style))
        while True:  # the episode's step budget (enforced by runtime.llm) ends a runaway loop
            request = ModelRequest(
                role="agent",
                model=self.model,
                messages=tuple(messages),
                max_tokens=self._max_tokens,
                temperature=self._temperature,
                seed=runtime.seed,
                stop=STOP,
            )
            response = await runtime.llm.complete(request)
            text = response.text.strip()
            step = runtime.llm.steps
            messages.append(ChatMessage(role="assistant", content=text or "(empty)"))
            parsed = parse_step(text, names)
            if isinstance(parsed, FinalAnswer):
                return parsed.text
            if isinstance(parsed, Action):
                call = ToolCall(id="", name=parsed.name, arguments=parsed.arguments)
                result = await runtime.call(call, step=step)
                _add_user(messages, render_observation(result))
                continue
            runtime.fault("agent", f"agent:parse_error:{parsed.code}", f"{parsed.message} | output: {text[:300]}", step)
            _add_user(messages, render_parse_error(parsed, names))


def _add_user(messages: list[ChatMessage], text: str) -> None:
    """Merge into a trailing user message: some chat templates reject two user messages in a row."""
    last = messages[-1]
    if last.role == "user":
        messages[-1] = ChatMessage(role="user", content=f"{last.content}\n\n{text}")
    else:
        messages.append(ChatMessage(role="user", content=text))


def transcript(history: Sequence[Event], system_prompt: str) -> list[ChatMessage]:
    """Earlier turns as the protocol would have written them; parse failures are left out."""
    messages: list[ChatMessage] = [ChatMessage(role="system", content=system_prompt)]
    for ev in history:
        if ev.kind == "user_message":
            _add_user(messages, ev.content or "")
        elif ev.kind == "tool_call" and ev.call is not None:
            action = f"Action: {ev.call.name}\nAction Input: {_json(ev.call.arguments)}"
            messages.append(ChatMessage(role="assistant", content=action))
        elif ev.kind == "tool_result" and ev.result is not None:
            _add_user(messages, render_observation(ev.result))
        elif ev.kind == "agent_message":
            messages.append(ChatMessage(role="assistant", content=f"Final Answer: {ev.content or ''}"))
    return messages


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)
