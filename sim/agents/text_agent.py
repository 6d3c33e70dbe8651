"""Agent under test for models without native tool calling: a ReAct-style text protocol.

One action per model step. Unparseable steps are fed back to the model (so it can recover) and
recorded as agent faults (so the judges and reports see them).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    UserPromptPart,
)
from pydantic_ai.models import Model, ModelRequestParameters

from sim.agents.text_parse import Action, FinalAnswer, parse_step
from sim.agents.text_prompt import ToolStyle, render_observation, render_parse_error, render_system_prompt
from sim.core import AgentRuntime, Event, ToolCall, ToolSpec
from sim.llm.models import GatewayModel, settings


class TextProtocolAgent:
    """Thought / Action / Action Input, then Final Answer; parsed tolerantly by ``text_parse``."""

    def __init__(
        self,
        name: str,
        model: Model,
        endpoint: str,
        max_tokens: int | None = 256,
        temperature: float | None = 0.0,
        tool_style: ToolStyle = "schema",
    ) -> None:
        self.name = name
        self._tool_style = tool_style
        self._model = model
        self._endpoint = endpoint
        # Stop before the model invents its own observation.
        self._settings = settings(max_tokens, temperature, {"stop_sequences": ["\nObservation:"]})

    async def respond(
        self, history: Sequence[Event], tools: Sequence[ToolSpec], instructions: str, runtime: AgentRuntime
    ) -> str:
        model = GatewayModel(self._model, self._endpoint, runtime.llm)
        names = [t.name for t in tools]
        messages = transcript(history, render_system_prompt(instructions, tools, self._tool_style))
        params = ModelRequestParameters()
        while True:  # the episode's step budget (enforced by runtime.llm) ends a runaway loop
            response = await model.request(messages, self._settings, params)
            text = (response.text or "").strip()
            step = runtime.llm.steps
            messages.append(ModelResponse(parts=[TextPart(text or "(empty)")]))
            parsed = parse_step(text, names)
            if isinstance(parsed, FinalAnswer):
                return parsed.text
            if isinstance(parsed, Action):
                call = ToolCall(id="", name=parsed.name, arguments=parsed.arguments)
                result = await runtime.call(call, step=step)
                messages.append(ModelRequest(parts=[UserPromptPart(render_observation(result))]))
                continue
            runtime.fault("agent", f"agent:parse_error:{parsed.code}", f"{parsed.message} | output: {text[:300]}", step)
            messages.append(ModelRequest(parts=[UserPromptPart(render_parse_error(parsed, names))]))


def transcript(history: Sequence[Event], system_prompt: str) -> list[ModelMessage]:
    """Earlier turns as the protocol would have written them; parse failures are left out."""
    messages: list[ModelMessage] = [ModelRequest(parts=[SystemPromptPart(system_prompt)])]

    def user(text: str) -> None:
        last = messages[-1]
        if isinstance(last, ModelRequest):  # merge: some chat templates reject two user messages in a row
            messages[-1] = ModelRequest(parts=[*last.parts, UserPromptPart(text)])
        else:
            messages.append(ModelRequest(parts=[UserPromptPart(text)]))

    for ev in history:
        if ev.kind == "user_message":
            user(ev.content or "")
        elif ev.kind == "tool_call" and ev.call is not None:
            action = f"Action: {ev.call.name}\nAction Input: {_json(ev.call.arguments)}"
            messages.append(ModelResponse(parts=[TextPart(action)]))
        elif ev.kind == "tool_result" and ev.result is not None:
            user(render_observation(ev.result))
        elif ev.kind == "agent_message":
            messages.append(ModelResponse(parts=[TextPart(f"Final Answer: {ev.content or ''}")]))
    return messages


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)
