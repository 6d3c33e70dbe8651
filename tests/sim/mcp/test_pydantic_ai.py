"""pydantic-ai's ``MCPToolset`` against the hub: a ``FunctionModel`` agent sees a toolkit that changes under it."""

from __future__ import annotations

from typing import Any

from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from sim.mcp import open_mcp_hub
from tests.sim.mcp.fakes import FakeRuntime, spec


class Policy:
    """Calls, in order, the first listed tool whose name starts with each wanted prefix; then replies. Notes the
    tool names and results it saw at every step."""

    def __init__(self, *wanted: str) -> None:
        self.wanted = list(wanted)
        self.seen: list[list[str]] = []
        self.returns: list[Any] = []

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        names = [t.name for t in info.function_tools]
        self.seen.append(names)
        self.returns += [p.content for m in messages[-1:] for p in m.parts if isinstance(p, ToolReturnPart)]
        if not self.wanted:
            return ModelResponse(parts=[TextPart("done")])
        prefix = self.wanted.pop(0)
        name = next(n for n in names if n.startswith(prefix))
        return ModelResponse(parts=[ToolCallPart(name, {"x": len(self.seen)})])


async def test_a_pydantic_ai_agent_follows_a_renamed_endpoint_within_a_turn() -> None:
    runtime = FakeRuntime(rename={"act": "act_v2"})
    policy = Policy("act", "act")
    async with open_mcp_hub() as hub, hub.serve(runtime) as url:
        result = await Agent(FunctionModel(policy), toolsets=[MCPToolset(url)]).run("go")
    assert result.output == "done"
    # list_changed on the call's stream dropped the toolset's cache: the next step listed the renamed endpoint.
    assert policy.seen == [["lookup", "act"], ["lookup", "act_v2"], ["lookup", "act_v2"]]
    assert [c.name for c, _ in runtime.calls] == ["act", "act_v2"]
    assert policy.returns == [
        {"echo": "act", "x": 1, "owner": "episode"},
        {"echo": "act_v2", "x": 2, "owner": "episode"},
    ]


def _missing_until_turn_1(runtime: FakeRuntime, turn: int) -> None:
    runtime.turn = turn
    runtime.tools = (spec("lookup", read_only=True), spec("act"))[: turn + 1]


async def test_a_function_missing_in_one_turn_is_listed_when_it_is_back() -> None:
    """The goal changes the toolkit between turns: an agent whose run enters the toolset lists afresh each turn."""
    runtime = FakeRuntime()
    first, second = Policy("lookup"), Policy("act")
    async with open_mcp_hub() as hub:
        _missing_until_turn_1(runtime, 0)
        async with hub.serve(runtime) as url:
            await Agent(FunctionModel(first), toolsets=[MCPToolset(url)]).run("one")
        _missing_until_turn_1(runtime, 1)
        async with hub.serve(runtime) as url:
            await Agent(FunctionModel(second), toolsets=[MCPToolset(url)]).run("two")
    assert first.seen[0] == ["lookup"] and second.seen[0] == ["lookup", "act"]
    assert [c.name for c, _ in runtime.calls] == ["lookup", "act"]


async def test_a_toolset_kept_open_across_turns_needs_cache_tools_off() -> None:
    """An agent that keeps one toolset open for the whole conversation must not cache the list
    (``cache_tools=False``): between turns nothing is said, since the 2026-07-28 protocol sends no unsolicited
    notifications and pydantic-ai opens no listen stream."""
    runtime = FakeRuntime()
    first, second = Policy("lookup"), Policy("act")
    async with open_mcp_hub() as hub:
        _missing_until_turn_1(runtime, 0)
        async with hub.serve(runtime) as url:  # the episode's URL, the same every turn
            pass
        toolset = MCPToolset(url, cache_tools=False)
        async with toolset:
            async with hub.serve(runtime):
                await Agent(FunctionModel(first), toolsets=[toolset]).run("one")
            _missing_until_turn_1(runtime, 1)
            async with hub.serve(runtime):
                await Agent(FunctionModel(second), toolsets=[toolset]).run("two")
    assert first.seen[0] == ["lookup"] and second.seen[0] == ["lookup", "act"]
