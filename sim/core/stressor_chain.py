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

    async def layer(i: int, call: ToolCall, ctx: CallContext) -> CallOutcome:
        if i == len(stressors):
            return await last(call)

        async def inner(passed: ToolCall, *, fired: str | None = None) -> CallOutcome:
            if fired is None:
                return await layer(i + 1, passed, ctx)
            return (await layer(i + 1, passed, ctx.passed_on_by(fired))).led_by(fired)

        return await stressors[i].on_call(call, ctx, inner)

    return await layer(0, call, ctx)


def world_stop(world: World) -> LastStop:
    """A last stop that runs every call on ``world``."""

    async def reach(call: ToolCall) -> CallOutcome:
        return CallOutcome.from_world(call, await world.call(call))

    return reach
