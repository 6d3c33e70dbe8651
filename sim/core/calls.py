"""What passes through the stressor layers on one tool call: a context going down, an outcome coming up.

Both are frozen: a stressor says what it did by what it returns, never by writing into a shared object, so
concurrent calls and the layers of one call cannot see each other's bookkeeping. A stressor's ``on_call`` gets the
call, its ``CallContext`` and ``next`` (the layers inside it, the world last) and returns a ``CallOutcome``:

- pass the call on: ``return await next(call)``;
- act, then pass a (rewritten) call on: ``return await next(new_call, fired=self.name)``;
- answer without calling the world: ``return CallOutcome.answered(result, self.name)``;
- change what came back: ``return outcome.replaced(result, self.name)`` (``by`` left out when the name was already
  given to ``next``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Protocol

from sim.core.tools import ToolCall, ToolResult


@dataclass(frozen=True, slots=True, kw_only=True)
class CallContext:
    """Where in the episode a call happens, as one layer sees it (each layer gets its own)."""

    turn: int
    """0-based conversation turn index."""
    call_index: int
    """0-based index of this call within the episode."""
    goal: int = 0
    """0-based index of the task goal the user is pursuing: what schedules such as drift's ``from_goal`` count."""
    outer_fired: tuple[str, ...] = ()
    """Scenario names of the outer layers that acted on this call before passing it on, in order: a layer can tell
    a call made on another stressor's behalf (a look-alike's lookup) from the agent's own."""

    def passed_on_by(self, name: str) -> CallContext:
        """The context the layers inside see once the layer ``name`` acted and passed the call on."""
        return dataclasses.replace(self, outer_fired=(*self.outer_fired, name))


@dataclass(frozen=True, slots=True, kw_only=True)
class CallOutcome:
    """What a layer (and every layer inside it) made of one call."""

    result: ToolResult
    """What the agent observes, unless an outer layer changes it."""
    fired: tuple[str, ...] = ()
    """Scenario names of the stressors at or inside this layer that changed the call or its result, in the order
    they acted, so the trace can tell injected from real."""
    world_call: ToolCall | None = None
    """The call as it reached the world (a stressor may have renamed or rewritten it), if it did."""
    world_result: ToolResult | None = None
    """What the world itself returned, if the call reached it."""
    unknown_tool: bool = False
    """The call named no tool the agent may call now and no stressor took it: refused before the world."""

    @classmethod
    def from_world(cls, call: ToolCall, result: ToolResult) -> CallOutcome:
        """The world ran ``call`` and answered ``result``."""
        return cls(result=result, world_call=call, world_result=result)

    @classmethod
    def answered(cls, result: ToolResult, by: str) -> CallOutcome:
        """The stressor ``by`` answered the call itself: nothing inside it, the world included, saw the call."""
        return cls(result=result, fired=(by,))

    def replaced(self, result: ToolResult, by: str | None = None) -> CallOutcome:
        """This outcome with what the agent observes replaced; ``by``: the stressor that did it, when it is not
        already in ``fired``. What reached the world stays as it was."""
        fired = self.fired if by is None else (*self.fired, by)
        return dataclasses.replace(self, result=result, fired=fired)

    def led_by(self, name: str) -> CallOutcome:
        """This outcome with ``name`` first in ``fired``: the layer that acted before passing the call on."""
        return dataclasses.replace(self, fired=(name, *self.fired))


class CallNext(Protocol):
    """The layers inside a stressor, the world last. ``fired``: the calling stressor's name when it acted on the call
    before passing it on (the inner layers see it in ``CallContext.outer_fired``, and it leads ``fired``)."""

    def __call__(self, call: ToolCall, /, *, fired: str | None = None) -> Awaitable[CallOutcome]: ...
