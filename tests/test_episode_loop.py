"""Episode loop and runtime: concurrent call ids, the pausable deadline, fault categories."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from pydantic_ai.exceptions import ModelRateLimitError

from personas.scripted import ScriptedUser
from sim.core import AgentRuntime, CallContext, CallNext, Event, Task, ToolCall, ToolResult, ToolSpec
from sim.episode import EpisodeLimits, EpisodeSpec, run_episode
from sim.llm.gateway import Gateway
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

    async def on_call(self, call: ToolCall, ctx: CallContext, next: CallNext) -> ToolResult:
        self.contexts.append(ctx)
        await asyncio.sleep(0.01)
        return await next(call)


class ParallelAgent:
    """Makes three calls at once, as a model's parallel tool calls are run."""

    name = "parallel"

    async def respond(
        self, history: Sequence[Event], tools: Sequence[ToolSpec], instructions: str, runtime: AgentRuntime
    ) -> str:
        calls = [ToolCall(id="x", name="list_rooms") for _ in range(3)]
        await asyncio.gather(*(runtime.call(c, step=1) for c in calls))
        return "ok"


async def episode(agent: object, stressors: list[object] | None = None, timeout_s: float = 30.0) -> object:
    spec = EpisodeSpec(task=TASK, trial=0, seed=1)
    return await run_episode(
        spec,
        PACK,
        agent,
        ScriptedUser(),
        stressors or [],
        Gateway(),  # type: ignore[arg-type]
        EpisodeLimits(timeout_s=timeout_s),
        ("a", "u"),
    )


async def test_concurrent_calls_get_unique_ids_and_contexts() -> None:
    slow = SlowStressor()
    result = await episode(ParallelAgent(), [slow])
    ids = [e.call.id for e in result.events if e.kind == "tool_call"]  # type: ignore[attr-defined]
    assert len(ids) == len(set(ids)) == 3 * len(TASK.turns)
    assert sorted(c.call_index for c in slow.contexts) == list(range(3 * len(TASK.turns)))


class RateLimitedAgent:
    """One model request that is rate limited once (Retry-After longer than the episode budget)."""

    name = "limited"

    def __init__(self, work_s: float) -> None:
        self.work_s = work_s
        self.failed = False

    async def respond(
        self, history: Sequence[Event], tools: Sequence[ToolSpec], instructions: str, runtime: AgentRuntime
    ) -> str:
        async def request() -> str:
            if not self.failed:
                self.failed = True
                raise ModelRateLimitError("m", "slow down", retry_after=1.5)
            await asyncio.sleep(self.work_s)
            return "ok"

        return await runtime.llm.run("ep", request)


async def test_waiting_on_the_provider_does_not_count_against_the_episode_budget() -> None:
    result = await episode(RateLimitedAgent(work_s=0.0), timeout_s=1.0)
    assert result.termination == "completed"  # type: ignore[attr-defined]
    assert result.usage.waiting_s >= 1.5  # type: ignore[attr-defined]


async def test_working_time_over_budget_is_a_timeout() -> None:
    result = await episode(RateLimitedAgent(work_s=2.0), timeout_s=1.0)
    assert result.termination == "timeout"  # type: ignore[attr-defined]
    assert result.failed  # type: ignore[attr-defined]


class BrokenWorldCall:
    name = "broken"

    def on_task(self, task: Task) -> Task:
        return task

    def on_spec(self, specs: list[ToolSpec], instructions: str) -> tuple[list[ToolSpec], str]:
        return specs, instructions

    async def on_call(self, call: ToolCall, ctx: CallContext, next: CallNext) -> ToolResult:
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
