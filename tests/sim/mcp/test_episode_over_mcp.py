"""A real episode (smart_home, the drift stressor that moves ``activate_scene`` to an endpoint the docs never show)
played by an agent that reaches its runtime only through the hub: the trace is the one an in-process agent making
the same calls leaves."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mcp import Client

from personas.scripted import ScriptedUser
from sim.core import AgentRuntime, Event, ToolCall, shared_agent
from sim.episode.env import EpisodeEnv, EpisodeLimits, EpisodeSpec
from sim.episode.loop import run_episode
from sim.llm.gateway import Gateway
from sim.mcp import McpHub, open_mcp_hub
from worlds.registry import load_world
from worlds.stressors.catalog import build_stressors

PACK = load_world("smart_home")
TASK = PACK.tasks()[0]
CALLS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("list_rooms", {}),
    ("activate_scene", {"scene_id": "movie_night"}),  # 410 Gone: moved to activate_scene_v2
    ("activate_scene_v2", {"scene_id": "movie_night"}),  # never listed, yet the stressor takes it
    ("invented_tool", {}),  # the agent's fault, as in-process
)


class InProcess:
    name = "in-process"

    async def respond(self, history: Sequence[Event], runtime: AgentRuntime) -> str:
        for step, (name, arguments) in enumerate(CALLS, start=1):
            await runtime.call(ToolCall(id="", name=name, arguments=arguments), step)
        return "done"


class OverMcp:
    name = "over-mcp"

    def __init__(self, hub: McpHub) -> None:
        self.hub = hub
        self.listed: list[list[str]] = []
        self.urls: set[str] = set()

    async def respond(self, history: Sequence[Event], runtime: AgentRuntime) -> str:
        async with self.hub.serve(runtime, max_steps=10) as url, Client(url) as client:
            self.urls.add(url)
            self.listed.append([t.name for t in (await client.list_tools()).tools])
            assert self.listed[-1] == [t.name for t in runtime.current_tools()]
            for name, arguments in CALLS:
                await client.call_tool(name, arguments)
        return "done"


async def _play(agent: object) -> Any:
    stressors = build_stressors(["drift.scene_v2"], 1, [s.name for s in PACK.tool_specs()])
    env = EpisodeEnv(
        PACK,
        shared_agent(agent),  # type: ignore[arg-type]
        ScriptedUser(),
        Gateway(),
        ("a", "u"),
        tuple(stressors),
        EpisodeLimits(timeout_s=60),
    )
    return await run_episode(EpisodeSpec(task=TASK, trial=0, seed=1), env)


def _trace(result: Any) -> list[dict[str, Any]]:
    return [e.model_dump(exclude={"t"}) for e in result.events]


async def test_an_episode_over_mcp_leaves_the_trace_of_the_same_calls_made_in_process() -> None:
    inside = await _play(InProcess())
    async with open_mcp_hub() as hub:
        agent = OverMcp(hub)
        outside = await _play(agent)
    assert len(agent.urls) == 1 and len(agent.listed) == len(TASK.goals)
    assert "activate_scene_v2" not in agent.listed[0]
    assert _trace(outside) == _trace(inside)
    events = outside.events
    assert any(e.scenarios for e in events if e.kind == "tool_result")  # the drift fired over MCP
    assert [e.code for e in events if e.kind == "error"] == ["agent:unknown_tool"] * len(TASK.goals)
    assert outside.termination == inside.termination
