"""Dual control: the user's own tools, as an episode hands them to the user simulator.

A world that gives its user tools (``sim.core.DualControlWorld``) runs them on the user's side of its state; every
call and its result is recorded as the user's (``user_tool_call``/``user_tool_result``), at the turn and goal the
conversation is on. No stressor touches them: stressors are what the agent under test meets.
"""

from __future__ import annotations

from collections.abc import Callable

from sim.core import DualControlWorld, Event, ToolCall, ToolResult, ToolSpec, World, failure
from sim.core.call_ids import invented_call_id

USER_CALL_PREFIX = "user"
"""Ids of the user's calls: ``user00000``..., apart from the agent's ``call00000``."""


class RecordedUserTools:
    """The user's tools of one episode (``sim.core.UserTools``)."""

    def __init__(
        self,
        world: DualControlWorld,
        add: Callable[[Event], None],
        clock: Callable[[], float],
        where: Callable[[], tuple[int, int]],
    ) -> None:
        """``where``: the (turn, goal) the conversation is on now."""
        self._world, self._add, self._clock, self._where = world, add, clock, where
        self._specs = tuple(world.user_specs())
        self._names = {spec.name for spec in self._specs}
        self._made = 0

    @property
    def specs(self) -> tuple[ToolSpec, ...]:
        return self._specs

    async def call(self, call: ToolCall) -> ToolResult:
        call = call.model_copy(update={"id": invented_call_id(self._made, USER_CALL_PREFIX)})
        self._made += 1
        turn, goal = self._where()
        self._add(Event(kind="user_tool_call", turn=turn, goal=goal, t=self._clock(), call=call))
        if call.name in self._names:
            result = await self._world.user_call(call)
            if result.call_id != call.id:
                result = result.model_copy(update={"call_id": call.id})
        else:
            result = failure(call, "not_found", "user:unknown_tool", f"Unknown tool: {call.name}")
        self._add(Event(kind="user_tool_result", turn=turn, goal=goal, t=self._clock(), call=call, result=result))
        return result


def user_tools_of(
    world: World, add: Callable[[Event], None], clock: Callable[[], float], where: Callable[[], tuple[int, int]]
) -> RecordedUserTools | None:
    """The user's tools where the world gives it some, else None."""
    if not isinstance(world, DualControlWorld):
        return None
    tools = RecordedUserTools(world, add, clock, where)
    return tools if tools.specs else None
