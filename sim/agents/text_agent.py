"""Agent under test for models without native tool calling: a text protocol, ReAct or the reference study's tags.

One action per model step. Unparseable steps are fed back to the model (so it can recover) and
recorded as agent faults (so the judges and reports see them). A reply that both calls and says
``<End of Turn>`` runs the call, keeps the turn going and, under the tags prompt (which teaches the marker),
is recorded as ``agent:mixed_call_and_end`` (the rule is in ``tag_protocol``); under ReAct the marker is a
chat template's end token and is dropped silently.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from sim.agents import tag_protocol
from sim.agents.text_parse import Action, FinalAnswer, ParseError, parse_step
from sim.agents.text_prompt import (
    TextProtocol,
    ToolStyle,
    render_observation,
    render_parse_error,
    render_system_prompt,
)
from sim.core import AgentRuntime, ChatMessage, Event, ModelRequest, ToolCall

STOP = ("\nObservation:",)
"""Stop before the model invents its own observation (ReAct; tags stop at ``tag_protocol.STOP``)."""
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


class TextProtocolAgent:
    """Thought / Action / Action Input then Final Answer (react), or <API_CALL> then <End of Turn> (tags);
    parsed tolerantly by ``text_parse``, which reads either protocol."""

    def __init__(
        self,
        name: str,
        model: str,
        max_tokens: int | None = 256,
        temperature: float | None = 0.0,
        tool_style: ToolStyle = "schema",
        protocol: TextProtocol = "react",
    ) -> None:
        self.name = name
        self.model = model
        self._tool_style = tool_style
        self._protocol: TextProtocol = protocol
        self._max_tokens = max_tokens
        self._temperature = temperature

    async def respond(self, history: Sequence[Event], runtime: AgentRuntime) -> str:
        toolset = runtime.current_tools()
        names = [t.name for t in toolset]
        protocol = self._protocol
        system = render_system_prompt(runtime.instructions, toolset, self._tool_style, protocol)
        messages = transcript(history, system, protocol)
        while True:  # the episode's step budget (enforced by runtime.llm) ends a runaway loop
            request = ModelRequest(
                role="agent",
                model=self.model,
                messages=tuple(messages),
                max_tokens=self._max_tokens,
                temperature=self._temperature,
                seed=runtime.seed,
                stop=tag_protocol.STOP if protocol == "tags" else STOP,
            )
            response = await runtime.llm.complete(request)
            text = response.text.strip()
            step = runtime.llm.steps
            messages.append(ChatMessage(role="assistant", content=text or "(empty)"))
            parsed = parse_step(text, names)
            if isinstance(parsed, ParseError) and parsed.code == "unknown_tool":
                parsed = _unlisted_call(text, names, parsed)
            if isinstance(parsed, FinalAnswer):
                return parsed.text
            if isinstance(parsed, Action):
                # Only the tags prompt teaches the marker; under ReAct an <end_of_turn> is a chat template's token.
                mixed = parsed.end_of_turn_ignored and protocol == "tags"
                if mixed:
                    code = f"agent:{tag_protocol.MIXED_CALL_AND_END}"
                    runtime.fault("agent", code, f"{tag_protocol.MIXED_NOTE} | output: {text[:300]}", step)
                call = ToolCall(id="", name=parsed.name, arguments=parsed.arguments)
                result = await runtime.call(call, step=step)
                observation = render_observation(result, protocol=protocol)
                _add_user(messages, f"{tag_protocol.MIXED_NOTE}\n{observation}" if mixed else observation)
                continue
            if not response.truncated:  # a reply cut at the output limit is recorded as such (agent:output_truncated)
                detail = f"{parsed.message} | output: {text[:300]}"
                runtime.fault("agent", f"agent:parse_error:{parsed.code}", detail, step)
            _add_user(messages, render_parse_error(parsed, names, protocol))


def _unlisted_call(text: str, names: list[str], error: ParseError) -> Action | ParseError:
    """A well-formed call to a tool the list does not name goes to the runtime, which refuses it (the agent's
    fault, answered with close matches) unless a stressor takes the name: an endpoint renamed after the docs the
    agent read. Anything less than a well-formed call stays a parse error."""
    name = error.raw.strip().strip("`'\"*").strip()
    if not _IDENTIFIER.fullmatch(name):
        return error
    retry = parse_step(text, [*names, name])
    return retry if isinstance(retry, Action) and retry.name == name else error


def _add_user(messages: list[ChatMessage], text: str) -> None:
    """Merge into a trailing user message: some chat templates reject two user messages in a row."""
    last = messages[-1]
    if last.role == "user":
        messages[-1] = ChatMessage(role="user", content=f"{last.content}\n\n{text}")
    else:
        messages.append(ChatMessage(role="user", content=text))


def transcript(history: Sequence[Event], system_prompt: str, protocol: TextProtocol = "react") -> list[ChatMessage]:
    """Earlier turns as the protocol would have written them; parse failures are left out."""
    messages: list[ChatMessage] = [ChatMessage(role="system", content=system_prompt)]
    for ev in history:
        if ev.kind == "user_message":
            _add_user(messages, ev.content or "")
        elif ev.kind == "tool_call" and ev.call is not None:
            messages.append(ChatMessage(role="assistant", content=_render_call(ev.call, protocol)))
        elif ev.kind == "tool_result" and ev.result is not None:
            _add_user(messages, render_observation(ev.result, protocol=protocol))
        elif ev.kind == "agent_message":
            messages.append(ChatMessage(role="assistant", content=_render_answer(ev.content or "", protocol)))
    return messages


def _render_call(call: ToolCall, protocol: TextProtocol) -> str:
    if protocol == "tags":
        return tag_protocol.render_call(call.name, call.arguments)
    return f"Action: {call.name}\nAction Input: {json.dumps(call.arguments, ensure_ascii=False)}"


def _render_answer(text: str, protocol: TextProtocol) -> str:
    return f"{text} {tag_protocol.END_OF_TURN}" if protocol == "tags" else f"Final Answer: {text}"
