"""Timed world events: while the agent works on a goal, the world changes on its own.

A row names one task and schedules one change there (``sim.core.world_events``): during goal ``goal``, once the
agent has made ``after_calls`` calls of that goal (0: before its first), ``edit`` is applied to the world in the
world's own terms (a row's field, a device's setting). What the row says besides:

- ``kind`` and ``what``: what happens (an item sells out, a slot is taken, a light is switched on), shown in the trace;
- ``behaviour``: what a right agent does — ``recheck`` (read again before acting, act on the new value),
  ``alternative`` (the thing asked for is gone: take the other way the row names), ``tell_user`` (part of the
  request cannot be done any more: do the rest and say so; a goal with nothing left becomes a ``decline`` goal);
- ``goals``: goal index -> the gold for the changed world (``gold``, and ``gold_answer``/``answer`` where the reply
  changes; ``decline``: the reply of a goal nothing may do any more), and ``also_affects``: later goals whose gold
  stands but that an agent who acted on the old world loses by what it left undone. Together they are the goals the
  event affects, written down: the isolated summary measures them, and an agent that acts on what it read before
  the change (the naive agent replaying the old gold) loses exactly them.

The change reaches the agent only through what it reads next: nothing tells it. The oracle replays the new gold,
whose re-reads come after the change, as any careful agent's would. The engine applies the change to every world of
the episode at the same point (the agent's, the isolated setup's gold world, the state judge's), so the gold's
state is the changed world's. Triggers count calls, never time: reruns with the same seed are alike.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, JsonValue, ValidationError

from sim.core import EventChangeKind, Goal, GoldCall, Task, WorldChange
from sim.core.tools import Frozen
from worlds.stressors.decline import declined
from worlds.stressors.scenario import Scenario, ScenarioStressor

Behaviour = Literal["recheck", "alternative", "tell_user"]


class ChangedGoal(Frozen):
    """A goal as the changed world asks it to be done."""

    gold: list[GoldCall] = Field(default_factory=list, description="The new solution path (re-reads included).")
    gold_answer: str | None = Field(default=None, description="Facts the reply must convey now, if they changed.")
    answer: JsonValue = Field(default=None, description="The exact answer now, where the goal has one.")
    decline: str | None = Field(default=None, description="tell_user: a good reply when nothing is left to do.")


class EventRow(Frozen):
    """The ``params`` of an ``events`` row."""

    task: str = Field(min_length=1, description="The task the event happens in.")
    goal: int = Field(ge=0, description="The goal during which it happens.")
    after_calls: int = Field(default=0, ge=0, description="Agent calls of that goal before it happens.")
    kind: EventChangeKind
    what: str = Field(min_length=1, description="What changed, as the trace says it.")
    edit: dict[str, Any] = Field(description="The change in the world's own terms (its ``apply_change``).")
    behaviour: Behaviour
    goals: dict[int, ChangedGoal] = Field(min_length=1, description="Affected goal -> its gold in the changed world.")
    also_affects: list[int] = Field(
        default_factory=list,
        description="Later goals whose gold stands but that an agent acting on the old world loses by what it left "
        "undone (an item it never added cannot be taken out).",
    )


def event_row(scenario: Scenario) -> EventRow:
    """The row's params, validated; a ValueError names the scenario and the field."""
    try:
        row = EventRow.model_validate(scenario.params)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "params"
        raise ValueError(f"{scenario.name}: params.{where}: {first['msg']}") from error
    for g, changed in row.goals.items():
        if g < row.goal:
            raise ValueError(f"{scenario.name}: goal {g} comes before the event (goal {row.goal})")
        if changed.decline is not None and (row.behaviour != "tell_user" or g != row.goal or changed.gold):
            raise ValueError(f"{scenario.name}: goals.{g}: a decline reply is the whole gold of a tell_user row's goal")
        if changed.decline is None and not changed.gold:
            raise ValueError(f"{scenario.name}: goals.{g}: a gold path or a decline reply")
    if any(g <= row.goal or g in row.goals for g in row.also_affects):
        raise ValueError(f"{scenario.name}: also_affects names later goals the row does not rewrite")
    return row


class WorldEvents(ScenarioStressor):
    """Rewrites the gold of the affected goals of its task and schedules the change (``world_changes``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.row = event_row(self.scenario.model_copy(update={"params": self.params}))
        self._changes: tuple[WorldChange, ...] = ()

    def on_task(self, task: Task) -> Task:
        self._changes = ()
        if task.id != self.row.task:
            return task
        row = self.row
        if row.goal >= len(task.goals) or max(row.goals) >= len(task.goals):
            raise ValueError(f"{self.name}: task {task.id} has {len(task.goals)} goals, the row names goal(s) past it")
        reached = row.goals.get(row.goal)
        path = reached.gold if reached is not None else task.goals[row.goal].gold
        if (reached is None or reached.decline is None) and len(path) <= row.after_calls:
            # The gold must reach the change, or its replays would never meet it (the isolated setup's world).
            calls = f"{len(path)} call(s)"
            raise ValueError(
                f"{self.name}: the gold of goal {row.goal} makes {calls}, the event comes after {row.after_calls}"
            )
        goals = list(task.goals)
        for g, changed in row.goals.items():
            goals[g] = _changed(goals[g], changed, self.scenario)
        self._changes = (
            WorldChange(
                event=self.name, kind=row.kind, what=row.what, edit=row.edit, goal=row.goal, after_calls=row.after_calls
            ),
        )
        return task.model_copy(update={"goals": goals})

    def world_changes(self) -> tuple[WorldChange, ...]:
        return self._changes

    @classmethod
    def check_row(cls, scenario: Scenario) -> None:
        """Raise ValueError naming the field when the row's params are not an event (the table's loader asks)."""
        event_row(scenario)

    @classmethod
    def affected_goals(cls, task: Task, scenario: Scenario) -> list[int]:
        """The goals the row writes down, in its task only."""
        row = event_row(scenario)
        return sorted({*row.goals, *row.also_affects}) if task.id == row.task else []


def _changed(goal: Goal, changed: ChangedGoal, scenario: Scenario) -> Goal:
    if changed.decline is not None:
        return declined(goal, changed.decline, scenario.criteria)
    update: dict[str, Any] = {"gold": list(changed.gold), "alternatives": []}
    if changed.gold_answer is not None:
        update["gold_answer"] = changed.gold_answer
    if changed.answer is not None:
        update["answer"] = changed.answer
    return goal.model_copy(update=update)


STRESSOR = WorldEvents
