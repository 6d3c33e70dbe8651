"""The agent's only way to touch the world: stressors, the world, and the event record."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from sim.core import CallContext, CallNext, Event, FaultKind, Stressor, Task, ToolCall, ToolResult, ToolSpec, World
from sim.llm.errors import StepLimitReached
from sim.llm.gateway import EpisodeLLM

Dispatch = Callable[[ToolCall, CallContext], Awaitable[ToolResult]]


def chain(stressors: Sequence[Stressor], world: World) -> Dispatch:
    """Compose on_call hooks: the first stressor sees the agent's call first, the world sees it last.

    The context is bound per call (not read from shared state), so concurrent calls stay apart.
    """

    async def dispatch(call: ToolCall, ctx: CallContext) -> ToolResult:
        def layer(i: int) -> CallNext:
            async def run(c: ToolCall) -> ToolResult:
                if i == len(stressors):
                    ctx.world_result = await world.call(c)
                    return ctx.world_result
                return await stressors[i].on_call(c, ctx, layer(i + 1))

            return run

        return await layer(0)(call)

    return dispatch


class EpisodeRuntime:
    """Implements AgentRuntime for one episode; the episode loop moves it from turn to turn."""

    def __init__(
        self,
        world: World,
        stressors: Sequence[Stressor],
        specs: Sequence[ToolSpec],
        task: Task,
        llm: EpisodeLLM,
        record: Callable[[Event], None],
        clock: Callable[[], float],
        max_calls_per_turn: int,
        seed: int = 0,
        unstressed_task: Task | None = None,
    ) -> None:
        self.task = task
        self.unstressed_task = unstressed_task or task
        self.llm = llm
        self.seed = seed
        self.turn = 0
        self._tools = tuple(specs)
        self._record = record
        self._clock = clock
        self._max_calls = max_calls_per_turn
        self._read_only = {s.name: s.read_only for s in specs}
        self._calls_in_turn = 0
        self._call_index = 0
        self._dispatch = chain(stressors, world)

    def current_tools(self) -> tuple[ToolSpec, ...]:
        return self._tools

    def start_turn(self, turn: int) -> None:
        self.turn = turn
        self._calls_in_turn = 0
        self.llm.start_turn(turn)

    async def call(self, call: ToolCall, step: int) -> ToolResult:
        if self._calls_in_turn >= self._max_calls:
            raise StepLimitReached(f"more than {self._max_calls} tool calls in turn {self.turn}")
        # Ids are assigned here, before any await (calls of one step run concurrently), so traces are
        # deterministic and unique whatever the model sent.
        index = self._call_index
        self._call_index += 1
        self._calls_in_turn += 1
        call = call.model_copy(update={"id": f"call_{self.turn}_{index}"})
        self._record(
            Event(
                kind="tool_call",
                turn=self.turn,
                step=step,
                t=self._clock(),
                call=call,
                read_only=self._read_only.get(call.name),
            )
        )
        ctx = CallContext(turn=self.turn, call_index=index)
        result = await self._dispatch(call, ctx)
        if result.call_id != call.id:
            result = result.model_copy(update={"call_id": call.id})
        raw = ctx.world_result
        if raw is not None and raw.call_id != call.id:
            raw = raw.model_copy(update={"call_id": call.id})
        changed = raw is not None and (raw.status, raw.content) != (result.status, result.content)
        self._record(
            Event(
                kind="tool_result",
                turn=self.turn,
                step=step,
                t=self._clock(),
                call=call,
                result=result,
                raw_result=raw if changed else None,
                scenarios=list(ctx.fired),
            )
        )
        return result

    def fault(self, fault: FaultKind, code: str, detail: str, step: int = 0) -> None:
        self._record(
            Event(kind="error", turn=self.turn, step=step, t=self._clock(), fault=fault, code=code, content=detail)
        )
