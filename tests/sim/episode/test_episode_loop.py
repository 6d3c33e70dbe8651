"""Episode loop and runtime: concurrent call ids, the working-time deadline, fault categories."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from personas.scripted import ScriptedUser
from sim.core import (
    AgentRuntime,
    CallContext,
    CallNext,
    CallOutcome,
    ChatMessage,
    Event,
    ModelRequest,
    ModelResponse,
    Task,
    ToolCall,
    ToolSpec,
    shared_agent,
)
from sim.episode.env import EpisodeEnv, EpisodeLimits, EpisodeSpec
from sim.episode.loop import run_episode
from sim.llm.gateway import Gateway
from sim.llm.transports.base import Reply, TransportError
from worlds.registry import load_world

PACK = load_world("smart_home")
TASK: Task = PACK.tasks()[0]


class SlowStressor:
    """Suspends inside every call, as a REST world or a latency stressor would."""

    name = "slow"

    def __init__(self) -> None:
        self.contexts: list[CallContext] = []

    def on_task(self, task: Task) -> Task:
        return task

    def on_spec(self, specs: list[ToolSpec], instructions: str) -> tuple[list[ToolSpec], str]:
        return specs, instructions

    def on_tools(self, turn: int, specs: list[ToolSpec]) -> list[ToolSpec]:
        return specs

    async def on_call(self, call: ToolCall, ctx: CallContext, next: CallNext) -> CallOutcome:
        self.contexts.append(ctx)
        await asyncio.sleep(0.01)
        return await next(call)


class ParallelAgent:
    """Makes three calls at once, as a model's parallel tool calls are run."""

    name = "parallel"

    async def respond(self, history: Sequence[Event], runtime: AgentRuntime) -> str:
        calls = [ToolCall(id="x", name="list_rooms") for _ in range(3)]
        await asyncio.gather(*(runtime.call(c, step=1) for c in calls))
        return "ok"


async def episode(
    agent: object, stressors: list[object] | None = None, timeout_s: float = 30.0, gateway: Gateway | None = None
) -> object:
    spec = EpisodeSpec(task=TASK, trial=0, seed=1)
    env = EpisodeEnv(
        PACK,
        shared_agent(agent),  # type: ignore[arg-type]
        ScriptedUser(),
        gateway or Gateway(),
        ("a", "u"),
        tuple(stressors or ()),  # type: ignore[arg-type]
        EpisodeLimits(timeout_s=timeout_s),
    )
    return await run_episode(spec, env)


async def test_concurrent_calls_get_unique_ids_and_contexts() -> None:
    slow = SlowStressor()
    result = await episode(ParallelAgent(), [slow])
    ids = [e.call.id for e in result.events if e.kind == "tool_call"]  # type: ignore[attr-defined]
    assert len(ids) == len(set(ids)) == 3 * len(TASK.goals)
    assert sorted(c.call_index for c in slow.contexts) == list(range(3 * len(TASK.goals)))


class RateLimitedOnce:
    """A transport whose first request is rate limited (Retry-After longer than the episode budget)."""

    def __init__(self, work_s: float) -> None:
        self.work_s = work_s
        self.failed = False

    async def send(self, request: ModelRequest) -> Reply:
        if not self.failed:
            self.failed = True
            raise TransportError("rate_limit", "provider:rate_limited", "slow down", retry_after_s=1.5)
        await asyncio.sleep(self.work_s)
        return Reply(ModelResponse(text="ok"))

    async def aclose(self) -> None:
        return None


class OneRequestAgent:
    name = "one-request"

    async def respond(self, history: Sequence[Event], runtime: AgentRuntime) -> str:
        request = ModelRequest(role="agent", model="scripted", messages=(ChatMessage(role="user", content="hi"),))
        return (await runtime.llm.complete(request)).text


def limited_gateway(work_s: float) -> Gateway:
    gateway = Gateway()
    gateway.register("scripted", RateLimitedOnce(work_s))
    return gateway


async def test_waiting_on_the_provider_does_not_count_against_the_episode_budget() -> None:
    result = await episode(OneRequestAgent(), timeout_s=1.0, gateway=limited_gateway(0.0))
    assert result.termination == "completed"  # type: ignore[attr-defined]
    assert result.usage.waiting_s >= 1.5  # type: ignore[attr-defined]


@pytest.mark.slow
async def test_time_inside_a_model_request_is_not_working_time() -> None:
    result = await episode(OneRequestAgent(), timeout_s=1.0, gateway=limited_gateway(2.0))
    assert result.termination == "completed"  # type: ignore[attr-defined]
    assert result.usage.working_s >= 2.0  # type: ignore[attr-defined]  # the request's own account keeps it


class SlowAgent:
    """Works (not waiting on a provider) past the episode's budget, as a slow world call or harness step would."""

    name = "slow-agent"

    async def respond(self, history: Sequence[Event], runtime: AgentRuntime) -> str:
        await asyncio.sleep(2.0)
        return "late"


async def test_working_time_over_budget_is_a_timeout() -> None:
    result = await episode(SlowAgent(), timeout_s=1.0)
    assert result.termination == "timeout"  # type: ignore[attr-defined]
    assert result.failed  # type: ignore[attr-defined]


class BrokenWorldCall:
    name = "broken"

    def on_task(self, task: Task) -> Task:
        return task

    def on_spec(self, specs: list[ToolSpec], instructions: str) -> tuple[list[ToolSpec], str]:
        return specs, instructions

    def on_tools(self, turn: int, specs: list[ToolSpec]) -> list[ToolSpec]:
        return specs

    async def on_call(self, call: ToolCall, ctx: CallContext, next: CallNext) -> CallOutcome:
        raise TimeoutError("socket timeout inside a world")


async def test_a_timeout_inside_a_world_is_a_harness_error_not_the_budget() -> None:
    result = await episode(ParallelAgent(), [BrokenWorldCall()])
    assert result.termination == "harness_error"  # type: ignore[attr-defined]
    errors = [e for e in result.events if e.kind == "error"]  # type: ignore[attr-defined]
    assert errors[-1].fault == "harness" and "socket timeout" in (errors[-1].content or "")


class BrokenSetup(BrokenWorldCall):
    def on_task(self, task: Task) -> Task:
        raise RuntimeError("bad stressor data")


async def test_a_broken_setup_fails_the_episode_not_the_run() -> None:
    result = await episode(ParallelAgent(), [BrokenSetup()])
    assert result.termination == "harness_error"  # type: ignore[attr-defined]
    assert result.events[0].code == "harness:setup_failed"  # type: ignore[attr-defined]
    assert "bad stressor data" in (result.events[0].content or "")  # type: ignore[attr-defined]


class RenamesAndHides:
    """A renamed lookup (``fetch_devices`` reaches ``list_devices``) and a hidden tool (``set_color``)."""

    name = "renames-and-hides"

    def on_task(self, task: Task) -> Task:
        return task

    def on_spec(self, specs: list[ToolSpec], instructions: str) -> tuple[list[ToolSpec], str]:
        return specs, instructions

    def on_tools(self, turn: int, specs: list[ToolSpec]) -> list[ToolSpec]:
        return [s for s in specs if s.name != "set_color"] if turn == 0 else specs

    async def on_call(self, call: ToolCall, ctx: CallContext, next: CallNext) -> CallOutcome:
        if call.name == "fetch_devices":
            return await next(call.model_copy(update={"name": "list_devices"}))
        return await next(call)


class CallsThree:
    """Every turn: the renamed lookup, the hidden tool, and a name nothing knows; records the tools it was given."""

    name = "calls-three"

    def __init__(self) -> None:
        self.toolsets: list[set[str]] = []

    async def respond(self, history: Sequence[Event], runtime: AgentRuntime) -> str:
        self.toolsets.append({t.name for t in runtime.current_tools()})
        await runtime.call(ToolCall(id="", name="fetch_devices", arguments={}), step=1)
        await runtime.call(ToolCall(id="", name="set_color", arguments={"device_id": "x", "color": "blue"}), step=1)
        await runtime.call(ToolCall(id="", name="open_garage", arguments={}), step=1)
        return "ok"


async def test_toolkits_change_per_turn_and_calls_outside_them_are_refused_unless_a_stressor_takes_them() -> None:
    agent = CallsThree()
    result = await episode(agent, [RenamesAndHides()])
    assert "set_color" not in agent.toolsets[0] and all("set_color" in t for t in agent.toolsets[1:])
    assert result.goal_tools == {0: sorted(agent.toolsets[0], key=[s.name for s in PACK.new_world(0).specs()].index)}  # type: ignore[attr-defined]
    assert result.tools_at(0) == agent.toolsets[0] and result.tools_at(1) == agent.toolsets[1]  # type: ignore[attr-defined]
    events = result.events  # type: ignore[attr-defined]
    # The renamed lookup is recorded as a lookup: read_only comes from the world's tool it reached.
    fetched = [e for e in events if e.kind == "tool_call" and e.call.name == "fetch_devices"]
    assert len(fetched) == len(TASK.goals) and all(e.read_only is True for e in fetched)
    # Hidden in turn 0 and unknown everywhere: refused before the world, as the agent's fault, not recorded as calls.
    refused = [(e.turn, e.content.split(":")[0]) for e in events if e.code == "agent:unknown_tool"]
    assert refused == [(0, "set_color")] + [(t, "open_garage") for t in range(len(TASK.goals))]
    colored = [e for e in events if e.kind == "tool_call" and e.call.name == "set_color"]
    assert colored and all(e.turn > 0 for e in colored)
