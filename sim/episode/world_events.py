"""Applies an episode's timed world events (``sim.core.world_events``) to one world, each once, when it falls due.

One schedule per world the episode plays or replays: the agent's (the runtime), the isolated setup's gold world and
the state judge's gold world. Each counts the calls made in the goal it is in and applies, before a call, every
change due by then, so a gold replay meets a change at the same point of the goal as the agent did.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence

from sim.core import ChangeableWorld, Event, Stressor, World, WorldChange


class WorldEventError(RuntimeError):
    """An event the world cannot apply: a broken row or a world without ``apply_change`` (a harness fault)."""


def scheduled_changes(stressors: Sequence[Stressor]) -> tuple[WorldChange, ...]:
    """Every change the episode's stressors schedule (``sim.core.WorldEventSource``, after their ``on_task``), in goal
    and call order."""
    changes: list[WorldChange] = []
    for s in stressors:
        # getattr, not isinstance(s, WorldEventSource): a runtime Protocol check per stressor per episode costs more.
        source = getattr(s, "world_changes", None)
        if source is not None:
            changes += source()
    return tuple(sorted(changes, key=lambda c: (c.goal, c.after_calls)))


class EventSchedule:
    """The changes not yet applied to one world, and the calls made in the goal it is in."""

    def __init__(self, changes: Sequence[WorldChange]) -> None:
        self._pending = list(changes)
        self._goal = 0
        self._calls = 0

    def __bool__(self) -> bool:
        return bool(self._pending)

    def fork(self) -> EventSchedule:
        """An independent copy, for a replay that may be rolled back with its world."""
        other = EventSchedule(self._pending)
        other._goal, other._calls = self._goal, self._calls
        return other

    def before_call(self, world: World, goal: int) -> list[WorldChange]:
        """Apply what is due before the next call of ``goal`` (the world's own call counter moves on); the changes
        applied, in order."""
        if goal != self._goal:
            self._goal, self._calls = goal, 0
        applied = self._apply_due(world, goal, self._calls)
        self._calls += 1
        return applied

    def settled_before(self, goal: int) -> None:
        """The world was put in the gold's state at the start of ``goal`` (isolated setup): a change of an earlier goal
        is in it already, whether or not this world's calls reached it."""
        self._pending = [c for c in self._pending if c.goal >= goal]

    def _apply_due(self, world: World, goal: int, calls: int) -> list[WorldChange]:
        due = [c for c in self._pending if c.due(goal, calls)]
        if not due:
            return []
        if not isinstance(world, ChangeableWorld):
            raise WorldEventError(f"{due[0].event}: world {world.name!r} cannot be changed by an event")
        for change in due:
            try:
                world.apply_change(copy.deepcopy(change.edit))  # the world may keep parts of it
            except (ValueError, KeyError) as error:
                raise WorldEventError(f"{change.event}: the world refused the change {change.edit}: {error}") from error
        self._pending = [c for c in self._pending if c not in due]
        return due


def event_record(change: WorldChange, turn: int, goal: int, step: int, t: float) -> Event:
    """The trace's record of a change: what happened, which scenario scheduled it, the goal it happened in."""
    return Event(
        kind="world_event",
        turn=turn,
        goal=goal,
        step=step,
        t=t,
        content=change.what,
        code=f"event:{change.kind}",
        scenarios=[change.event],
    )
