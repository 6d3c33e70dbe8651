"""Stressors composed around a call's last stop, as the ``Stressor`` protocol orders them.

The one place the layering is written: the episode runtime (whose last stop refuses names the agent may not call,
then runs the world) and the scenario checks in ``worlds`` (a bare world) both go through it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from sim.core.calls import CallContext, CallOutcome
from sim.core.protocols import Stressor, World
from sim.core.tools import ToolCall

LastStop = Callable[[ToolCall], Awaitable[CallOutcome]]
"""What a call meets below every stressor: the world, or the runtime's refusal of a tool not callable now."""


async def through_stressors(
    stressors: Sequence[Stressor], call: ToolCall, ctx: CallContext, last: LastStop
) -> CallOutcome:
    """Run ``call`` through ``stressors`` (the first sees it first) down to ``last``.

    Each layer gets its own context: when a stressor passes the call on with ``fired=name``, the layers inside see
    ``name`` in ``outer_fired`` and the outcome comes back with ``name`` first in ``fired``."""

    if not stressors:
        return await last(call)
    return await _Layers(stressors, last).at(0, call, ctx)


class _Layers:
    """The layers below each stressor. An object, not a closure calling itself: a self-referencing closure is a
    reference cycle per call, which keeps the call's whole episode alive until the cyclic collector runs."""

    __slots__ = ("_last", "_stressors")

    def __init__(self, stressors: Sequence[Stressor], last: LastStop) -> None:
        self._stressors, self._last = stressors, last

    async def at(self, i: int, call: ToolCall, ctx: CallContext) -> CallOutcome:
        if i == len(self._stressors):
            return await self._last(call)

        async def inner(passed: ToolCall, *, fired: str | None = None) -> CallOutcome:
            if fired is None:
                return await self.at(i + 1, passed, ctx)
            return (await self.at(i + 1, passed, ctx.passed_on_by(fired))).led_by(fired)

        return await self._stressors[i].on_call(call, ctx, inner)


def world_stop(world: World) -> LastStop:
    """A last stop that runs every call on ``world``."""

    async def reach(call: ToolCall) -> CallOutcome:
        return CallOutcome.from_world(call, await world.call(call))

    return reach
