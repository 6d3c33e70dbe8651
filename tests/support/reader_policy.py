"""One gold-reading policy, written once, run as a model behind two doors: squall's native agent over the mock
OpenAI-compatible endpoint (``mock_policy``), and a pydantic-ai ``Agent`` whose tools are an ``MCPToolset`` on the
episode's MCP URL, as an outside agent (``reader_over_mcp``, for ``python:`` and the ``http:`` reference service).

The policy replays the goal's gold like the oracle, but as a model must: it calls only tools it is shown now, one
call per model step, and it reads what comes back. A gold function not listed is looked up with ``get_info`` when a
tool search offers it; one a drift renamed is called by its documented name first, whose 410 makes the new name
listed (``SchemaDrift.on_tools``); a goal that must be declined is declined. pydantic-ai refuses a tool it was not
shown ("Unknown tool name"), so every call the outside agent gets through proves the name came through ``tools/list``.

Both doors are stateless between steps: the next call is derived from the calls of the turn so far (``next_move``
replays the plan against them). The gold comes over a side channel: ``OPENINGS`` maps an episode's first user
message to its ``EpisodeGold`` (filled by ``feeding_openings``), since a model sees only messages.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

import sim.run.session as run_session
from sim.agents.outside.protocol import AgentReply, AgentRequest
from sim.core import AgentFactory, EpisodeGold, Event, GoldCall
from sim.mockllm.policies import Message, Reply, WireToolCall, message_text
from worlds.stressors.types.search import INFO_TOOL

OPENINGS: dict[str, EpisodeGold] = {}
"""The side channel: an episode's first user message -> its gold (tests keep openings unique)."""


@dataclass(frozen=True)
class Step:
    """A call the turn made, and whether it failed."""

    name: str
    arguments: dict[str, Any]
    failed: bool


Move = tuple[str, dict[str, Any]] | str
"""The next tool call (name, arguments), or the reply to the user."""


def next_move(gold: EpisodeGold, listed: set[str], steps: list[Step]) -> Move:
    """The policy: the next call of the turn, given its calls so far (replayed against the plan), or the reply."""
    goal = gold.current()
    if goal.outcome == "decline":
        return goal.reference_response or "Sorry, I can't do that right now."
    documented = gold.current_unstressed().paths()
    made = iter(steps)
    pending: list[Step] = []

    def peek() -> Step | None:
        if not pending:
            following = next(made, None)
            if following is None:
                return None
            pending.append(following)
        return pending[0]

    failed: set[str] = set()
    paths = list(enumerate(goal.paths()))
    while paths:
        paths.sort(key=lambda p: any(c.name in failed for c in p[1]))  # stable: gold order among the rest
        index, path = paths.pop(0)
        for position, call in enumerate(path):
            step = peek()
            if step is not None and step.name == INFO_TOOL and step.arguments == {"tool_name": call.name}:
                pending.pop()  # looked up already
            elif step is None and call.name not in listed and INFO_TOOL in listed:
                return INFO_TOOL, {"tool_name": call.name}
            old = _documented_name(documented, index, position, call)
            if old != call.name:
                step = peek()
                if step is not None and step.name == old:
                    pending.pop()  # its 410 was read
                elif step is None and call.name not in listed:
                    return old, dict(call.arguments)
            step = peek()
            if step is None:
                return call.name, dict(call.arguments)
            pending.pop()
            if step.failed:
                failed.add(call.name)
                break
        else:
            return goal.gold_answer or "Done."
    return goal.reference_response or "Sorry, I could not complete that: the service is unavailable."


def _documented_name(documented: list[list[GoldCall]], index: int, position: int, call: GoldCall) -> str:
    """The name the docs give the gold call at this place: the same call before a drift renamed it."""
    if (
        index < len(documented)
        and position < len(path := documented[index])
        and path[position].arguments == call.arguments
    ):
        return path[position].name
    return call.name


def failed_content(text: str) -> bool:
    """A tool result the way squall words a failure (``sim.core.failure``): a JSON object with error and code."""
    try:
        value = json.loads(text)
    except ValueError:
        return False
    return isinstance(value, dict) and "error" in value and "code" in value


# the native door: a mock-server policy over OpenAI chat messages ---------------------------------------------------


class MockReader:
    """``sim.mockllm`` policy: the reader, from the request's messages and tools."""

    def respond(self, messages: list[Message], tools: list[dict[str, Any]]) -> Reply:
        opening = next(message_text(m) for m in messages if m.get("role") == "user")
        last_user = max(i for i, m in enumerate(messages) if m.get("role") == "user")
        names: dict[str, tuple[str, dict[str, Any]]] = {}
        steps: list[Step] = []
        for m in messages[last_user + 1 :]:
            for c in m.get("tool_calls") or []:
                names[c["id"]] = (c["function"]["name"], json.loads(c["function"]["arguments"]))
            if m.get("role") == "tool":
                name, arguments = names[m["tool_call_id"]]
                steps.append(Step(name, arguments, failed_content(message_text(m))))
        listed = {t["function"]["name"] for t in tools}
        move = next_move(OPENINGS[opening], listed, steps)
        if isinstance(move, str):
            return Reply(text=move)
        call = WireToolCall(id=f"call_{len(steps) + 1}", name=move[0], arguments=json.dumps(move[1]))
        return Reply(text=None, tool_calls=[call])


# the outside door: a pydantic-ai Agent with an MCPToolset ------------------------------------------------------------


def _model_function(opening: str) -> Any:
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        calls: dict[str, ToolCallPart] = {}
        steps: list[Step] = []
        for message in messages:
            for part in message.parts:
                if isinstance(part, ToolCallPart):
                    calls[part.tool_call_id] = part
                elif isinstance(part, ToolReturnPart):
                    call = calls[part.tool_call_id]
                    steps.append(Step(call.tool_name, call.args_as_dict(), part.outcome == "failed"))
        move = next_move(OPENINGS[opening], {t.name for t in info.function_tools}, steps)
        if isinstance(move, str):
            return ModelResponse(parts=[TextPart(move)])
        return ModelResponse(parts=[ToolCallPart(move[0], move[1])])

    return respond


async def reader_over_mcp(request: AgentRequest) -> AgentReply:
    """The reader as a pydantic-ai agent outside squall: one ``Agent.run`` per turn, tools over MCP only. A tool
    error comes back as a failed result (``tool_error_behavior='failed'``), as the native agent reads it."""
    toolset = MCPToolset(request.mcp_url, tool_error_behavior="failed", verify=False)
    model = FunctionModel(_model_function(request.messages[0].content))
    agent = Agent(model, toolsets=[toolset], instructions=request.instructions)
    result = await agent.run(request.messages[-1].content)
    usage = result.usage
    return AgentReply(
        reply=result.output,
        usage={"requests": usage.requests, "input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens},
    )


# the side channel -----------------------------------------------------------------------------------------------


class _Fed:
    """An agent whose gold is filed under the episode's opening message before it answers."""

    def __init__(self, agent: Any, gold: EpisodeGold) -> None:
        self._agent, self._gold = agent, gold
        self.name = agent.name

    async def respond(self, history: Any, runtime: Any) -> str:
        opening = next(ev.content or "" for ev in history if isinstance(ev, Event) and ev.kind == "user_message")
        known = OPENINGS.setdefault(opening, self._gold)
        assert known is self._gold or known.task.id == self._gold.task.id, f"two tasks open with {opening!r}"
        OPENINGS[opening] = self._gold
        return str(await self._agent.respond(history, runtime))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._agent, name)


@contextmanager
def feeding_openings(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Wrap every run's agent factory so each episode's gold is filed under its opening message."""
    real = run_session.open_agent_factory

    @asynccontextmanager
    async def wrapped(*args: Any, **kwargs: Any) -> AsyncIterator[AgentFactory]:
        async with real(*args, **kwargs) as factory:
            yield lambda gold: _Fed(factory(gold), gold)

    monkeypatch.setattr(run_session, "open_agent_factory", wrapped)
    OPENINGS.clear()
    try:
        yield
    finally:
        OPENINGS.clear()
