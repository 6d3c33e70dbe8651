"""Timed world events: a change to the world's state at a point of the episode, the same for every agent.

A stressor that schedules events (``WorldEventSource``, found with ``isinstance``) hands the engine its changes as
data; the engine applies each to the world (``ChangeableWorld``) right before the call that makes it due, and does
the same when it replays the gold (the isolated setup's gold world, the state judge's gold world), so every world of
the episode meets the change at the same point of the goal. Triggers count calls, never wall time: runs stay
deterministic.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import Field

from sim.core.tools import Frozen

EventChangeKind = Literal[
    "sold_out", "stock_drop", "price_change", "schedule_change", "locked", "removed", "arrived", "switched"
]
"""What an event does: ``switched``: someone at home changed a device the agent is about to use."""


class WorldChange(Frozen):
    """One change an event makes, in the world's own terms (``edit``), with what a reader of the trace is told."""

    event: str = Field(description="The scenario that schedules it (``events.<slug>``).")
    kind: EventChangeKind = Field(description="What happens in the world, for reports and the viewer.")
    what: str = Field(min_length=1, description="One sentence: what changed, as the trace shows it.")
    edit: dict[str, Any] = Field(description="The change as the world's ``apply_change`` reads it.")
    goal: int = Field(ge=0, description="The goal during which it happens.")
    after_calls: int = Field(
        default=0, ge=0, description="Agent calls of that goal made before it happens (0: before the goal's first)."
    )

    def due(self, goal: int, calls_in_goal: int) -> bool:
        """Whether the change has happened by the call about to be made (the ``calls_in_goal``-th of ``goal``)."""
        return goal > self.goal or (goal == self.goal and calls_in_goal >= self.after_calls)


@runtime_checkable
class ChangeableWorld(Protocol):
    """A world an event can change (an optional capability; found with ``isinstance``)."""

    def apply_change(self, edit: dict[str, Any]) -> None:
        """Change the state as ``edit`` says; raise ValueError naming what is wrong with an edit it cannot apply."""
        ...


@runtime_checkable
class WorldEventSource(Protocol):
    """A stressor that schedules world events (an optional capability; found with ``isinstance``)."""

    def world_changes(self) -> Sequence[WorldChange]:
        """The changes this episode meets, after ``on_task`` saw the task (none for a task it does not touch)."""
        ...
